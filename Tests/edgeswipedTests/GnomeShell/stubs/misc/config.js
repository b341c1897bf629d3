// TEST ONLY: a stand-in for GNOME Shell 45's resource:///org/gnome/shell/misc/config.js (core-test.js).
export const PACKAGE_VERSION = '45.stand-in';
