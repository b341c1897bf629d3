#!/usr/bin/python3
"""The web page in a real browser: Debian's chromium, headless, driven by Selenium through Debian's chromedriver.

A daemon replays the demo, held until two clients are connected: the bridge, and this script's own connection
to the daemon's socket (the stream's reference), made once the page is up, so both see everything from the
start. Checks, printing one line per failure and exiting 1 if any:
- edgeswipe.js evaluates animation specs as the Swift side does (cases and Swift's values from --curves);
- mid-transition, each card's computed layout is where the stream's geometry puts it, to 1.5 px;
- the page's lifecycle log equals the stream's;
- after a completed pop (sent from the page, through a --control bridge) the right card is on stage.
With --screenshot, saves a PNG of the page mid-transition.
"""
import argparse, json, os, socket, subprocess, sys, threading, time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def wait(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise TimeoutError(what)


class Monitor(threading.Thread):
    """The reference: every line the daemon sends to a client connected to its socket."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.messages = []
        self.lock = threading.Lock()

    def run(self):
        buf = b""
        while True:
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                with self.lock:
                    self.messages.append(json.loads(line))

    def snapshot(self):
        with self.lock:
            return list(self.messages)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--edgeswiped", required=True)
    p.add_argument("--edgeswipe-web", required=True)
    p.add_argument("--demo", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--curves", required=True)
    p.add_argument("--screenshot")
    p.add_argument("--layout-shots", help="a folder for the page at each window size the layout is checked at")
    p.add_argument("--speed", default="0.5")
    a = p.parse_args()
    sock = os.path.join(a.workdir, "b.sock")
    started = time.monotonic()
    daemon = subprocess.Popen([a.edgeswiped, "--socket", sock, "--replay", a.demo, "--wait-for-clients", "2", "--speed", a.speed],
                              stdout=open(os.path.join(a.workdir, "daemon.log"), "w"), stderr=subprocess.STDOUT)
    bridge = None
    driver = None
    try:
        wait(lambda: os.path.exists(sock), 30, "the daemon's socket")
        bridge = subprocess.Popen([a.edgeswipe_web, "--socket", sock, "--listen", "127.0.0.1:0", "--control"],
                                  stdout=subprocess.PIPE, stderr=open(os.path.join(a.workdir, "web.log"), "w"), text=True)
        url = bridge.stdout.readline().strip()
        if not url.startswith("http://"):
            raise RuntimeError("edgeswipe-web printed no URL")
        options = Options()
        options.binary_location = "/usr/bin/chromium"
        for flag in ["--headless=new", "--disable-gpu", "--window-size=1200,900", "--force-device-scale-factor=1"]:
            options.add_argument(flag)
        if os.geteuid() == 0:
            options.add_argument("--no-sandbox")
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(20)
        driver.get(url)
        if "token=" in driver.current_url:
            fail(f"the token stayed in the address bar: {driver.current_url}")
        wait(lambda: driver.execute_script("return !!(window.edgeswipePage && window.edgeswipePage.state.hello)"), 30, "the page's hello")
        browser_ready = time.monotonic() - started

        # The layout uses the window (issue 37: at 1280 x 657 the third stage was cut, at 1920 wide two thirds were
        # empty): at each size every stage is whole in view, and the stages reach the side panels.
        wait(lambda: driver.execute_script("return document.querySelectorAll('.stage').length") == 3, 10, "the three stages")
        for width, height in ((1280, 657), (1920, 1080), (1200, 900)):
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            time.sleep(0.1)  # a frame to lay out
            layout = driver.execute_script("""
                const r = (el) => { const b = el.getBoundingClientRect(); return {left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width}; };
                return {inner: [innerWidth, innerHeight], stages: [...document.querySelectorAll('.stage')].map(r),
                        aside: r(document.querySelector('aside'))};""")
            stages = layout["stages"]
            cut = [st for st in stages if st["bottom"] > layout["inner"][1] + 0.5 or st["right"] > layout["inner"][0] + 0.5]
            if cut:
                fail(f"at {width} x {height} a stage is cut by the window: {cut} (the window is {layout['inner']})")
            empty = layout["aside"]["left"] - max(st["right"] for st in stages)
            if empty > 40:
                fail(f"at {width} x {height} {empty:.0f} px are left empty between the stages and the side panels")
            if a.layout_shots:
                driver.save_screenshot(os.path.join(a.layout_shots, f"page-{width}x{height}.png"))
            print(f"layout {width} x {height}: stages {stages[0]['width']:.0f} px wide, {len({st['top'] for st in stages})} row(s)", flush=True)
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # The same specs, evaluated by edgeswipe.js in the browser and by AnimationInfo in Swift.
        cases = json.load(open(a.curves))
        values = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/edgeswipe.js').then(m => done(arguments[0].map(c => m.animationPercent(c.spec, c.time_us))));", cases)
        worst = max((abs(v - c["expected"]) for v, c in zip(values, cases)), default=0.0)
        if worst > 1e-12:
            fail(f"edgeswipe.js differs from Swift's AnimationInfo by up to {worst}")
        print(f"curves: {len(cases)} cases, largest difference {worst:.2e}", flush=True)

        # The page says what it shows in one line, and links to what each part shows and where the docs are.
        about = driver.execute_script("const a = document.querySelector('#about a'); return a ? [document.getElementById('about').textContent, a.getAttribute('href')] : null")
        if not about or "The daemon's containers, live" not in about[0] or about[1] != "/about":
            fail(f"the page's explanatory line and docs link: {about}")
        about_status = driver.execute_async_script("const done = arguments[arguments.length - 1]; fetch('/about').then(r => done(r.status), () => done(0));")
        if about_status != 200:
            fail(f"/about answered {about_status}")
        # The side lists keep the latest 10 here (500 by default), in short boxes, so that the replay trims and
        # scrolls them; the control menu's choice must survive every state message.
        driver.execute_script("""
            window.edgeswipePage.state.logLimit = 10;
            for (const id of ['lifecycle', 'events']) document.getElementById(id).style.maxHeight = '48px';
            const menu = document.getElementById('control-container');
            menu.value = 'overlay';
            menu.dispatchEvent(new Event('change'));""")

        monitor = Monitor(sock)
        monitor.start()  # the second client: the replay starts now
        scrolled_back = False

        checked = 0
        shot = False
        def settled():
            ms = monitor.snapshot()
            began = {m["id"] for m in ms if m.get("type") == "transition" and m.get("phase") == "began"}
            ended = {m["id"] for m in ms if m.get("type") == "transition" and m.get("phase") in ("completed", "cancelled")}
            return len(began) == 6 and began == ended
        deadline = time.monotonic() + 120
        while not settled() and time.monotonic() < deadline:
            if not scrolled_back and driver.execute_script("return window.edgeswipePage.state.lifecycleCount") >= 6:
                # A reader scrolls the lifecycle list back: it must stay there as entries come.
                driver.execute_script("document.getElementById('lifecycle').scrollTop = 0")
                scrolled_back = True
            probe = driver.execute_script("""
                const out = [];
                for (const [name, r] of Object.entries(window.edgeswipePage.rendered)) {
                  if (!r.transition || r.phase !== 'changed') continue;
                  const stageElement = document.querySelector(`.stage[data-container="${name}"]`);
                  const stage = stageElement.getBoundingClientRect();
                  const rect = (scene) => {
                    const el = document.querySelector(`.card[data-container="${name}"][data-scene="${scene}"]`);
                    if (!el || getComputedStyle(el).display === 'none') return null;
                    const b = el.getBoundingClientRect();
                    return {x: b.left - stage.left - 1, y: b.top - stage.top - 1, width: b.width, height: b.height};
                  };
                  out.push({container: name, transition: r.transition, time_us: r.time_us, percent: r.percent,
                            stageW: stageElement.clientWidth, stageH: stageElement.clientHeight,
                            message_percent: r.message_percent, from: r.from, to: r.to,
                            fromRect: rect(r.from.scene), toRect: rect(r.to.scene)});
                }
                return out;""")
            for r in probe:
                if not (0.05 < r["percent"] < 0.95):
                    continue
                # The message the page drew: the stream's own transition message with that id and time.
                ref = [m for m in monitor.snapshot() if m.get("type") == "transition" and m["id"] == r["transition"] and m["time_us"] == r["time_us"]]
                if not ref:
                    continue
                g = ref[-1]["geometry"]
                for side, rect in (("from", r["fromRect"]), ("to", r["toRect"])):
                    f = g[side]["frame"]
                    sw, sh = r["stageW"], r["stageH"]
                    want = {"x": f["x"] * sw, "y": f["y"] * sh, "width": f["width"] * sw, "height": f["height"] * sh}
                    if rect is None:
                        fail(f"#{r['transition']} {side} card {g[side]['scene']} is not drawn")
                        continue
                    off = max(abs(rect[k] - want[k]) for k in want)
                    if off > 1.5:
                        fail(f"#{r['transition']} at {r['percent']:.3f}: {side} card {g[side]['scene']} at {rect}, the stream says {want}")
                checked += 1
                if a.screenshot and not shot and 0.3 < r["percent"] < 0.7:
                    driver.save_screenshot(a.screenshot)
                    shot = True
            time.sleep(0.01)
        if not settled():
            fail("the replay did not finish within 120 s")
        if checked < 3:
            fail(f"only {checked} mid-transition frames were compared (the replay is too fast for this machine?)")
        print(f"mid-transition frames compared: {checked}", flush=True)

        stream_log = [[m["transition"], m["container"], m["scene"], m["event"]] for m in monitor.snapshot() if m.get("type") == "lifecycle"]
        wait(lambda: driver.execute_script("return window.edgeswipePage.state.lifecycleCount") >= len(stream_log), 10, "the page's lifecycle log")
        page_log = driver.execute_script("return window.edgeswipePage.state.lifecycle.map(e => [e.transition, e.container, e.scene, e.event])")
        if page_log != stream_log[-10:]:
            fail(f"the page's lifecycle log ({len(page_log)} entries) differs from the stream's last 10 (of {len(stream_log)})")
        print(f"lifecycle entries: {len(stream_log)}", flush=True)
        lists = driver.execute_script("""
            const l = document.getElementById('lifecycle'), e = document.getElementById('events');
            const first = l.firstElementChild.getBoundingClientRect(), box = l.getBoundingClientRect();
            return {count: l.children.length, start: l.start, total: window.edgeswipePage.state.lifecycleCount,
                    backAt: l.scrollTop, atBottom: l.scrollHeight - l.scrollTop - l.clientHeight < 8,
                    eventsAtBottom: e.scrollHeight - e.scrollTop - e.clientHeight < 8,
                    markers: getComputedStyle(l).listStylePosition, markerInBox: first.left >= box.left,
                    menu: document.getElementById('control-container').value};""")
        if lists["count"] != 10 or lists["start"] != lists["total"] - 9:
            fail(f"the lifecycle list keeps the latest 10, numbered from the first ever: {lists}")
        if lists["atBottom"] or not lists["eventsAtBottom"]:
            fail(f"a list scrolled back stays put, one at the bottom follows: {lists}")
        if lists["markers"] != "inside" or not lists["markerInBox"]:
            fail(f"the lists' numbers are drawn inside their box: {lists}")
        if lists["menu"] != "overlay":
            fail(f"the control menu lost the user's choice: {lists['menu']}")

        # The replay's daemon exits at the end of the recording; another one takes its socket. The bridge
        # reconnects, and the page resumes from the new daemon's hello.
        wait(lambda: daemon.poll() is not None, 30, "the replay's daemon to exit")
        wait(lambda: driver.execute_script("return !window.edgeswipePage.state.connected"), 10, "the page to hear the daemon went away")
        daemon = subprocess.Popen([a.edgeswiped, "--socket", sock, "--replay", a.demo, "--wait-for-clients", "99"],
                                  stdout=open(os.path.join(a.workdir, "daemon2.log"), "w"), stderr=subprocess.STDOUT)
        wait(lambda: driver.execute_script("return window.edgeswipePage.state.connected"), 30, "the page to resume from the new hello")
        restored = driver.execute_script("return window.edgeswipePage.state.containers.get('shell').visible")
        if restored != "home":
            fail(f"after the restart the page shows shell={restored}, not the new daemon's home")

        # A push then a completed pop, sent from the page: afterwards the root card is on stage, alone.
        driver.execute_script("window.edgeswipePage.connection.send({op: 'push', container: 'app', scene: 'details'})")
        wait(lambda: driver.execute_script("const c = window.edgeswipePage.state.containers.get('app'); return c && c.visible === 'details' && !window.edgeswipePage.state.transitionOf('app')"), 20, "the push")
        driver.execute_script("window.edgeswipePage.connection.send({op: 'pop', container: 'app'})")
        wait(lambda: driver.execute_script("const c = window.edgeswipePage.state.containers.get('app'); return c && c.visible === 'home' && !window.edgeswipePage.state.transitionOf('app')"), 20, "the pop")
        time.sleep(0.1)  # one animation frame after the state arrived (rAF is at most 1/60 s)
        cards = driver.execute_script("""
            const stageElement = document.querySelector('.stage[data-container="app"]');
            const stage = stageElement.getBoundingClientRect();
            return [...document.querySelectorAll('.card[data-container="app"]')].map(el => {
              const b = el.getBoundingClientRect();
              return {scene: el.dataset.scene, shown: getComputedStyle(el).display !== 'none', x: b.left - stage.left - 1, y: b.top - stage.top - 1, width: b.width, stageW: stageElement.clientWidth};
            });""")
        shown = [c for c in cards if c["shown"]]
        if [c["scene"] for c in shown] != ["home"] or abs(shown[0]["x"]) > 1 or abs(shown[0]["width"] - shown[0]["stageW"]) > 1:
            fail(f"after the pop the app stage shows {shown}, not home alone at full size")
        pops = driver.execute_script("return window.edgeswipePage.state.lifecycle.filter(e => e.container === 'app').map(e => e.scene + ' ' + e.event)")
        if pops[-4:] != ["home will-appear", "details will-disappear", "home did-appear", "details did-disappear"] and sorted(pops[-4:]) != sorted(["home will-appear", "details will-disappear", "home did-appear", "details did-disappear"]):
            fail(f"the pop's appearance callbacks on the page: {pops[-4:]}")
        print(f"browser ready after {browser_ready:.1f} s; total {time.monotonic() - started:.1f} s", flush=True)
    finally:
        if driver:
            driver.quit()
        for proc in (bridge, daemon):
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    sys.exit(1 if failures else 0)


main()
