// edgeswipe.js: the EdgeSwipe stream in a web page (docs/PROTOCOL.md, "edgeswipe.js").
//
// Messages in, state out, and frames at any instant: `connect()` opens the bridge's WebSocket (and reopens it),
// `EdgeSwipeState` keeps containers, running transitions, devices, gestures and the lifecycle log, and
// `scenesAt()` turns a transition plus the time into per-scene frames, interpolating the run-out from its
// `animation` spec exactly as the Swift side does (`AnimationInfo.percent(atTimeUS:)`). No server ticks needed.

export const PROTOCOL_VERSION = 1;

// ---------------------------------------------------------------------------------------------------------------
// Curves: the same arithmetic, in the same order, as EdgeSwipeCore's CubicBezier and AnimationSpec (which
// EdgeSwipeProtocol's AnimationInfo evaluates), so that a page and the daemon agree to the last bits but for Math.exp's rounding.

function component(s, p1, p2) {
  const u = 1 - s;
  return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s;
}

function derivative(s, p1, p2) {
  const u = 1 - s;
  return 3 * u * u * p1 + 6 * u * s * (p2 - p1) + 3 * s * s * (1 - p2);
}

/** A CSS-style cubic-bezier timing function: progress (0...1) at time fraction t (x1 and x2 clamped to 0...1). */
export function cubicBezier(x1, y1, x2, y2) {
  x1 = Math.min(1, Math.max(0, x1));
  x2 = Math.min(1, Math.max(0, x2));
  function parameter(t) {
    let s = t;
    for (let i = 0; i < 8; i++) {
      const err = component(s, x1, x2) - t;
      if (Math.abs(err) < 1e-9) return s;
      const d = derivative(s, x1, x2);
      if (Math.abs(d) < 1e-9) break;
      s -= err / d;
    }
    let lo = 0, hi = 1;
    s = Math.min(1, Math.max(0, t));
    for (let i = 0; i < 60; i++) {
      const x = component(s, x1, x2);
      if (Math.abs(x - t) < 1e-10) break;
      if (x < t) lo = s; else hi = s;
      s = (lo + hi) / 2;
    }
    return s;
  }
  return (t) => (t <= 0 ? 0 : t >= 1 ? 1 : component(parameter(t), y1, y2));
}

/**
 * The percent of an `animation` spec at `timeUS` (the daemon's monotonic microseconds), clamped to 0...1 and
 * exactly `to_percent` from `end_time_us` on: a cubic Bézier over `duration_us`, or the critically damped spring
 * x(t) = to + (d0 + (v0 + w d0) t) e^(-w t).
 */
export function animationPercent(spec, timeUS) {
  if (timeUS >= spec.end_time_us || spec.duration_us <= 0) return spec.to_percent;
  const elapsed = (timeUS > spec.start_time_us ? timeUS - spec.start_time_us : 0) / 1000000;
  let value;
  if (spec.control_points) {
    const p = spec.control_points;
    value = spec.from_percent + (spec.to_percent - spec.from_percent) * cubicBezier(p.x1, p.y1, p.x2, p.y2)(elapsed / (spec.duration_us / 1000000));
  } else {
    const omega = spec.omega ?? 0;
    const d0 = spec.from_percent - spec.to_percent;
    value = spec.to_percent + (d0 + (spec.initial_velocity + omega * d0) * elapsed) * Math.exp(-omega * elapsed);
  }
  return Math.min(1, Math.max(0, value));
}

// ---------------------------------------------------------------------------------------------------------------
// The daemon's clock in the page.

/**
 * Maps the daemon's monotonic microseconds (`time_us`, an animation's `start_time_us`) to the page's clock
 * (`performance.now()`). A message cannot arrive before the instant it carries, so
 * `arrival - time_us` is the offset plus that message's delay; the smallest value seen is the best estimate of the
 * offset. The bridge's `welcome` carries its own reading of the daemon's clock (`now_us`, taken as it is sent),
 * which settles the estimate at once, even when the other messages of a catch-up are old.
 */
export class DaemonClock {
  constructor() {
    this.offsetUS = null;
  }
  observe(daemonUS, arrivalMs = performance.now()) {
    if (typeof daemonUS !== "number") return;
    const offset = arrivalMs * 1000 - daemonUS;
    if (this.offsetUS === null || offset < this.offsetUS) this.offsetUS = offset;
  }
  /** The daemon's monotonic time now (or at page time `ms`), in microseconds. */
  nowUS(ms = performance.now()) {
    return ms * 1000 - (this.offsetUS ?? ms * 1000);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Geometry.

const lerp = (a, b, f) => a + (b - a) * f;

function lerpScene(a, b, f) {
  return {
    scene: b.scene,
    frame: {
      x: lerp(a.frame.x, b.frame.x, f),
      y: lerp(a.frame.y, b.frame.y, f),
      width: lerp(a.frame.width, b.frame.width, f),
      height: lerp(a.frame.height, b.frame.height, f),
    },
    alpha: lerp(a.alpha, b.alpha, f),
    z_index: b.z_index,
    on_stage: b.on_stage,
  };
}

/**
 * The geometry of `transition` at percent `p`. Every animator the daemon has (slide, cover, fade, and the
 * dimming of a custom presentation) moves frames, alphas and the dimming linearly with the percent, so geometry
 * is affine in it: known at 0 (the `began` message) and at one other percent (the sample furthest from 0), it is
 * known everywhere. A page that joined mid-transition gets both from the bridge's catch-up.
 */
export function geometryAt(transition, p) {
  const g0 = transition.geometryAtZero;
  const ref = transition.reference;
  if (transition.terminal) return transition.geometry;
  if (!g0 || !ref || Math.abs(ref.percent) < 1e-6) return transition.geometry;
  const f = p / ref.percent;
  const out = { from: lerpScene(g0.from, ref.geometry.from, f), to: lerpScene(g0.to, ref.geometry.to, f) };
  if (ref.geometry.dimming_alpha !== undefined) {
    out.dimming_alpha = lerp(g0.dimming_alpha ?? 0, ref.geometry.dimming_alpha, f);
  }
  return out;
}

/** The transition's percent at the daemon's `timeUS`: the run-out's spec while it runs out, else the last message's. */
export function percentAt(transition, timeUS) {
  if (transition.animation && !transition.terminal) return animationPercent(transition.animation, timeUS);
  return transition.percent;
}

/**
 * Per-scene frames of `transition` at the daemon's `timeUS`: `{percent, phase, from, to, dimming_alpha}`, each
 * scene `{scene, frame: {x, y, width, height}, alpha, z_index, on_stage}` in the container's unit square.
 */
export function scenesAt(transition, timeUS) {
  const percent = percentAt(transition, timeUS);
  const g = geometryAt(transition, percent);
  return { percent, phase: transition.phase, from: g.from, to: g.to, dimming_alpha: g.dimming_alpha };
}

// ---------------------------------------------------------------------------------------------------------------
// State.

/**
 * Everything the stream says, kept current: `containers` (by name, as `hello`/`state` describe them),
 * `transitions` (running ones by id, and the last one of each container), `devices`, `gestures` (the latest per
 * device, with a blocked swipe's rubber band), `lifecycle` (the appearance callbacks in order) and `events` (a
 * readable log: lifecycle, presentation and interaction). The two logs keep the latest `logLimit` entries (a page
 * left open on a looping demo would otherwise grow without end); `lifecycleCount` and `eventsCount` count every
 * entry ever added.
 */
export class EdgeSwipeState {
  constructor({ logLimit = 500 } = {}) {
    this.clock = new DaemonClock();
    this.logLimit = logLimit;
    this.lifecycle = [];
    this.events = [];
    this.lifecycleCount = 0;
    this.eventsCount = 0;
    this.reset();
  }

  /** Appends to the lifecycle log or the readable one, dropping the oldest entries past `logLimit`. */
  log(kind, entry) {
    const list = kind === "lifecycle" ? this.lifecycle : this.events;
    list.push(entry);
    if (list.length > this.logLimit) list.splice(0, list.length - this.logLimit);
    if (kind === "lifecycle") this.lifecycleCount += 1; else this.eventsCount += 1;
  }

  reset() {
    this.hello = null;
    this.connected = false;
    this.control = false;
    this.containers = new Map();
    this.devices = new Map();
    this.transitions = new Map();
    this.lastTransition = new Map();
    this.gestures = new Map();
  }

  /** Takes one message (an object); returns its type. `arrivalMs` defaults to now. */
  apply(m, arrivalMs = performance.now()) {
    if (typeof m.time_us === "number") this.clock.observe(m.time_us, arrivalMs);
    switch (m.type) {
      case "bridge":
        if (typeof m.now_us === "number") this.clock.observe(m.now_us, arrivalMs);
        if (m.event === "welcome") this.control = !!m.control;
        if (m.event === "daemon-disconnected") this.connected = false;
        break;
      case "hello":
        this.reset();
        this.hello = m;
        this.connected = true;
        for (const d of m.devices) this.devices.set(d.id, d);
        this.setContainers(m.state.containers);
        break;
      case "state":
        this.setContainers(m.containers);
        break;
      case "device":
        if (m.change === "removed") this.devices.delete(m.id); else this.devices.set(m.id, m);
        break;
      case "transition":
        this.applyTransition(m);
        break;
      case "gesture":
        this.gestures.set(m.device, m);
        break;
      case "lifecycle":
        this.log("lifecycle", { transition: m.transition, container: m.container, scene: m.scene, event: m.event });
        this.log("events", `${m.scene} ${m.event}`);
        break;
      case "presentation":
        this.log("events", `${m.kind} ${m.phase}: ${m.presented} over ${m.presenting}${m.completed === undefined ? "" : m.completed ? " (completed)" : " (not completed)"}`);
        break;
      case "interaction":
        this.log("events", m.phase === "ended"
          ? `released #${m.transition} at ${Math.round(m.percent * 100)}%, toward ${m.cancelled ? "cancel" : "finish"}`
          : `caught #${m.transition} at ${Math.round(m.percent * 100)}%`);
        break;
      default:
        break;
    }
    return m.type;
  }

  setContainers(list) {
    this.containers = new Map(list.map((c) => [c.name, c]));
  }

  applyTransition(m) {
    let t = this.transitions.get(m.id);
    if (!t) {
      t = { id: m.id, container: m.container, operation: m.operation, from: m.from, to: m.to, direction: m.direction,
        interactive: m.interactive, edge: m.edge, geometryAtZero: null, reference: null, animation: null, terminal: false };
      this.transitions.set(m.id, t);
      this.lastTransition.set(m.container, t);
    }
    t.phase = m.phase;
    t.percent = m.percent;
    t.velocity = m.velocity;
    t.geometry = m.geometry;
    t.time_us = m.time_us;
    if (m.phase === "began" || (m.percent === 0 && !t.geometryAtZero)) t.geometryAtZero = m.geometry;
    if (!t.reference || Math.abs(m.percent) > Math.abs(t.reference.percent)) t.reference = { percent: m.percent, geometry: m.geometry };
    if (m.animation) t.animation = m.animation;
    else if (m.phase === "changed" || m.phase === "began") t.animation = null; // a re-grab: the finger has it again
    if (m.phase === "completed" || m.phase === "cancelled") {
      t.terminal = true;
      t.animation = null;
      this.transitions.delete(m.id);
    }
  }

  /** The running (or last) transition of a container, if any. */
  transitionOf(container) {
    const t = this.lastTransition.get(container);
    return t && !t.terminal ? t : null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Connection.

/**
 * Opens the bridge's WebSocket (`/stream` on the page's own origin, with the cookie the first load set) and keeps
 * it open: each message goes to `state.apply()` and then `onMessage(message)`; `onStatus(text)` hears about
 * (re)connections. Returns `{send(request), close()}`; `send` takes a daemon request object (`{op: "push", ...}`)
 * and works when the bridge runs with --control.
 */
export function connect({ state = new EdgeSwipeState(), url, onMessage = () => {}, onStatus = () => {} } = {}) {
  const target = url ?? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/stream`;
  let socket = null;
  let closed = false;
  let delay = 250;
  function open() {
    socket = new WebSocket(target);
    socket.onopen = () => { delay = 250; onStatus("connected"); };
    socket.onmessage = (event) => {
      // A frame carries one or more whole lines (a backlog is sent in few frames).
      const arrival = performance.now();
      for (const line of event.data.split("\n")) {
        let m;
        try { m = JSON.parse(line); } catch { continue; }
        state.apply(m, arrival);
        onMessage(m);
      }
    };
    socket.onclose = () => {
      if (closed) return;
      onStatus(`disconnected; retrying in ${delay} ms`);
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 5000);
    };
  }
  open();
  let nextID = 1;
  return {
    state,
    send(request) {
      const id = request.id ?? nextID++;
      socket?.send(JSON.stringify({ ...request, id }));
      return id;
    },
    close() { closed = true; socket?.close(); },
  };
}
