// The bridge's page: draws every container's scenes as cards from the stream, at the display's refresh rate.
import { connect, EdgeSwipeState, scenesAt, animationPercent } from "/edgeswipe.js";

const state = new EdgeSwipeState();
const stages = new Map(); // container name -> {root, stage, cards: Map(scene -> element), dimming, kind}
// For tests and for curious people: what was drawn last, per container.
const rendered = {};
window.edgeswipePage = { state, rendered, connection: null };

const $ = (id) => document.getElementById(id);

function color(scene) {
  let h = 0;
  for (const c of scene) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${h % 360} 55% 45%)`;
}

function stageFor(container) {
  let s = stages.get(container.name);
  if (s) return s;
  const root = document.createElement("div");
  root.className = "container";
  root.dataset.container = container.name;
  const title = document.createElement("h2");
  title.append(container.name, " ");
  const kind = document.createElement("small");
  kind.textContent = container.kind;
  title.append(kind);
  const stage = document.createElement("div");
  stage.className = "stage";
  stage.dataset.container = container.name;
  const dimming = document.createElement("div");
  dimming.className = "dimming";
  dimming.style.opacity = "0";
  stage.append(dimming);
  root.append(title, stage);
  $("stages").append(root);
  s = { root, stage, cards: new Map(), dimming };
  stages.set(container.name, s);
  return s;
}

function card(s, container, scene) {
  let el = s.cards.get(scene);
  if (!el) {
    el = document.createElement("div");
    el.className = "card";
    el.dataset.scene = scene;
    el.dataset.container = container;
    el.textContent = scene;
    el.style.background = color(scene);
    s.stage.append(el);
    s.cards.set(scene, el);
  }
  return el;
}

function place(el, g, offset = { x: 0, y: 0 }) {
  el.style.display = g.on_stage === false ? "none" : "flex";
  // Fractions of the stage, which takes the width the window gives it.
  el.style.left = `${(g.frame.x + offset.x) * 100}%`;
  el.style.top = `${(g.frame.y + offset.y) * 100}%`;
  el.style.width = `${g.frame.width * 100}%`;
  el.style.height = `${g.frame.height * 100}%`;
  el.style.opacity = String(g.alpha ?? 1);
  el.style.zIndex = String(2 * (g.z_index ?? 0) + 2);
}

const FULL = { x: 0, y: 0, width: 1, height: 1 };

/** The scenes of a container at rest, from its state: what is on stage, bottom first. */
function restingScenes(c) {
  switch (c.kind) {
    case "modal": {
      const out = [{ scene: c.base, frame: FULL, alpha: 1, z_index: 0, on_stage: true }];
      (c.presented ?? []).forEach((p, i) => out.push({ scene: p.scene, frame: p.frame ?? FULL, alpha: 1, z_index: i + 1, on_stage: true, style: p.style }));
      return out;
    }
    default:
      return [{ scene: c.visible, frame: FULL, alpha: 1, z_index: 0, on_stage: true }];
  }
}

/** A blocked swipe's rubber band, springing back from its animation spec: an offset in the edge's inward direction. */
function rubberBand(nowUS) {
  const offset = { x: 0, y: 0 };
  for (const g of state.gestures.values()) {
    if (!g.blocked) continue;
    const amount = g.animation ? animationPercent(g.animation, nowUS) : g.state === "began" || g.state === "changed" ? g.overscroll ?? 0 : 0;
    if (!amount) continue;
    if (g.edge === "left") offset.x += amount; else if (g.edge === "right") offset.x -= amount;
    else if (g.edge === "top") offset.y += amount; else offset.y -= amount;
  }
  return offset;
}

function render() {
  const nowUS = state.clock.nowUS();
  const band = rubberBand(nowUS);
  const bars = [];
  for (const c of state.containers.values()) {
    const s = stageFor(c);
    const t = state.transitionOf(c.name);
    const shown = new Map();
    let dimming = 0;
    if (t) {
      const f = scenesAt(t, nowUS);
      // The scenes under a modal transition stay where they rest.
      if (c.kind === "modal") for (const r of restingScenes(c)) if (r.scene !== f.from.scene && r.scene !== f.to.scene) shown.set(r.scene, { ...r, z_index: -1 });
      shown.set(f.from.scene, f.from);
      shown.set(f.to.scene, f.to);
      dimming = f.dimming_alpha ?? 0;
      rendered[c.name] = { transition: t.id, phase: t.phase, percent: f.percent, time_us: t.time_us, message_percent: t.percent, from: f.from, to: f.to };
      bars.push({ t, percent: f.percent });
    } else {
      const scenes = restingScenes(c);
      for (const r of scenes) shown.set(r.scene, r);
      const top = c.presented?.[c.presented.length - 1];
      if (top && top.style === "custom") dimming = state.hello?.config?.animator?.dimming_alpha ?? 0.5;
      rendered[c.name] = { transition: null, visible: c.visible, scenes };
    }
    for (const [scene, el] of s.cards) if (!shown.has(scene)) el.style.display = "none";
    for (const [scene, g] of shown) place(card(s, c.name, scene), g, t ? { x: 0, y: 0 } : band);
    s.dimming.style.opacity = String(dimming);
    s.dimming.style.zIndex = "3";
  }
  const list = $("transitions");
  if (bars.length === 0) list.textContent = "none running";
  else {
    list.replaceChildren(...bars.map(({ t, percent }) => {
      const div = document.createElement("div");
      div.dataset.transition = t.id;
      div.textContent = `#${t.id} ${t.operation} in ${t.container}: ${t.from} → ${t.to} · ${t.phase} · ${Math.round(percent * 100)}%`;
      const bar = document.createElement("div");
      bar.className = `bar ${t.phase}`;
      const fill = document.createElement("div");
      fill.style.width = `${Math.max(0, Math.min(1, percent)) * 100}%`;
      bar.append(fill);
      div.append(bar);
      return div;
    }));
  }
  requestAnimationFrame(render);
}

/**
 * Adds an entry to one of the side lists, which keep the state's latest `logLimit` entries, numbered from the
 * first ever (`start`). The list follows the newest entry only while its reader is at the bottom: scrolled back,
 * what they read stays where it is, also when the oldest entries go.
 */
function appendLog(id, text) {
  const list = $(id);
  const following = list.scrollHeight - list.scrollTop - list.clientHeight < 8;
  const li = document.createElement("li");
  li.textContent = text;
  list.append(li);
  let removed = 0;
  while (list.children.length > state.logLimit) {
    removed += list.firstElementChild.offsetHeight;
    list.firstElementChild.remove();
    list.start += 1;
  }
  if (following) list.scrollTop = list.scrollHeight;
  else if (removed > 0) list.scrollTop = Math.max(0, list.scrollTop - removed);
}

/** The control form's container menu, rebuilt only when the daemon's containers change: the user's choice stays. */
function updateContainerMenu() {
  const select = $("control-container");
  const names = [...state.containers.keys()];
  const shown = [...select.options].map((o) => o.value);
  if (names.length === shown.length && names.every((n, i) => n === shown[i])) return;
  const chosen = select.value;
  select.replaceChildren(...names.map((n) => new Option(n, n)));
  if (names.includes(chosen)) select.value = chosen;
}

function onMessage(m) {
  switch (m.type) {
    case "hello":
      $("status").textContent = `connected to ${m.server} (protocol ${m.protocol})`;
      for (const s of stages.values()) s.root.remove();
      stages.clear();
      break;
    case "bridge":
      if (m.event === "welcome") {
        $("controls").hidden = !m.control;
      } else if (m.event === "daemon-disconnected") {
        $("status").textContent = "the daemon went away; waiting for it to come back…";
      }
      break;
    case "lifecycle":
      appendLog("lifecycle", `#${m.transition} ${m.scene} ${m.event}`);
      break;
    case "presentation":
    case "interaction":
      appendLog("events", state.events[state.events.length - 1]);
      break;
    case "bridge-error":
      $("control-error").textContent = `${m.code}: ${m.message}`;
      break;
    case "bridge-reply":
      $("control-error").textContent = "";
      break;
    default:
      break;
  }
  if (m.type === "hello" || m.type === "state") updateContainerMenu();
}

const connection = connect({ state, onMessage, onStatus: (text) => { if (text !== "connected") $("status").textContent = text; } });
window.edgeswipePage.connection = connection;

$("control-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const op = $("control-op").value;
  const request = { op, container: $("control-container").value };
  const scene = $("control-scene").value.trim();
  if (op === "push" || op === "present") request.scene = scene;
  if (op === "select-tab") { if (/^\d+$/.test(scene)) request.index = Number(scene); else request.scene = scene; }
  connection.send(request);
});

requestAnimationFrame(render);
