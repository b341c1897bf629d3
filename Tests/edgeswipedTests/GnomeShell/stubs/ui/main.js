// TEST ONLY: a stand-in for GNOME Shell 45's resource:///org/gnome/shell/ui/main.js (core-test.js).
export let actionMode = 1;
export const wm = {};
export const overview = {};
export const layoutManager = {monitors: [], primaryIndex: 0};
