// TEST ONLY: a stand-in for GNOME Shell 45's resource:///org/gnome/shell/extensions/extension.js (core-test.js):
// the constructor and the fields the EdgeSwipe entry uses.
import Gio from 'gi://Gio';

export class Extension {
    constructor(metadata) {
        this.metadata = metadata;
        this.uuid = metadata.uuid;
        this.path = metadata.path;
        this.dir = Gio.File.new_for_path(metadata.path);
    }
}
