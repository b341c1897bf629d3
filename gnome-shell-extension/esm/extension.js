// The entry GNOME Shell 45 and later load (an ES module whose default export extends Extension). Everything
// else is in core.js, which the GNOME 43 entry (legacy/extension.js) shares; `build esm` makes it a module.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Shell from 'gi://Shell';

import * as Config from 'resource:///org/gnome/shell/misc/config.js';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

import {edgeSwipeCore} from './core.js';

export default class EdgeSwipeExtension extends Extension {
    enable() {
        const core = edgeSwipeCore({
            Clutter, Gio, GLib, Shell, Main, global, shellVersion: Config.PACKAGE_VERSION, dir: this.dir,
        });
        this.service = new core.EdgeSwipeShell();
        this.service.enable();
    }

    disable() {
        this.service.disable();
        this.service = null;
    }
}
