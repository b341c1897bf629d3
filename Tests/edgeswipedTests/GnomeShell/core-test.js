// TEST ONLY: the GNOME Shell extension's shared code (core.js as `build esm` makes it, an ES module) under
// `gjs -m`, with stand-ins for the shell, and the GNOME 45 entry (esm/extension.js) loaded with stand-ins for the
// shell's own modules. GnomeExtensionCheckTests runs it:
//   gjs -m core-test.js ESM_EXTENSION_DIR [STUB_RESOURCE]
// ESM_EXTENSION_DIR is `build esm`'s output folder; STUB_RESOURCE, a GResource holding stand-ins for
// resource:///org/gnome/shell/{ui/main.js,misc/config.js,extensions/extension.js}, lets the entry load (with
// GI_TYPELIB_PATH pointing at mutter's and gnome-shell's typelibs). One line per check, "PASS name" or
// "FAIL name: detail"; the exit status is the number of failures.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import System from 'system';

const [extensionDir, stubResource] = ARGV;
const {edgeSwipeCore} = await import(`file://${extensionDir}/core.js`);

let failures = 0;
function check(name, ok, detail = '') {
    if (!ok)
        failures++;
    print(`${ok ? 'PASS' : 'FAIL'} ${name}${ok ? '' : `: ${detail}`}`);
}
function same(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
}
// A group of checks; one that throws fails as a whole and the others still run.
function section(name, body) {
    try {
        body();
    } catch (e) {
        check(`${name} (threw)`, false, `${e}\n${e.stack}`);
    }
}

// -- Stand-ins for the shell -----------------------------------------------------------------------------------

/** A GObject's notify::PROP signals, enough for the claims and the trackers. */
class FakeObject {
    constructor(props = {}) {
        this._handlers = new Map();
        this._next = 1;
        this._values = {};
        for (const [k, v] of Object.entries(props))
            this._values[k] = v;
        for (const k of Object.keys(props)) {
            Object.defineProperty(this, k, {
                get: () => this._values[k],
                set: v => {
                    if (this._values[k] === v)
                        return;
                    this._values[k] = v;
                    for (const h of [...this._handlers.values()]) {
                        if (h.signal === `notify::${k}`)
                            h.fn(this);
                    }
                },
            });
        }
    }

    connect(signal, fn) {
        const id = this._next++;
        this._handlers.set(id, {signal, fn});
        return id;
    }

    disconnect(id) {
        this._handlers.delete(id);
    }

    emit(signal) {
        for (const h of [...this._handlers.values()]) {
            if (h.signal === signal)
                h.fn(this);
        }
    }

    get handlerCount() {
        return this._handlers.size;
    }
}

const ActionMode = {NONE: 0, NORMAL: 1, OVERVIEW: 2, LOCK_SCREEN: 4, UNLOCK_SCREEN: 8, LOGIN_SCREEN: 16, SYSTEM_MODAL: 32,
    LOOKING_GLASS: 64, POPUP: 128, ALL: 255};
const pressed = [];
const Clutter = {
    Orientation: {HORIZONTAL: 0, VERTICAL: 1},
    InputDeviceType: {KEYBOARD_DEVICE: 1},
    KeyState: {RELEASED: 0, PRESSED: 1},
    get_default_backend: () => ({
        get_default_seat: () => ({
            create_virtual_device: () => ({
                notify_keyval: (time, sym, state) => pressed.push([sym, state]),
                run_dispose: () => pressed.push('disposed'),
            }),
        }),
    }),
};
const Shell = {ActionMode};

/** A GNOME SwipeTracker: `enabled` bound one way to its touchpad and touchscreen parts, as GNOME binds them. */
function fakeTracker({pan = null} = {}) {
    const tracker = new FakeObject({enabled: true});
    tracker._state = 0;
    tracker._touchpadGesture = new FakeObject({enabled: true});
    if (pan)
        tracker._panGesture = Object.assign(new FakeObject({enabled: true}), pan);
    else
        tracker._touchGesture = new FakeObject({enabled: true});
    tracker.connect('notify::enabled', () => {
        tracker._touchpadGesture.enabled = tracker.enabled;
        (tracker._touchGesture || tracker._panGesture).enabled = tracker.enabled;
    });
    return tracker;
}

/** WorkspaceAnimationController's three calls, recorded; snap points as a vertical layout gives them. */
function fakeWorkspaces(points, active) {
    return {
        calls: [],
        _swipeTracker: fakeTracker(),
        progress: points[active],
        _switchWorkspaceBegin(tracker, monitor) {
            this.calls.push(['begin', monitor]);
            tracker.confirmSwipe(1000, points, this.progress, points[active]);
        },
        _switchWorkspaceUpdate(tracker, progress) {
            this.calls.push(['update', progress]);
            this.progress = progress;
        },
        _switchWorkspaceEnd(tracker, ms, progress) {
            this.calls.push(['end', ms, progress]);
            this.progress = progress;
        },
    };
}

function fakeOverview() {
    const overview = new FakeObject({});
    Object.assign(overview, {
        calls: [],
        _swipeTracker: fakeTracker(),
        _shown: false,
        _shownState: 'HIDDEN',
        isDummy: false,
        state: 0,
        _overview: {controls: {_stateAdjustment: {gestureInProgress: false}, _workspacesDisplay: null, _appDisplay: null}},
        _gestureBegin(tracker) {
            this.calls.push(['begin']);
            tracker.confirmSwipe(800, [0, 1, 2], this.state, Math.round(this.state));
            this._overview.controls._stateAdjustment.gestureInProgress = true;
        },
        _gestureUpdate(tracker, progress) {
            this.calls.push(['update', progress]);
            if (!this._shown) {
                if (this._shownState === 'SHOWING')
                    throw new Error('Invalid overview shown transition from SHOWING to SHOWING');
                this._shown = true;
                this._shownState = 'SHOWING';
            }
            this.state = progress;
        },
        _gestureEnd(tracker, ms, progress) {
            this.calls.push(['end', ms, progress]);
            if (progress === 0 && this._shownState === 'HIDDEN')
                throw new Error('Invalid overview shown transition from HIDDEN to HIDING');
            if (progress === 0) {
                this._shown = false;
                this._shownState = 'HIDING';
                this.emit('hiding');
            }
            this.state = progress;
            this._overview.controls._stateAdjustment.gestureInProgress = false;
        },
    });
    return overview;
}

function makeShell({points = [0, 1, 2, 3], active = 0, mode = ActionMode.NORMAL} = {}) {
    const Main = {
        actionMode: mode,
        wm: {_workspaceAnimation: fakeWorkspaces(points, active)},
        overview: fakeOverview(),
        layoutManager: {monitors: [{}], primaryIndex: 0},
    };
    const said = [];
    const core = edgeSwipeCore({Clutter, Gio, GLib, Shell, Main, global: {}, shellVersion: 'test', log: m => said.push(m)});
    return {core, Main, said};
}

// -- Percent and GNOME's units ---------------------------------------------------------------------------------

section('percent and GNOME units', () => {
    const {core} = makeShell();
    check('snap range: the next workspace from 1 of 4', same(core.snapRange([0, 1, 2, 3], 1, 1), {from: 1, to: 2}));
    check('snap range: vertical workspaces under a panel are not whole numbers',
        same(core.snapRange([0, 0.9625, 1.925], 0.9625, 1), {from: 0.9625, to: 1.925}));
    check('snap range: from the snap point nearest to where GNOME would go back',
        same(core.snapRange([0, 1, 2], 1.4, -1), {from: 1, to: 0}));
    check('snap range: none past the last workspace', core.snapRange([0, 1], 1, 1) === null);
    check('snap range: none before the first', core.snapRange([0, 1], 0, -1) === null);
    check('snap range: refuses what is not a number', core.snapRange([0, NaN], 0, 1) === null &&
        core.snapRange([0, 1], Infinity, 1) === null && core.snapRange([], 0, 1) === null);
    const r = {from: 0.9625, to: 1.925};
    check('percent: 0.5 is half-way in GNOME\'s units', Math.abs(core.progressAt(r, 0.5) - 1.44375) < 1e-12);
    check('percent: clamped to 0...1', core.progressAt(r, -3) === 0.9625 && core.progressAt(r, 7) === 1.925);
});

// -- Live gestures ---------------------------------------------------------------------------------------------

section('workspace gestures', () => {
    const {core, Main} = makeShell({points: [0, 0.9625, 1.925, 2.8875], active: 1});
    const settled = [];
    const board = new core.GestureBoard((g, reason) => settled.push([g.id, reason]));
    const wa = Main.wm._workspaceAnimation;
    board.begin(7, 'workspace-next', 0);
    board.update(7, 0.5);
    check('workspace: begins on GNOME and maps the percent through its snap points',
        same(wa.calls.slice(0, 3), [['begin', 0], ['update', 0.9625], ['update', 0.9625 + 0.9625 * 0.5]]), JSON.stringify(wa.calls));
    let busy = null;
    try {
        board.begin(8, 'overview-show', 0);
    } catch (e) {
        busy = e;
    }
    check('one transition follows the finger at a time', busy && busy.dbusName.endsWith('.Busy'), `${busy}`);
    board.end(7, true, 250);
    check('workspace: commit runs out to the next snap point over the given time', same(wa.calls.at(-1), ['end', 250, 1.925]));
    board.update(7, 0.3);
    check('an update during the run-out catches it: GNOME begins again and follows',
        same(wa.calls.slice(-3).map(c => c[0]), ['begin', 'update', 'update']) &&
        Math.abs(wa.calls.at(-1)[1] - (0.9625 + 0.9625 * 0.3)) < 1e-12, JSON.stringify(wa.calls.slice(-3)));
    board.end(7, false, 100);
    check('workspace: going back ends at the snap point it began at', same(wa.calls.at(-1), ['end', 100, 0.9625]));
    board.begin(7, 'workspace-next', 0);
    check('a Begin for a transition running out catches it too', board.gestures.get(7).state === 'following' &&
        same(wa.calls.slice(-2).map(c => c[0]), ['begin', 'update']), JSON.stringify(wa.calls.slice(-2)));
    board.end(7, false, 100);

    // A modal dialog opens while a gesture follows the finger: it goes back at once and says why.
    board.begin(9, 'workspace-previous', -1);
    board.update(9, 0.4);
    Main.actionMode = ActionMode.SYSTEM_MODAL;
    board.update(9, 0.5);
    check('the shell left its mode: the gesture goes back at once, the client is told',
        same(wa.calls.at(-1), ['end', 0, 0.9625]) && settled.length === 1 && settled[0][0] === 9 &&
        settled[0][1].includes('SYSTEM_MODAL'), JSON.stringify([wa.calls.at(-1), settled]));
    let interrupted = null;
    try {
        board.end(9, true, 200);
    } catch (e) {
        interrupted = e;
    }
    check('its end is answered Interrupted', interrupted && interrupted.dbusName.endsWith('.Interrupted'), `${interrupted}`);
    let refused = null;
    try {
        board.begin(10, 'workspace-next', 0);
    } catch (e) {
        refused = e;
    }
    check('nothing begins under a modal dialog', refused && refused.dbusName.endsWith('.NotAllowedNow') &&
        refused.message.includes('SYSTEM_MODAL'), `${refused}`);
    Main.actionMode = ActionMode.NORMAL;

    // GNOME turns its own tracker off (the overview opens, a keyboard switch): the gesture goes back at once.
    board.begin(11, 'workspace-next', 0);
    board.update(11, 0.2);
    wa._swipeTracker.enabled = false;
    check('GNOME turning its tracker off interrupts the gesture without waiting for an update',
        same(wa.calls.at(-1), ['end', 0, 0.9625]) && settled.at(-1)[0] === 11, JSON.stringify(wa.calls.at(-1)));
    let off = null;
    try {
        board.begin(12, 'workspace-next', 0);
    } catch (e) {
        off = e;
    }
    check('and nothing begins while it is off', off && off.dbusName.endsWith('.NotAllowedNow'), `${off}`);
    wa._swipeTracker.enabled = true;
    check('the watch is gone once the gesture settled', wa._swipeTracker.handlerCount === 1, `${wa._swipeTracker.handlerCount}`);

    // GNOME throws inside a hook: the board forgets the gesture after it tried to put it back.
    board.begin(14, 'workspace-next', 0);
    wa._switchWorkspaceUpdate = () => {
        throw new Error('boom');
    };
    let thrown = null;
    try {
        board.update(14, 0.5);
    } catch (e) {
        thrown = e;
    }
    board.fault(14, 'GNOME Shell threw: boom');
    check('a hook that throws surfaces, and the gesture goes back and is forgotten', thrown && thrown.message === 'boom' &&
        same(wa.calls.at(-1), ['end', 250, 0.9625]) && !board.gestures.has(14), JSON.stringify(wa.calls.at(-1)));
});

section('no previous workspace', () => {
    const {core, Main} = makeShell();
    const wa = Main.wm._workspaceAnimation;
    const board = new core.GestureBoard(() => {});
    let none = null;
    try {
        board.begin(1, 'workspace-previous', 0);
    } catch (e) {
        none = e;
    }
    check('no previous workspace from the first: NoTarget, and GNOME put back at rest',
        none && none.dbusName.endsWith('.NoTarget') && same(wa.calls.at(-1), ['end', 0, 0]), `${none} ${JSON.stringify(wa.calls)}`);
});

section('no next workspace', () => {
    const {core, Main} = makeShell({points: [0, 1], active: 1});
    const wa = Main.wm._workspaceAnimation;
    let none = null;
    try {
        new core.GestureBoard(() => {}).begin(1, 'workspace-next', 0);
    } catch (e) {
        none = e;
    }
    check('no next workspace from the last: NoTarget', none && none.dbusName.endsWith('.NoTarget') &&
        none.message.includes('no next workspace') && same(wa.calls.at(-1), ['end', 0, 1]), `${none}`);
});

// -- The overview ----------------------------------------------------------------------------------------------

section('the overview', () => {
    const {core, Main} = makeShell();
    const ov = Main.overview;
    const settled = [];
    const board = new core.GestureBoard((g, reason) => settled.push([g.id, reason]));
    board.begin(1, 'overview-show', 0);
    board.update(1, 0.5);
    check('overview: shown by the first update, then follows', same(ov.calls, [['begin'], ['update', 0], ['update', 0.5]]) &&
        ov._shownState === 'SHOWING', JSON.stringify(ov.calls));
    // Super or Esc: someone else's hide() clears _shown while the gesture's animation is the one in progress.
    ov._shown = false;
    board.update(1, 0.6);
    check('hidden by someone else mid-gesture: ends at hidden, never updates into GNOME\'s throw',
        same(ov.calls.at(-1), ['end', 0, 0]) && settled.at(-1)[0] === 1, JSON.stringify(ov.calls.slice(-2)));

    // Hiding a hidden overview: nothing that way, and GNOME's gesture flag is cleared without ending at hidden
    // (which GNOME refuses from HIDDEN).
    ov._shownState = 'HIDDEN';
    ov.state = 0;
    let none = null;
    try {
        new core.GestureBoard(() => {}).begin(9, 'overview-hide', 0);
    } catch (e) {
        none = e;
    }
    check('overview-hide of a hidden overview: NoTarget, nothing thrown inside GNOME, the flag cleared',
        none && none.dbusName.endsWith('.NoTarget') && !ov._overview.controls._stateAdjustment.gestureInProgress, `${none}`);

    // A shown overview hidden by a gesture, and Esc hides it meanwhile: GNOME's own animation runs; the gesture
    // only steps aside.
    ov._shown = true;
    ov._shownState = 'SHOWN';
    ov.state = 1;
    board.begin(2, 'overview-hide', 0);
    board.update(2, 0.3);
    ov._shown = false;
    ov._shownState = 'HIDING';
    const calls = ov.calls.length;
    ov.emit('hiding');
    check('Esc during a hide gesture: no call into GNOME, the gesture flag cleared',
        ov.calls.length === calls && !ov._overview.controls._stateAdjustment.gestureInProgress && settled.at(-1)[0] === 2,
        JSON.stringify(ov.calls.slice(calls)));

    // Committing a show, then a catch of the run-out going back.
    ov._shown = false;
    ov._shownState = 'HIDDEN';
    ov.state = 0;
    board.begin(3, 'overview-show', 0);
    board.update(3, 0.4);
    board.end(3, false, 200);
    board.update(3, 0.5);
    check('a caught run-out of a cancelled show shows the overview again before following',
        same(ov.calls.slice(-4), [['end', 200, 0], ['begin'], ['update', 0], ['update', 0.5]]) && ov._shown,
        JSON.stringify(ov.calls.slice(-4)));
});

// -- Claims ----------------------------------------------------------------------------------------------------

section('claims', () => {
    const {core, Main} = makeShell();
    const wa = Main.wm._workspaceAnimation._swipeTracker;
    const appGrid = fakeTracker({pan: {min_n_points: 1}});
    const display = fakeTracker();
    Main.overview._overview.controls._workspacesDisplay = {_swipeTracker: display};
    Main.overview._overview.controls._appDisplay = {_swipeTracker: appGrid};
    const claims = new core.GestureClaims();
    check('claims available here', same(claims.available(), ['touchpad-horizontal', 'touchpad-vertical', 'touchscreen-horizontal',
        'touchscreen-vertical']), JSON.stringify(claims.available()));
    const got = claims.set(['touchpad-horizontal', 'touchscreen-horizontal', 'touchpad-horizontal']);
    check('a claim turns off the parts of every horizontal tracker', same(got, ['touchpad-horizontal', 'touchscreen-horizontal']) &&
        !wa._touchpadGesture.enabled && !wa._touchGesture.enabled && !display._touchpadGesture.enabled &&
        !appGrid._touchpadGesture.enabled && Main.overview._swipeTracker._touchpadGesture.enabled, JSON.stringify(got));
    check('a one-finger drag (GNOME 49\'s pan gesture with min_n_points 1) is not claimed', appGrid._panGesture.enabled);
    wa.enabled = false;
    wa.enabled = true;
    check('GNOME turning its tracker off and on does not turn a claimed part back on',
        !wa._touchpadGesture.enabled && !wa._touchGesture.enabled);
    wa.enabled = false;
    claims.set(['touchpad-vertical']);
    check('a new set replaces the last: released parts take their tracker\'s state',
        wa._touchpadGesture.enabled === false && display._touchpadGesture.enabled === true &&
        !Main.overview._swipeTracker._touchpadGesture.enabled);
    wa.enabled = true;
    claims.release();
    check('release: every part on again, no handler left', wa._touchpadGesture.enabled &&
        Main.overview._swipeTracker._touchpadGesture.enabled && Main.overview._swipeTracker._touchpadGesture.handlerCount === 0);
    let bad = null;
    try {
        claims.set(['everything']);
    } catch (e) {
        bad = e;
    }
    check('an unknown claim is InvalidArgs naming it', bad && bad.dbusName.endsWith('InvalidArgs') && bad.message.includes('everything'));
    // GNOME's own gesture in flight when claimed: interrupted first (the tracker's enabled toggled), never left hanging.
    let toggles = 0;
    wa.connect('notify::enabled', () => toggles++);
    wa._state = 1;
    claims.set(['touchpad-horizontal']);
    check('a GNOME gesture in flight is interrupted by the claim', toggles === 2 && wa.enabled, `${toggles}`);
    claims.release();
    const pan49 = fakeTracker({pan: {min_n_points: 3}});
    check('GNOME 49\'s three-finger pan gesture is the touchscreen part', core.trackerPart(pan49, 'touchscreen') === pan49._panGesture);
});

// -- Keys ------------------------------------------------------------------------------------------------------

section('keys', () => {
    const {core, Main} = makeShell();
    const keys = new core.VirtualKeys();
    keys.chord(['ctrl', 'shift', 'ctrl'], 0x78);
    check('a chord: modifiers pressed in order, the key, then released in reverse', same(pressed.splice(0), [
        [0xffe3, 1], [0xffe1, 1], [0x78, 1], [0x78, 0], [0xffe1, 0], [0xffe3, 0]]));
    Main.actionMode = ActionMode.SYSTEM_MODAL;
    let modal = null;
    try {
        keys.chord([], 0x61);
    } catch (e) {
        modal = e;
    }
    check('no key into a modal dialog', modal && modal.dbusName.endsWith('.NotAllowedNow') && pressed.length === 0);
    Main.actionMode = ActionMode.LOCK_SCREEN;
    try {
        keys.chord([], 0x61);
    } catch (e) {
        modal = e;
    }
    check('no key on the lock screen', modal.message.includes('LOCK_SCREEN') && pressed.length === 0);
    Main.actionMode = ActionMode.NORMAL;
    for (const [mods, sym, why] of [[['mod2'], 0x61, 'mod2'], [[], 0, 'keysym'], [[], 0x20000000, 'keysym'], [[], 1.5, 'keysym']]) {
        let e = null;
        try {
            keys.chord(mods, sym);
        } catch (err) {
            e = err;
        }
        check(`refused: ${JSON.stringify(mods)} ${sym}`, e && e.dbusName.endsWith('InvalidArgs') && e.message.includes(why) &&
            pressed.length === 0, `${e}`);
    }
    keys.destroy();
    check('the keyboard is disposed on disable (keys held are released)', same(pressed.splice(0), ['disposed']));
});

// -- Who may call ----------------------------------------------------------------------------------------------

section('who may call', () => {
    const {core} = makeShell();
    const root = GLib.dir_make_tmp('edgeswipe-proc-XXXXXX');
    const proc = (pid, exe, cgroup, flatpak = false) => {
        const dir = `${root}/${pid}`;
        GLib.mkdir_with_parents(`${dir}/root`, 0o755);
        Gio.File.new_for_path(`${dir}/exe`).make_symbolic_link(exe, null);
        GLib.file_set_contents(`${dir}/cgroup`, cgroup);
        if (flatpak)
            GLib.file_set_contents(`${dir}/root/.flatpak-info`, '[Application]\nname=org.example.App\n');
    };
    const session = '0::/user.slice/user-1000.slice/user@1000.service/app.slice/edgeswipe-session.service\n';
    proc(100, '/usr/bin/edgeswipe-session', session);
    proc(101, '/usr/bin/python3', session);
    proc(102, '/app/bin/edgeswipe-session', session, true);
    proc(103, '/snap/edgeswipe/1/usr/bin/edgeswipe-session',
        '0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.edgeswipe.edgeswipe-session-1234.scope\n');
    proc(104, '/usr/bin/edgeswipe-session (deleted)', session);
    proc(105, '/home/u/bin/edgeswipe-session-evil', session);
    const rules = {procRoot: root, ownUid: 1000, executable: 'edgeswipe-session'};
    const judge = (uid, pid) => core.judgeProcess({uid, pid}, rules);
    check('this user\'s edgeswipe-session is allowed', judge(1000, 100).allowed, JSON.stringify(judge(1000, 100)));
    check('after an upgrade replaced its file, too', judge(1000, 104).allowed);
    const cases = [
        [1001, 100, 'uid 1001'], [undefined, 100, 'which user'], [1000, 0, 'which process'],
        [1000, 101, 'its executable is /usr/bin/python3'], [1000, 105, 'edgeswipe-session-evil'],
        [1000, 102, 'Flatpak'], [1000, 103, 'Snap'], [1000, 999, 'cannot be read'],
    ];
    for (const [uid, pid, why] of cases) {
        const v = judge(uid, pid);
        check(`refused, saying "${why}"`, !v.allowed && v.reason.includes(why), JSON.stringify(v));
    }
});

// -- The GNOME 45 entry ----------------------------------------------------------------------------------------

if (stubResource) {
    Gio.Resource.load(stubResource)._register();
    const entry = await import(`file://${extensionDir}/extension.js`);
    const {Extension} = await import('resource:///org/gnome/shell/extensions/extension.js');
    const ext = new entry.default({uuid: 'edgeswipe@edgeswipe.invalid', path: extensionDir});
    check('the GNOME 45 entry loads as an ES module; its default export extends Extension',
        ext instanceof Extension && typeof ext.enable === 'function' && typeof ext.disable === 'function');
    const metadata = JSON.parse(new TextDecoder().decode(GLib.file_get_contents(`${extensionDir}/metadata.json`)[1]));
    check('its metadata lists GNOME 45 and later only', metadata['shell-version'].every(v => Number(v) >= 45), JSON.stringify(metadata));
} else {
    print('SKIP the GNOME 45 entry: no stand-in resource given');
}

System.exit(failures);
