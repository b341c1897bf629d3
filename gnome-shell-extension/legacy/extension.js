// The entry GNOME Shell 43 and 44 load (the legacy format: `imports`, init/enable/disable). Everything else is
// in core.js, which the GNOME 45 entry (esm/extension.js) shares.
'use strict';

/* exported init */

const {Clutter, Gio, GLib, Shell} = imports.gi;
const Config = imports.misc.config;
const ExtensionUtils = imports.misc.extensionUtils;
const Main = imports.ui.main;

const Me = ExtensionUtils.getCurrentExtension();
const {edgeSwipeCore} = Me.imports.core;

class EdgeSwipeExtension {
    enable() {
        const core = edgeSwipeCore({
            Clutter, Gio, GLib, Shell, Main, global, shellVersion: Config.PACKAGE_VERSION, dir: Me.dir,
        });
        this.service = new core.EdgeSwipeShell();
        this.service.enable();
    }

    disable() {
        this.service.disable();
        this.service = null;
    }
}

/**
 * @returns {EdgeSwipeExtension} the extension's state, which GNOME enables and disables
 */
function init() {
    return new EdgeSwipeExtension();
}
