// TEST ONLY (Tests/edgeswipedTests/GnomeShellExtensionTests.swift; never installed by the package): what the
// tests must see of GNOME Shell and what they must make happen in it, over an object of its own on the shell's
// session-bus connection, so that no test needs unsafe mode (org.gnome.Shell.Eval) and none turns it on.
//
//   State() -> JSON          the workspaces and the switch in progress, the overview, the action mode, GNOME's own
//                            gesture trackers (enabled, touchpad and touchscreen parts), the focused window, the pid
//   SetAnimations(on) -> on  software rendering inhibits GNOME's animations; the tests lift that (St.Settings)
//   Screenshot(path) -> ms   a PNG of the stage, taken inside the shell (Shell.Screenshot)
//   Act(action, arg) -> JSON show-overview, hide-overview, activate-workspace N, open-modal, close-modal,
//                            focus TITLE, move TITLE:N, clear-notifications
//   TouchSwipe(fingers, dx, dy, steps, step_ms) -> JSON
//                            a swipe on a virtual touchscreen: GNOME's own three-finger gestures see it
//   Measure(what) -> JSON    'begin' starts counting the stage's frames and timing the EdgeSwipe extension's
//                            handlers; 'end' answers both
'use strict';

/* exported init */

const {Clutter, Gio, GLib, Shell, St} = imports.gi;
const Main = imports.ui.main;
const ModalDialog = imports.ui.modalDialog;

const EDGESWIPE_UUID = 'edgeswipe@edgeswipe.invalid';
const XML = `<node><interface name="org.edgeswipe.TestObserver">
  <method name="State"><arg type="s" direction="out"/></method>
  <method name="SetAnimations"><arg type="b" direction="in"/><arg type="b" direction="out"/></method>
  <method name="Screenshot"><arg type="s" direction="in"/><arg type="d" direction="out"/></method>
  <method name="Act"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="s" direction="out"/></method>
  <method name="TouchSwipe">
    <arg type="u" direction="in"/><arg type="d" direction="in"/><arg type="d" direction="in"/>
    <arg type="u" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="out"/>
  </method>
  <method name="Measure"><arg type="s" direction="in"/><arg type="s" direction="out"/></method>
</interface></node>`;

function trackerState(owner) {
    const t = owner ? owner._swipeTracker : null;
    if (!t)
        return null;
    const part = p => p ? p.enabled : null;
    return {enabled: t.enabled, touchpad: part(t._touchpadGesture), touchscreen: part(t._touchGesture)};
}

function state() {
    const wm = global.workspace_manager;
    const animation = Main.wm._workspaceAnimation;
    const switchData = animation._switchData;
    const controls = Main.overview._overview.controls;
    const focus = global.display.focus_window;
    return {
        pid: new Gio.Credentials().get_unix_pid(),
        active: wm.get_active_workspace_index(),
        workspaces: wm.n_workspaces,
        switching: switchData !== null,
        switch_progress: switchData && switchData.baseMonitorGroup ? switchData.baseMonitorGroup.progress : null,
        switch_gesture_ended: switchData ? switchData.gestureActivated : null,
        overview: {
            visible: Main.overview.visible,
            shown: Main.overview._shown,
            shown_state: Main.overview._shownState,
            animating: Main.overview.animationInProgress,
            controls_state: controls._stateAdjustment.value,
            gesture_in_progress: controls._stateAdjustment.gestureInProgress,
            workspace_scroll: controls._workspaceAdjustment.value,
        },
        action_mode: Main.actionMode,
        animations: St.Settings.get().enable_animations,
        trackers: {
            workspaces: trackerState(animation),
            overview_workspaces: trackerState(controls._workspacesDisplay),
            app_grid: trackerState(controls._appDisplay),
            overview: trackerState(Main.overview),
        },
        focus: focus ? {title: focus.get_title(), wm_class: focus.get_wm_class()} : null,
        windows: global.get_window_actors().map(a => a.meta_window)
            .map(w => ({title: w.get_title(), workspace: w.get_workspace() ? w.get_workspace().index() : -1})),
    };
}

function findWindow(title) {
    const w = global.get_window_actors().map(a => a.meta_window).find(m => m.get_title() === title);
    if (!w)
        throw new Error(`no window titled ${title}`);
    return w;
}

class Observer {
    enable() {
        this.dialog = null;
        this.touch = null;
        this.frames = null;
        this.timing = null;
        const info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0];
        this.id = Gio.DBus.session.register_object('/org/edgeswipe/TestObserver', info,
            (conn, sender, path, iface, method, params, invocation) => this.call(method, params, invocation),
            null, null);
        log('[edgeswipe-observer] ready');
    }

    disable() {
        Gio.DBus.session.unregister_object(this.id);
        this.measureEnd();
        if (this.dialog)
            this.dialog.close();
        if (this.touch)
            this.touch.run_dispose();
    }

    call(method, params, invocation) {
        const args = params.deepUnpack();
        const answer = (sig, value) => invocation.return_value(new GLib.Variant(sig, [value]));
        const fail = e => invocation.return_dbus_error('org.edgeswipe.TestObserver.Error', `${e.message}\n${e.stack}`);
        try {
            switch (method) {
            case 'State':
                answer('(s)', JSON.stringify(state()));
                break;
            case 'SetAnimations': {
                const settings = St.Settings.get();
                if (args[0] && !settings.enable_animations)
                    settings.uninhibit_animations();
                else if (!args[0] && settings.enable_animations)
                    settings.inhibit_animations();
                answer('(b)', settings.enable_animations);
                break;
            }
            case 'Screenshot':
                this.screenshot(args[0]).then(ms => answer('(d)', ms)).catch(fail);
                break;
            case 'Act':
                answer('(s)', JSON.stringify(this.act(args[0], args[1]) || null));
                break;
            case 'TouchSwipe':
                this.touchSwipe(...args).then(r => answer('(s)', JSON.stringify(r))).catch(fail);
                break;
            case 'Measure':
                answer('(s)', JSON.stringify(args[0] === 'begin' ? this.measureBegin() : this.measureEnd()));
                break;
            default:
                throw new Error(`no method ${method}`);
            }
        } catch (e) {
            fail(e);
        }
    }

    async screenshot(path) {
        const file = Gio.File.new_for_path(path);
        const stream = file.replace(null, false, Gio.FileCreateFlags.NONE, null);
        const t0 = GLib.get_monotonic_time();
        // ui/screenshot.js promisifies Shell.Screenshot.screenshot in 43.
        await new Shell.Screenshot().screenshot(false, stream);
        stream.close(null);
        return (GLib.get_monotonic_time() - t0) / 1000;
    }

    act(action, arg) {
        switch (action) {
        case 'show-overview':
            Main.overview.show();
            return null;
        case 'hide-overview':
            Main.overview.hide();
            return null;
        case 'activate-workspace':
            global.workspace_manager.get_workspace_by_index(Number(arg)).activate(global.get_current_time());
            return null;
        case 'open-modal':
            this.dialog = new ModalDialog.ModalDialog();
            this.dialog.open();
            return null;
        case 'close-modal':
            if (this.dialog)
                this.dialog.close();
            this.dialog = null;
            return null;
        case 'focus':
            // As a click in the overview would: the window's workspace too, with a current timestamp.
            Main.activateWindow(findWindow(arg));
            return null;
        case 'move': {
            const [title, index] = arg.split(':');
            findWindow(title).change_workspace_by_index(Number(index), false);
            return null;
        }
        case 'clear-notifications':
            Main.messageTray.getSources().forEach(s => s.destroy());
            return null;
        default:
            throw new Error(`no action ${action}`);
        }
    }

    // Three (or more) fingers on a virtual touchscreen, moved together by (dx, dy) pixels in `steps` steps from the
    // middle of the screen. The answer has the workspace switch's progress after each step.
    touchSwipe(fingers, dx, dy, steps, stepMs) {
        if (!this.touch) {
            const seat = Clutter.get_default_backend().get_default_seat();
            this.touch = seat.create_virtual_device(Clutter.InputDeviceType.TOUCHSCREEN_DEVICE);
        }
        const device = this.touch;
        const x0 = global.screen_width / 2 - dx / 2;
        const y0 = global.screen_height / 2 - dy / 2;
        const at = (i, s) => [x0 + i * 40 + dx * s / steps, y0 + i * 30 + dy * s / steps];
        const samples = [];
        return new Promise(resolve => {
            let step = 0;
            GLib.timeout_add(GLib.PRIORITY_DEFAULT, stepMs, () => {
                const now = GLib.get_monotonic_time();
                for (let i = 0; i < fingers; i++) {
                    const [x, y] = at(i, step);
                    if (step === 0)
                        device.notify_touch_down(now, i, x, y);
                    else if (step <= steps)
                        device.notify_touch_motion(now, i, x, y);
                    else
                        device.notify_touch_up(now, i);
                }
                if (step > 0 && step <= steps) {
                    const s = state();
                    samples.push({switching: s.switching, progress: s.switch_progress, overview: s.overview.controls_state});
                }
                step++;
                if (step <= steps + 1)
                    return GLib.SOURCE_CONTINUE;
                resolve({samples});
                return GLib.SOURCE_REMOVE;
            });
        });
    }

    measureBegin() {
        this.measureEnd();
        const frames = {count: 0, first: 0, last: 0};
        frames.id = global.stage.connect('after-paint', () => {
            const now = GLib.get_monotonic_time();
            if (frames.count === 0)
                frames.first = now;
            frames.last = now;
            frames.count++;
        });
        this.frames = frames;
        // The EdgeSwipe extension's handlers, timed where its D-Bus calls arrive (EdgeSwipeShell.dispatch), and
        // within them GNOME's own part: the workspace switch's update (WorkspaceAnimationController).
        const extension = Main.extensionManager.lookup(EDGESWIPE_UUID);
        const service = extension && extension.stateObj ? extension.stateObj.service : null;
        const animation = Main.wm._workspaceAnimation;
        const times = {};
        const timed = (name, fn) => function (...args) {
            const t0 = GLib.get_monotonic_time();
            const result = fn.apply(this, args);
            (times[name] = times[name] || []).push(GLib.get_monotonic_time() - t0);
            return result;
        };
        const restore = [];
        if (service) {
            const dispatch = service.dispatch;
            service.dispatch = function (sender, method, ...rest) {
                return timed(method, dispatch).call(this, sender, method, ...rest);
            };
            restore.push(() => delete service.dispatch);
        }
        const update = animation._switchWorkspaceUpdate;
        animation._switchWorkspaceUpdate = timed('gnome:_switchWorkspaceUpdate', update);
        restore.push(() => delete animation._switchWorkspaceUpdate);
        this.timing = {restore, times};
        return {frames: true, timing: !!service};
    }

    measureEnd() {
        const out = {};
        if (this.frames) {
            global.stage.disconnect(this.frames.id);
            const f = this.frames;
            out.frames = f.count;
            out.frame_seconds = (f.last - f.first) / 1e6;
            this.frames = null;
        }
        if (this.timing) {
            // The wrappers are own properties over the prototypes' methods: deleting them restores GNOME's and ours.
            this.timing.restore.forEach(undo => undo());
            out.handler_us = {};
            for (const [method, list] of Object.entries(this.timing.times)) {
                const sorted = list.slice().sort((a, b) => a - b);
                const at = q => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
                out.handler_us[method] = {
                    calls: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1],
                    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
                };
            }
            this.timing = null;
        }
        return out;
    }
}

/**
 * @returns {Observer} the extension's state
 */
function init() {
    return new Observer();
}
