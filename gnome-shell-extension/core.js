// EdgeSwipe's GNOME Shell extension: the code every GNOME version shares.
//
// This file has no module syntax, so that one source serves both extension formats: GNOME 43 and 44 load it
// with the legacy importer (`Me.imports.core.edgeSwipeCore`), and `build esm` appends one `export` line for
// GNOME 45 and later. Everything it needs from the shell comes in through `edgeSwipeCore(shell)`, so the entries
// are thin and the tests can load it under `gjs -m` with stand-ins (README.md, "How it is checked").
//
// The private hooks it calls are listed in README.md, with what each is for and the GNOME versions that have it.

/* exported edgeSwipeCore */

/**
 * The shared code, bound to one shell.
 *
 * @param {object} shell - what the entry imported: Clutter, Gio, GLib, Shell (the gi modules), Main
 *   (ui/main.js), `global`, shellVersion (misc/config.js's PACKAGE_VERSION), dir (the extension's folder, a
 *   Gio.File, where org.edgeswipe.Shell1.xml is), and optionally procRoot ('/proc') and log (console.log).
 * @returns {object} the classes and functions (EdgeSwipeShell is the extension's state)
 */
function edgeSwipeCore(shell) {
    const {Clutter, Gio, GLib, Shell, Main} = shell;
    const shellGlobal = shell.global;

    const API_VERSION = 1;
    const OBJECT_PATH = '/org/edgeswipe/Shell';
    const INTERFACE = 'org.edgeswipe.Shell1';
    const CLIENT_EXECUTABLE = 'edgeswipe-session';
    const ERROR = 'org.edgeswipe.Shell1.Error.';
    const ACCESS_DENIED = 'org.freedesktop.DBus.Error.AccessDenied';
    const INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs';
    // A run-out longer than this is no run-out: the duration is clamped, the end still happens.
    const MAX_RUN_OUT_MS = 5000;
    // How long a gesture that went back on its own (the client left, GNOME threw) takes: GNOME's own run-outs
    // take 100 to 400 ms (swipeTracker.js, MIN_ and MAX_ANIMATION_DURATION).
    const SETTLE_MS = 250;
    // A transition's record is kept this long after its run-out should have ended, so that a late update still
    // catches it; then it is forgotten.
    const RUN_OUT_GRACE_MS = 2000;
    // Refused callers remembered, so that each is judged (and logged) once.
    const MAX_JUDGED_CALLERS = 64;

    const say = shell.log || (message => console.log(message));
    const said = new Set();

    /**
     * Logs `message` once per `key` for the life of the extension: a refusal or a fault is worth one line in the
     * journal, not one per call.
     *
     * @param {string} key - what makes two messages the same
     * @param {string} message - the line
     */
    function sayOnce(key, message) {
        if (said.has(key))
            return;
        if (said.size > 256)
            said.clear();
        said.add(key);
        say(`EdgeSwipe: ${message}`);
    }

    /** A refusal: answered as the D-Bus error `name` with `message`. */
    class Refusal extends Error {
        constructor(name, message) {
            super(message);
            this.dbusName = name;
        }
    }

    const refuse = {
        notAllowedNow: m => new Refusal(`${ERROR}NotAllowedNow`, m),
        busy: m => new Refusal(`${ERROR}Busy`, m),
        noTarget: m => new Refusal(`${ERROR}NoTarget`, m),
        unknownTransition: m => new Refusal(`${ERROR}UnknownTransition`, m),
        interrupted: m => new Refusal(`${ERROR}Interrupted`, m),
        unsupported: m => new Refusal(`${ERROR}Unsupported`, m),
        failed: m => new Refusal(`${ERROR}Failed`, m),
        accessDenied: m => new Refusal(ACCESS_DENIED, m),
        invalidArgs: m => new Refusal(INVALID_ARGS, m),
    };

    /**
     * The action mode's name, for messages ("SYSTEM_MODAL").
     *
     * @param {number} mode - a Shell.ActionMode value
     * @returns {string} its name, or the number
     */
    function actionModeName(mode) {
        for (const [name, value] of Object.entries(Shell.ActionMode)) {
            if (value === mode && name !== 'ALL')
                return name;
        }
        return `${mode}`;
    }

    // -- Percent and GNOME's units -----------------------------------------------------------------------------

    /**
     * Where a gesture goes in GNOME's units: from the snap point GNOME would cancel to, one snap point `step`
     * away. GNOME's units are its consumers' own (a workspace's progress, which is not its index when the
     * workspaces are laid out vertically under a panel; the overview's states 0, 1, 2), so nothing assumes 0...1.
     *
     * @param {number[]} snapPoints - what the consumer passed to confirmSwipe (ascending)
     * @param {number} cancelProgress - where it would go back to
     * @param {number} step - +1 or -1
     * @returns {?{from: number, to: number}} the range, or null when there is no snap point that way
     */
    function snapRange(snapPoints, cancelProgress, step) {
        if (!Array.isArray(snapPoints) || snapPoints.length === 0 || !snapPoints.every(Number.isFinite) ||
            !Number.isFinite(cancelProgress))
            return null;
        let nearest = 0;
        snapPoints.forEach((point, i) => {
            if (Math.abs(point - cancelProgress) < Math.abs(snapPoints[nearest] - cancelProgress))
                nearest = i;
        });
        const target = nearest + step;
        if (target < 0 || target >= snapPoints.length)
            return null;
        return {from: snapPoints[nearest], to: snapPoints[target]};
    }

    /**
     * EdgeSwipe's percent in GNOME's units.
     *
     * @param {{from: number, to: number}} range - from snapRange
     * @param {number} percent - finite; clamped to 0...1
     * @returns {number} the progress to give GNOME
     */
    function progressAt(range, percent) {
        const p = Math.min(1, Math.max(0, percent));
        return range.from + (range.to - range.from) * p;
    }

    /**
     * What GNOME's consumers see of a tracker: they set `orientation` and call `confirmSwipe` from their begin
     * handler (swipeTracker.js, "USAGE"). GNOME's own SwipeTracker turns input into progress; here the progress
     * comes from EdgeSwipe.
     */
    class StandInTracker {
        constructor() {
            this.orientation = Clutter.Orientation.HORIZONTAL;
            this.confirmed = null;
        }

        confirmSwipe(distance, snapPoints, currentProgress, cancelProgress) {
            this.confirmed = {distance, snapPoints, currentProgress, cancelProgress};
        }
    }

    // -- GNOME's consumers -------------------------------------------------------------------------------------

    /**
     * A workspace switch, as GNOME's WorkspaceAnimationController (outside the overview) or the overview's
     * WorkspacesDisplay takes it: the same three calls its SwipeTracker makes.
     */
    class WorkspaceConsumer {
        constructor(target, where, allowedMode) {
            this.target = target;
            this.where = where;
            this.allowedMode = allowedMode;
        }

        get family() {
            return 'workspace';
        }

        get gnomeTracker() {
            return this.target._swipeTracker;
        }

        begin(tracker, monitor) {
            this.target._switchWorkspaceBegin(tracker, monitor);
        }

        update(tracker, progress) {
            this.target._switchWorkspaceUpdate(tracker, progress);
        }

        end(tracker, ms, progress) {
            this.target._switchWorkspaceEnd(tracker, ms, progress);
        }

        settle(tracker, ms, from) {
            this.end(tracker, ms, from);
        }

        /**
         * Why GNOME would not start its own gesture now (its tracker checks the same), or null.
         *
         * @returns {?string} the reason
         */
        gate() {
            if ((Main.actionMode & this.allowedMode) === 0)
                return `the shell left the ${this.where} (action mode ${actionModeName(Main.actionMode)})`;
            if (this.gnomeTracker && !this.gnomeTracker.enabled)
                return `GNOME's own ${this.where} workspace gesture is off now (another animation, or the overview)`;
            return null;
        }

        /**
         * Why a gesture that follows the finger cannot go on (GNOME's tracker interrupts its own here), or null.
         * Checked at every update, so it reads only plain JS state: GNOME turning its tracker off is seen at once
         * by watch(), and reading a GObject property at every update costs more than the rest of the update.
         *
         * @returns {?string} the reason
         */
        interruption() {
            if ((Main.actionMode & this.allowedMode) === 0)
                return `the shell left the ${this.where} (action mode ${actionModeName(Main.actionMode)})`;
            return null;
        }

        /**
         * Calls `interrupted(reason)` as soon as GNOME turns its own tracker off (an overview opening, a keyboard
         * workspace switch): GNOME's tracker interrupts its gesture then, and so does this one.
         *
         * @param {Function} interrupted - called with the reason
         * @returns {Function} disconnects
         */
        watch(interrupted) {
            const tracker = this.gnomeTracker;
            if (!tracker || typeof tracker.connect !== 'function')
                return () => {};
            const id = tracker.connect('notify::enabled', () => {
                if (!tracker.enabled)
                    interrupted(`GNOME turned its ${this.where} workspace gesture off`);
            });
            return () => tracker.disconnect(id);
        }
    }

    /** The overview's show and hide, as Main.overview takes them from its SwipeTracker. */
    class OverviewConsumer {
        get family() {
            return 'overview';
        }

        get gnomeTracker() {
            return Main.overview._swipeTracker;
        }

        begin(tracker) {
            Main.overview._gestureBegin(tracker);
        }

        update(tracker, progress) {
            Main.overview._gestureUpdate(tracker, progress);
        }

        end(tracker, ms, progress) {
            Main.overview._gestureEnd(tracker, ms, progress);
        }

        /**
         * Goes back, or leaves it to GNOME when GNOME is already animating the overview away. While a gesture
         * shows the overview, someone else's hide() (Super, Esc) only clears `_shown` (the animation in progress is
         * the gesture's), and GNOME throws on the next update (`Invalid overview shown transition`): the gesture
         * must then end at hidden. When a hide (Esc in a shown overview) already runs GNOME's own animation
         * (HIDING), ending the gesture would throw too: only the gesture flag is cleared.
         *
         * @param {StandInTracker} tracker - the gesture's
         * @param {number} ms - how long going back takes
         * @param {number} from - where the gesture began
         */
        settle(tracker, ms, from) {
            const state = Main.overview._shownState;
            if (state === 'SHOWING' || state === 'SHOWN') {
                this.end(tracker, ms, Main.overview._shown ? from : 0);
                return;
            }
            const adjustment = Main.overview._overview.controls._stateAdjustment;
            if (adjustment)
                adjustment.gestureInProgress = false;
        }

        gate() {
            const allowed = Shell.ActionMode.NORMAL | Shell.ActionMode.OVERVIEW;
            if ((Main.actionMode & allowed) === 0)
                return `the shell left the normal and overview modes (action mode ${actionModeName(Main.actionMode)})`;
            if (this.gnomeTracker && !this.gnomeTracker.enabled)
                return 'GNOME\'s own overview gesture is off now';
            return null;
        }

        // A gesture's first update shows the overview (`_shown`), so while it follows, `_shown` false means
        // someone else hid it.
        interruption() {
            const allowed = Shell.ActionMode.NORMAL | Shell.ActionMode.OVERVIEW;
            if ((Main.actionMode & allowed) === 0)
                return `the shell left the normal and overview modes (action mode ${actionModeName(Main.actionMode)})`;
            if (!Main.overview._shown)
                return 'something else hid the overview (Super, Esc)';
            return null;
        }

        watch(interrupted) {
            const id = Main.overview.connect('hiding', () => interrupted('the overview began to hide on its own'));
            return () => Main.overview.disconnect(id);
        }
    }

    /**
     * The private hooks, found when used (the overview's objects exist only once the shell has started).
     */
    const hooks = {
        /** @returns {?WorkspaceConsumer} where a workspace gesture goes now, or null with the reason thrown */
        workspaceConsumer() {
            const mode = Main.actionMode;
            if (mode === Shell.ActionMode.NORMAL) {
                const animation = Main.wm._workspaceAnimation;
                if (!animation || typeof animation._switchWorkspaceBegin !== 'function')
                    throw refuse.unsupported('this GNOME has no WorkspaceAnimationController._switchWorkspaceBegin');
                return new WorkspaceConsumer(animation, 'desktop', Shell.ActionMode.NORMAL);
            }
            if (mode === Shell.ActionMode.OVERVIEW) {
                const display = this.workspacesDisplay();
                if (!display || typeof display._switchWorkspaceBegin !== 'function')
                    throw refuse.unsupported('this GNOME has no overview WorkspacesDisplay._switchWorkspaceBegin');
                return new WorkspaceConsumer(display, 'overview', Shell.ActionMode.OVERVIEW);
            }
            throw refuse.notAllowedNow(
                `workspace gestures run only in the normal and overview modes, not in ${actionModeName(mode)} ` +
                '(a modal dialog, the lock screen, a menu)');
        },

        overviewConsumer() {
            const mode = Main.actionMode;
            if ((mode & (Shell.ActionMode.NORMAL | Shell.ActionMode.OVERVIEW)) === 0) {
                throw refuse.notAllowedNow(
                    `overview gestures run only in the normal and overview modes, not in ${actionModeName(mode)} ` +
                    '(a modal dialog, the lock screen, a menu)');
            }
            if (Main.overview.isDummy)
                throw refuse.notAllowedNow('this session mode has no overview');
            if (typeof Main.overview._gestureBegin !== 'function')
                throw refuse.unsupported('this GNOME has no Overview._gestureBegin');
            return new OverviewConsumer();
        },

        workspacesDisplay() {
            const overview = Main.overview._overview;
            return overview && overview.controls ? overview.controls._workspacesDisplay : null;
        },

        /**
         * GNOME's SwipeTrackers of a family: the horizontal ones (workspaces on the desktop and in the overview,
         * the app grid's pages) or the vertical one (the overview).
         *
         * @param {string} family - 'horizontal' or 'vertical'
         * @returns {object[]} the trackers found
         */
        trackers(family) {
            const found = [];
            const add = owner => {
                if (owner && owner._swipeTracker)
                    found.push(owner._swipeTracker);
            };
            if (family === 'horizontal') {
                add(Main.wm._workspaceAnimation);
                add(this.workspacesDisplay());
                const overview = Main.overview._overview;
                add(overview && overview.controls ? overview.controls._appDisplay : null);
            } else {
                add(Main.overview);
            }
            return found;
        },
    };

    // -- Live gestures -----------------------------------------------------------------------------------------

    const KINDS = {
        'workspace-next': {family: 'workspace', step: 1},
        'workspace-previous': {family: 'workspace', step: -1},
        'overview-show': {family: 'overview', step: 1},
        'overview-hide': {family: 'overview', step: -1},
    };

    /**
     * One of the daemon's transitions driving one of GNOME's gestures.
     *
     * States: `following` (updates move GNOME), `running-out` (EndGesture handed GNOME the decision and the
     * duration; an update or a Begin catches it), `settled` (it went back on its own; updates are ignored).
     */
    class LiveGesture {
        constructor(id, kind, consumer, monitor, onSettled) {
            this.id = id;
            this.kind = kind;
            this.consumer = consumer;
            this.monitor = monitor;
            this.onSettled = onSettled;
            this.state = 'new';
            this.range = null;
            this.tracker = null;
            this.unwatch = null;
            this.forgetAt = 0;
        }

        get family() {
            return KINDS[this.kind].family;
        }

        /** Begins GNOME's gesture: the consumer confirms and gives its snap points. */
        start() {
            this._beginOnGnome();
            const c = this.tracker.confirmed;
            const range = snapRange(c.snapPoints, c.cancelProgress, KINDS[this.kind].step);
            if (!range) {
                // The consumer has set up its animation (the workspace groups, the overview's gesture flag): put it
                // back at rest, the way that cannot throw (a hidden overview cannot be ended at hidden).
                this.consumer.settle(this.tracker, 0, c.cancelProgress);
                throw refuse.noTarget(this.family === 'workspace'
                    ? `there is no ${KINDS[this.kind].step > 0 ? 'next' : 'previous'} workspace`
                    : `the overview has no state ${KINDS[this.kind].step > 0 ? 'after' : 'before'} this one`);
            }
            this.range = range;
            this.state = 'following';
            // The overview shows itself on its first update (and throws if ended without one).
            this.consumer.update(this.tracker, range.from);
        }

        _beginOnGnome() {
            const why = this.consumer.gate();
            if (why)
                throw refuse.notAllowedNow(why);
            this.tracker = new StandInTracker();
            this.consumer.begin(this.tracker, this.monitor);
            if (!this.tracker.confirmed)
                throw refuse.notAllowedNow(`GNOME did not take the ${this.family} gesture on monitor ${this.monitor}`);
            if (this.unwatch)
                this.unwatch();
            this.unwatch = this.consumer.watch(reason => this.interrupt(reason));
        }

        /**
         * A touch caught the run-out: GNOME stops its animation where it is (its begin handler removes it) and
         * follows again. GNOME's progress at that instant is given back at once, which shows an overview that
         * was running out to hidden again.
         */
        catch() {
            this._beginOnGnome();
            this.state = 'following';
            this.consumer.update(this.tracker, this.tracker.confirmed.currentProgress);
        }

        update(percent) {
            if (this.state === 'settled')
                return;
            if (this.state === 'running-out')
                this.catch();
            const why = this.consumer.interruption();
            if (why) {
                this.interrupt(why);
                return;
            }
            this.consumer.update(this.tracker, progressAt(this.range, percent));
        }

        end(commit, ms) {
            if (this.state === 'settled')
                throw refuse.interrupted(`transition ${this.id} was interrupted by the shell and went back`);
            if (this.state === 'running-out')
                this.catch();
            const why = this.consumer.interruption();
            if (why) {
                this.interrupt(why);
                throw refuse.interrupted(`transition ${this.id} went back: ${why}`);
            }
            this.state = 'running-out';
            this.forgetAt = GLib.get_monotonic_time() + (ms + RUN_OUT_GRACE_MS) * 1000;
            this.consumer.end(this.tracker, ms, commit ? this.range.to : this.range.from);
        }

        /**
         * Goes back because the shell changed under the gesture (GNOME's tracker interrupts its own gesture at
         * once, with no animation).
         *
         * @param {string} reason - said to the client
         */
        interrupt(reason) {
            this.settle(0, reason);
        }

        /**
         * Goes back to where it began, if it is still following; once.
         *
         * @param {number} ms - how long going back takes
         * @param {string} reason - said to the client
         */
        settle(ms, reason) {
            if (this.unwatch) {
                this.unwatch();
                this.unwatch = null;
            }
            if (this.state !== 'following')
                return;
            this.state = 'settled';
            try {
                this.consumer.settle(this.tracker, ms, this.range.from);
            } catch (e) {
                sayOnce(`settle-${e.message}`, `transition ${this.id} (${this.kind}) could not go back: ${e.message}`);
            }
            this.onSettled(this, reason);
        }
    }

    /**
     * The daemon's transitions that drive GNOME now, by id: one follows the finger at a time, so that GNOME is
     * never driven twice.
     */
    class GestureBoard {
        constructor(onSettled) {
            this.gestures = new Map();
            this.onSettled = onSettled;
        }

        _forgetFinished() {
            const now = GLib.get_monotonic_time();
            for (const [id, g] of this.gestures) {
                if (g.state === 'settled' || (g.state === 'running-out' && now > g.forgetAt))
                    this.gestures.delete(id);
            }
        }

        get(id) {
            const g = this.gestures.get(id);
            if (!g)
                throw refuse.unknownTransition(`transition ${id} is not driving a gesture (never begun, refused, or long over)`);
            return g;
        }

        begin(id, kind, monitor) {
            this._forgetFinished();
            const existing = this.gestures.get(id);
            if (existing) {
                if (existing.state === 'running-out')
                    existing.catch();
                return;
            }
            const family = KINDS[kind].family;
            for (const g of this.gestures.values()) {
                if (g.state === 'following')
                    throw refuse.busy(`transition ${g.id} (${g.kind}) is following the finger`);
            }
            const consumer = family === 'workspace' ? hooks.workspaceConsumer() : hooks.overviewConsumer();
            const g = new LiveGesture(id, kind, consumer, monitor,
                (gesture, reason) => this.onSettled(gesture, reason));
            try {
                g.start();
            } catch (e) {
                if (g.unwatch)
                    g.unwatch();
                throw e;
            }
            // A new transition takes over a run-out of the same family: GNOME's begin stopped its animation.
            for (const [otherId, other] of this.gestures) {
                if (other.family === family)
                    this.gestures.delete(otherId);
            }
            this.gestures.set(id, g);
        }

        update(id, percent) {
            const g = this.gestures.get(id);
            if (g)
                g.update(percent);
        }

        end(id, commit, ms) {
            this.get(id).end(commit, ms);
        }

        /**
         * Every gesture still following goes back (the client left, the extension is disabled).
         *
         * @param {string} reason - said to the client, where there is one
         */
        settleAll(reason) {
            for (const g of this.gestures.values())
                g.settle(SETTLE_MS, reason);
            this.gestures.clear();
        }

        /**
         * A gesture whose handler threw goes back, and is forgotten.
         *
         * @param {number} id - the transition
         * @param {string} reason - what threw
         */
        fault(id, reason) {
            const g = this.gestures.get(id);
            if (g)
                g.settle(SETTLE_MS, reason);
            this.gestures.delete(id);
        }
    }

    // -- GNOME's own gestures, claimed -------------------------------------------------------------------------

    const CLAIMS = {
        'touchpad-horizontal': {family: 'horizontal', part: 'touchpad'},
        'touchpad-vertical': {family: 'vertical', part: 'touchpad'},
        'touchscreen-horizontal': {family: 'horizontal', part: 'touchscreen'},
        'touchscreen-vertical': {family: 'vertical', part: 'touchscreen'},
    };

    /**
     * The part of a SwipeTracker that a claim turns off: its three-finger touchpad swipe (`_touchpadGesture`, 43
     * and later) or its three-finger touchscreen swipe (`_touchGesture` up to 48; `_panGesture` from 49, when it
     * is a three-finger pan only: a tracker that also drags with one finger keeps it, or the drag would go too).
     *
     * @param {object} tracker - GNOME's SwipeTracker
     * @param {string} part - 'touchpad' or 'touchscreen'
     * @returns {?object} the gesture object (it has an `enabled` property), or null
     */
    function trackerPart(tracker, part) {
        if (part === 'touchpad')
            return tracker._touchpadGesture || null;
        if (tracker._touchGesture)
            return tracker._touchGesture;
        const pan = tracker._panGesture;
        if (pan && pan.min_n_points >= 3)
            return pan;
        return null;
    }

    /**
     * GNOME's own gestures that the client's rules drive, turned off while claimed. GNOME binds each part's
     * `enabled` to its tracker's (one way) and flips the tracker's as it goes (the overview, a keyboard switch),
     * so a held part is turned off again each time GNOME turns it on. Released, a part takes its tracker's state.
     */
    class GestureClaims {
        constructor() {
            this.names = [];
            this.held = [];
        }

        /** @returns {string[]} the claim names this GNOME has a part for */
        available() {
            return Object.keys(CLAIMS).filter(name => {
                const {family, part} = CLAIMS[name];
                return hooks.trackers(family).some(t => trackerPart(t, part));
            });
        }

        set(names) {
            for (const name of names) {
                if (!(name in CLAIMS))
                    throw refuse.invalidArgs(`'${name}' is not a gesture to claim; expected one of ${Object.keys(CLAIMS).join(', ')}`);
            }
            this.release();
            const claimed = [];
            for (const name of [...new Set(names)]) {
                const {family, part} = CLAIMS[name];
                let any = false;
                for (const tracker of hooks.trackers(family)) {
                    const gesture = trackerPart(tracker, part);
                    if (!gesture)
                        continue;
                    this._hold(tracker, gesture);
                    any = true;
                }
                if (any)
                    claimed.push(name);
            }
            this.names = claimed;
            return claimed;
        }

        _hold(tracker, gesture) {
            // A GNOME gesture in flight would never see its end once its part is off: interrupt it first, as
            // GNOME does when it turns a tracker off (SwipeTracker's `enabled` setter).
            if (tracker.enabled && tracker._state === 1) {
                tracker.enabled = false;
                tracker.enabled = true;
            }
            gesture.enabled = false;
            const id = gesture.connect('notify::enabled', () => {
                if (gesture.enabled)
                    gesture.enabled = false;
            });
            this.held.push({tracker, gesture, id});
        }

        release() {
            for (const {tracker, gesture, id} of this.held) {
                gesture.disconnect(id);
                gesture.enabled = tracker.enabled;
            }
            this.held = [];
            this.names = [];
        }
    }

    // -- Keys --------------------------------------------------------------------------------------------------

    // The keys a modifier is pressed with (xkbcommon's names: Shift_L, Control_L, Alt_L, Super_L,
    // ISO_Level3_Shift).
    const MODIFIER_KEYSYMS = {
        shift: 0xffe1,
        ctrl: 0xffe3,
        alt: 0xffe9,
        super: 0xffeb,
        altgr: 0xfe03,
    };
    // XKB keysyms are 29-bit (xkbcommon-keysyms.h: up to 0x1fffffff).
    const MAX_KEYSYM = 0x1fffffff;

    /**
     * A keyboard inside the shell, as GNOME's on-screen keyboard has one (keyboard.js, KeyboardController): its
     * keys go where a real keyboard's go, through the keymap the shell uses.
     */
    class VirtualKeys {
        constructor() {
            // Made at once, not at the first chord: a device the seat has just been given drops its first keys.
            const seat = Clutter.get_default_backend().get_default_seat();
            this.device = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        }

        chord(modifiers, keysym) {
            const allowed = Shell.ActionMode.NORMAL | Shell.ActionMode.OVERVIEW;
            if ((Main.actionMode & allowed) === 0) {
                throw refuse.notAllowedNow(`keys go only to the desktop and the overview, not to ${actionModeName(Main.actionMode)} ` +
                    '(a modal dialog, the lock screen)');
            }
            if (!Number.isInteger(keysym) || keysym <= 0 || keysym > MAX_KEYSYM)
                throw refuse.invalidArgs(`${keysym} is not an XKB keysym`);
            const held = [];
            for (const name of modifiers) {
                const sym = MODIFIER_KEYSYMS[name];
                if (sym === undefined) {
                    throw refuse.invalidArgs(`'${name}' is not a modifier this extension presses; expected one of ` +
                        `${Object.keys(MODIFIER_KEYSYMS).join(', ')}`);
                }
                if (!held.includes(sym))
                    held.push(sym);
            }
            const press = (sym, state) => this.device.notify_keyval(GLib.get_monotonic_time(), sym, state);
            held.forEach(sym => press(sym, Clutter.KeyState.PRESSED));
            press(keysym, Clutter.KeyState.PRESSED);
            press(keysym, Clutter.KeyState.RELEASED);
            held.slice().reverse().forEach(sym => press(sym, Clutter.KeyState.RELEASED));
        }

        destroy() {
            // Releases anything the device still holds now, not at the next garbage collection (as keyboard.js).
            if (this.device)
                this.device.run_dispose();
            this.device = null;
        }
    }

    // -- The focused app ---------------------------------------------------------------------------------------

    /**
     * The focused window's app id (Wayland's app_id, or X11's WM_CLASS: what sway reports, so `app =` rules read
     * the same everywhere) and GNOME's .desktop id.
     *
     * @returns {string[]} [appId, desktopId]
     */
    function focusedApp() {
        const win = shellGlobal.display.focus_window;
        if (!win)
            return ['', ''];
        const appId = win.get_wm_class() || '';
        const app = Shell.WindowTracker.get_default().get_window_app(win);
        let desktopId = app ? app.get_id() || '' : '';
        if (desktopId.endsWith('.desktop'))
            desktopId = desktopId.slice(0, -'.desktop'.length);
        else if (desktopId.startsWith('window:'))
            desktopId = '';
        return [appId, desktopId];
    }

    // -- Who may call ------------------------------------------------------------------------------------------

    /**
     * Judges a process from what /proc says of it: the same user as the shell, the executable `edgeswipe-session`
     * (an upgrade that replaced the file leaves " (deleted)" after the path), not in a Flatpak or Snap sandbox.
     *
     * @param {object} who - {uid, pid} from the bus's GetConnectionCredentials
     * @param {object} rules - {procRoot, ownUid, executable}
     * @returns {{allowed: boolean, reason: string, exe: string}} the verdict; reason says why not
     */
    function judgeProcess(who, rules) {
        const deny = (reason, exe = '') => ({allowed: false, reason, exe});
        if (!Number.isInteger(who.uid))
            return deny('the bus did not say which user it runs as');
        if (who.uid !== rules.ownUid)
            return deny(`it runs as uid ${who.uid}, the shell as uid ${rules.ownUid}`);
        if (!Number.isInteger(who.pid) || who.pid <= 0)
            return deny('the bus did not say which process it is');
        const base = `${rules.procRoot}/${who.pid}`;
        let exe;
        try {
            exe = GLib.file_read_link(`${base}/exe`);
        } catch (e) {
            return deny(`${base}/exe cannot be read: ${e.message}`);
        }
        const path = exe.endsWith(' (deleted)') ? exe.slice(0, -' (deleted)'.length) : exe;
        if (GLib.path_get_basename(path) !== rules.executable)
            return deny(`its executable is ${exe}, not ${rules.executable}`, exe);
        if (GLib.file_test(`${base}/root/.flatpak-info`, GLib.FileTest.EXISTS))
            return deny('it runs in a Flatpak sandbox', exe);
        let cgroup = '';
        try {
            const [, bytes] = GLib.file_get_contents(`${base}/cgroup`);
            cgroup = new TextDecoder().decode(bytes);
        } catch (e) {
            return deny(`${base}/cgroup cannot be read: ${e.message}`, exe);
        }
        if (/(^|[/:])snap\.[^/\s]+\.[^/\s]+/m.test(cgroup))
            return deny('it runs in a Snap sandbox', exe);
        return {allowed: true, reason: '', exe};
    }

    /**
     * The bus's word on a caller (GetConnectionCredentials), then judgeProcess; one verdict per unique name
     * (names are never reused on a bus).
     */
    class CallerJudge {
        constructor(connection, rules) {
            this.connection = connection;
            this.rules = rules;
            this.verdicts = new Map();
        }

        judge(sender) {
            const known = this.verdicts.get(sender);
            if (known)
                return known;
            const verdict = this._credentials(sender).then(who => {
                const v = judgeProcess(who, this.rules);
                return Object.assign({pid: who.pid}, v);
            }, e => ({allowed: false, reason: `the bus did not answer for it: ${e.message}`, exe: '', pid: 0}));
            if (this.verdicts.size >= MAX_JUDGED_CALLERS)
                this.verdicts.delete(this.verdicts.keys().next().value);
            this.verdicts.set(sender, verdict);
            return verdict;
        }

        _credentials(sender) {
            return new Promise((resolve, reject) => {
                this.connection.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                    'GetConnectionCredentials', new GLib.Variant('(s)', [sender]), new GLib.VariantType('(a{sv})'),
                    Gio.DBusCallFlags.NONE, 5000, null, (connection, result) => {
                        try {
                            const [dict] = connection.call_finish(result).recursiveUnpack();
                            resolve({uid: dict.UnixUserID, pid: dict.ProcessID});
                        } catch (e) {
                            reject(e);
                        }
                    });
            });
        }
    }

    // -- The D-Bus object --------------------------------------------------------------------------------------

    /**
     * The extension's state while enabled: the object /org/edgeswipe/Shell on the shell's own session-bus
     * connection, the registered client, its gestures, claims, keys and focus.
     */
    class EdgeSwipeShell {
        constructor(options = {}) {
            this.connection = options.connection || Gio.DBus.session;
            this.rules = {
                procRoot: options.procRoot || shell.procRoot || '/proc',
                ownUid: new Gio.Credentials().get_unix_user(),
                executable: CLIENT_EXECUTABLE,
            };
            this.client = null;
            this.clientWatch = 0;
            this.registrationId = 0;
            this.focusId = 0;
            this.lastFocus = ['', ''];
        }

        enable() {
            this.judge = new CallerJudge(this.connection, this.rules);
            this.board = new GestureBoard((gesture, reason) => this._settled(gesture, reason));
            this.claims = new GestureClaims();
            this.keys = new VirtualKeys();
            const [, xml] = shell.dir.get_child(`${INTERFACE}.xml`).load_contents(null);
            const info = Gio.DBusNodeInfo.new_for_xml(new TextDecoder().decode(xml)).lookup_interface(INTERFACE);
            this.registrationId = this.connection.register_object(OBJECT_PATH, info,
                (connection, sender, path, iface, method, params, invocation) =>
                    this.dispatch(sender, method, params, invocation),
                (connection, sender, path, iface, property) => this.property(sender, property),
                null);
            this.focusId = shellGlobal.display.connect('notify::focus-window', () => this._focusChanged());
            this.lastFocus = focusedApp();
            this.connection.emit_signal(null, OBJECT_PATH, INTERFACE, 'Ready', new GLib.Variant('(u)', [API_VERSION]));
        }

        disable() {
            this._dropClient('the extension is disabled');
            if (this.focusId)
                shellGlobal.display.disconnect(this.focusId);
            this.focusId = 0;
            if (this.registrationId)
                this.connection.unregister_object(this.registrationId);
            this.registrationId = 0;
            this.keys.destroy();
        }

        /**
         * Every method call comes through here, on the shell's main loop.
         *
         * @param {string} sender - the caller's unique name
         * @param {string} method - the member
         * @param {GLib.Variant} params - its arguments
         * @param {Gio.DBusMethodInvocation} invocation - to answer
         */
        dispatch(sender, method, params, invocation) {
            if (method === 'UpdateGesture' && sender === this.client) {
                // The one call that comes at the stream's rate: its two numbers read without unpacking the rest.
                this.update(params.get_child_value(0).get_uint64(), params.get_child_value(1).get_double(), invocation);
                return;
            }
            if (method === 'Register') {
                this._register(sender, params.deepUnpack()[0], invocation);
                return;
            }
            let reply = null;
            let transition = null;
            try {
                if (sender !== this.client) {
                    throw refuse.accessDenied(this.client
                        ? `${method}: ${sender} is not the registered client`
                        : `${method}: no client is registered; edgeswipe-session calls Register first`);
                }
                const args = params.deepUnpack();
                switch (method) {
                case 'Unregister':
                    this._dropClient('the client unregistered');
                    break;
                case 'BeginGesture':
                    transition = checkedId(args[0]);
                    this.board.begin(transition, checkedKind(args[1]), this._monitor(args[2]));
                    break;
                case 'EndGesture':
                    transition = checkedId(args[0]);
                    this.board.end(transition, !!args[1], Math.min(MAX_RUN_OUT_MS, Math.max(0, args[2])));
                    break;
                case 'SendChord':
                    this.keys.chord(args[0], args[1]);
                    break;
                case 'ClaimGestures':
                    reply = new GLib.Variant('(as)', [this.claims.set(args[0])]);
                    break;
                default:
                    throw refuse.invalidArgs(`${method} is not a method of ${INTERFACE}`);
                }
            } catch (e) {
                this._answerError(e, sender, method, transition, invocation);
                return;
            }
            invocation.return_value(reply);
        }

        /**
         * UpdateGesture from the client.
         *
         * @param {number} id - the transition
         * @param {number} percent - EdgeSwipe's percent
         * @param {Gio.DBusMethodInvocation} invocation - answered, though the client sends NO_REPLY_EXPECTED
         */
        update(id, percent, invocation) {
            let transition = null;
            try {
                transition = checkedId(id);
                if (!Number.isFinite(percent))
                    throw refuse.invalidArgs(`transition ${transition}: ${percent} is not a percent`);
                this.board.update(transition, percent);
            } catch (e) {
                this._answerError(e, this.client, 'UpdateGesture', transition, invocation);
                return;
            }
            invocation.return_value(null);
        }

        _answerError(e, sender, method, transition, invocation) {
            let refusal = e;
            if (!(e instanceof Refusal)) {
                // GNOME threw inside a private hook: that gesture goes back rather than stay frozen.
                sayOnce(`fault-${method}-${e.message}`, `${method} failed inside GNOME Shell: ${e.message}\n${e.stack}`);
                if (transition !== null)
                    this.board.fault(transition, `GNOME Shell threw: ${e.message}`);
                refusal = refuse.failed(`${method}: GNOME Shell threw (${e.message}); the gesture went back`);
            } else if (e.dbusName === ACCESS_DENIED) {
                sayOnce(`denied-${sender}`, `refused ${sender}: ${e.message}`);
            } else if (method === 'UpdateGesture') {
                // Nobody reads an update's answer (NO_REPLY_EXPECTED): the journal gets it once.
                sayOnce(`update-${e.dbusName}`, `an update was refused: ${e.message}`);
            }
            invocation.return_dbus_error(refusal.dbusName, refusal.message);
        }

        property(sender, name) {
            if (name === 'ApiVersion')
                return new GLib.Variant('u', API_VERSION);
            if (name === 'FocusedApp') {
                if (sender === this.client)
                    return new GLib.Variant('(ss)', focusedApp());
                sayOnce(`denied-focus-${sender}`, `refused FocusedApp to ${sender}: not the registered client`);
                return new GLib.Variant('(ss)', ['', '']);
            }
            return null;
        }

        _register(sender, clientApi, invocation) {
            this.judge.judge(sender).then(verdict => {
                if (!this.registrationId)
                    throw refuse.notAllowedNow('the extension is being disabled');
                if (!verdict.allowed) {
                    const who = verdict.pid ? `${sender} (pid ${verdict.pid})` : sender;
                    const message = `Register: ${who} is not this user's unsandboxed ${CLIENT_EXECUTABLE}: ${verdict.reason}`;
                    // Once per executable and reason, not once per connection.
                    sayOnce(`denied-${verdict.exe}-${verdict.reason}`, `refused ${message}`);
                    throw refuse.accessDenied(message);
                }
                if (this.client && this.client !== sender)
                    throw refuse.busy(`Register: another ${CLIENT_EXECUTABLE} (${this.client}) is the client`);
                if (!this.client) {
                    this.client = sender;
                    this.clientWatch = Gio.bus_watch_name_on_connection(this.connection, sender,
                        Gio.BusNameWatcherFlags.NONE, null, () => this._dropClient('the client left the bus'));
                    this.lastFocus = focusedApp();
                    say(`EdgeSwipe: ${sender} (pid ${verdict.pid}, ${verdict.exe}, API ${clientApi}) is the client`);
                }
                const capabilities = ['workspace', 'overview', 'keys', 'focused-app']
                    .concat(this.claims.available().map(name => `claim:${name}`));
                invocation.return_value(new GLib.Variant('(usas)', [API_VERSION, `${shell.shellVersion}`, capabilities]));
            }).catch(e => {
                const refusal = e instanceof Refusal ? e : refuse.failed(`Register: ${e.message}`);
                invocation.return_dbus_error(refusal.dbusName, refusal.message);
            });
        }

        /**
         * The client is gone (it left the bus, unregistered, or the extension is disabled): its gestures go back,
         * its claims are released.
         *
         * @param {string} reason - for the journal
         */
        _dropClient(reason) {
            if (this.clientWatch)
                Gio.bus_unwatch_name(this.clientWatch);
            this.clientWatch = 0;
            const had = this.client;
            this.client = null;
            this.board.settleAll(reason);
            this.claims.release();
            if (had)
                say(`EdgeSwipe: ${had} is no longer the client: ${reason}`);
        }

        _settled(gesture, reason) {
            if (this.client) {
                this.connection.emit_signal(this.client, OBJECT_PATH, INTERFACE, 'GestureSettled',
                    new GLib.Variant('(ts)', [gesture.id, reason]));
            }
        }

        _focusChanged() {
            const now = focusedApp();
            if (now[0] === this.lastFocus[0] && now[1] === this.lastFocus[1])
                return;
            this.lastFocus = now;
            if (this.client) {
                this.connection.emit_signal(this.client, OBJECT_PATH, INTERFACE, 'FocusedAppChanged',
                    new GLib.Variant('(ss)', now));
            }
        }

        _monitor(index) {
            const count = Main.layoutManager.monitors.length;
            return Number.isInteger(index) && index >= 0 && index < count ? index : Main.layoutManager.primaryIndex;
        }
    }

    /**
     * A transition id as a key: D-Bus's uint64 arrives as a number, exact up to 2^53.
     *
     * @param {number} id - as unpacked
     * @returns {number} the id
     */
    function checkedId(id) {
        if (!Number.isSafeInteger(id) || id < 0)
            throw refuse.invalidArgs(`${id} is not a transition id this extension can keep exactly (at most 2^53 - 1)`);
        return id;
    }

    function checkedKind(kind) {
        if (!(kind in KINDS))
            throw refuse.invalidArgs(`'${kind}' is not a gesture kind; expected one of ${Object.keys(KINDS).join(', ')}`);
        return kind;
    }

    return {
        API_VERSION, OBJECT_PATH, INTERFACE, CLIENT_EXECUTABLE,
        EdgeSwipeShell, GestureBoard, GestureClaims, LiveGesture, VirtualKeys, CallerJudge, Refusal,
        snapRange, progressAt, judgeProcess, trackerPart, hooks, KINDS, CLAIMS,
    };
}
