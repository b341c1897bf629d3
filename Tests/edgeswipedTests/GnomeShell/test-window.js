// TEST ONLY: a GTK 4 window for GnomeShellExtensionTests. Its application id becomes its Wayland app_id (what the
// extension reports as the focused app), it shows TEXT large (so that screenshots show which workspace is which),
// and it appends each key it receives to LOG, one line each: "key NAME MODIFIERS", where MODIFIERS names the held
// ones (ctrl, shift, alt, super), or "-". ALIGN (start, center, end) places TEXT, so that a screenshot half-way
// between two workspaces shows both texts.
//   gjs test-window.js APP_ID TITLE TEXT LOG [ALIGN]
imports.gi.versions.Gdk = '4.0';
imports.gi.versions.Gtk = '4.0';
const {Gdk, Gio, GLib, Gtk} = imports.gi;

const [appId, title, text, logPath, align = 'center'] = ARGV;
const log = Gio.File.new_for_path(logPath).append_to(Gio.FileCreateFlags.NONE, null);
const say = line => {
    log.write_all(new TextEncoder().encode(`${line}\n`), null);
    log.flush(null);
};

const modifierNames = state => {
    const names = [];
    if (state & Gdk.ModifierType.CONTROL_MASK)
        names.push('ctrl');
    if (state & Gdk.ModifierType.SHIFT_MASK)
        names.push('shift');
    if (state & Gdk.ModifierType.ALT_MASK)
        names.push('alt');
    if (state & Gdk.ModifierType.SUPER_MASK)
        names.push('super');
    return names.length ? names.join('+') : '-';
};

const app = new Gtk.Application({application_id: appId, flags: Gio.ApplicationFlags.NON_UNIQUE});
app.connect('activate', () => {
    const window = new Gtk.ApplicationWindow({application: app, title, default_width: 900, default_height: 520});
    const label = new Gtk.Label({halign: {start: Gtk.Align.START, end: Gtk.Align.END}[align] || Gtk.Align.CENTER,
        margin_start: 24, margin_end: 24});
    label.set_markup(`<span size="36000" weight="bold">${GLib.markup_escape_text(text, -1)}</span>`);
    window.set_child(label);
    const keys = new Gtk.EventControllerKey();
    keys.connect('key-pressed', (_controller, keyval, _keycode, state) => {
        say(`key ${Gdk.keyval_name(keyval)} ${modifierNames(state)}`);
        return false;
    });
    window.add_controller(keys);
    window.connect('notify::is-active', () => say(`active ${window.is_active}`));
    window.present();
    say('ready');
});
app.run([]);
