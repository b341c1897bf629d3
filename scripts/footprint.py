#!/usr/bin/env python3
"""What the installed package costs (docs/PACKAGING.md, "What each byte is"; docs/PERFORMANCE.md, "Footprint"):
its size, each tool's start-up, and each long-running tool's memory at rest.

    scripts/footprint.py dist/edgeswipe_0.1.0_amd64.deb        # the package make deb built (extracted, not installed)
    scripts/footprint.py --runs 50 --json out.json PACKAGE.deb

- size: the package's Installed-Size and .deb, and its largest files (`dpkg -c`);
- start-up: hyperfine (Debian's `hyperfine`; installed when missing) runs each tool's `--help` (start, the Swift
  runtime's set-up, the command line parsed, help written) and `edgeswipectl status` against an idle daemon (a
  client's whole round trip), with no shell (-N); mean, median, min and the CPU time of one run;
- at rest: a daemon replaying nothing yet (`--replay` of the demo, held back by `--wait-for-clients`), with
  `edgeswipectl monitor`, `edgeswipe-web` and `edgeswipe-session` connected to it (no Wayland: the session's overlay
  libraries are loaded, its compositor connection is not made); VmRSS, its anonymous and file-backed parts, and PSS
  of each, once both readings half a second apart agree.

Everything runs from the extracted package in a temporary folder, on sockets there, and is stopped by its PID at the
end. The machine is shared: give the load average (printed) with the figures.
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "demo/edgeswipe-demo.evemu")


def need_hyperfine():
    if shutil.which("hyperfine"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("footprint: installing hyperfine", file=sys.stderr)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "hyperfine"], check=True,
                   stdout=subprocess.DEVNULL, env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def wait_for(what, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"footprint: timed out waiting for {what}")
        time.sleep(0.05)


def memory(pid):
    status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if ":" in l)
    kib = lambda k: int(status.get(k, "0 kB").split()[0])
    pss = 0
    for line in open(f"/proc/{pid}/smaps_rollup"):
        if line.startswith("Pss:"):
            pss = int(line.split()[1])
    return {"rss_kib": kib("VmRSS"), "anon_kib": kib("RssAnon"), "file_kib": kib("RssFile"), "pss_kib": pss}


def settled(pid, seconds=15):
    """The memory of a process at rest: two readings half a second apart that agree (or the last one, at the end)."""
    deadline = time.monotonic() + seconds
    last = memory(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = memory(pid)
        if now["rss_kib"] == last["rss_kib"]:
            return now
        last = now
    return last


def hyperfine(command, runs, work):
    out = os.path.join(work, "hyperfine.json")
    subprocess.run(["hyperfine", "-N", "--warmup", "3", "--runs", str(runs), "--export-json", out, "--", command],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = json.load(open(out))["results"][0]
    ms = lambda x: round(x * 1000, 2)
    return {"mean_ms": ms(r["mean"]), "median_ms": ms(r["median"]), "min_ms": ms(r["min"]),
            "user_ms": ms(r["user"]), "system_ms": ms(r["system"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("package", help="the .deb to measure")
    ap.add_argument("--runs", type=int, default=30, help="runs of each start-up (default 30)")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    need_hyperfine()
    work = tempfile.mkdtemp(prefix="esfoot-")
    procs = []
    try:
        root = os.path.join(work, "root")
        subprocess.run(["dpkg-deb", "-x", a.package, root], check=True)
        fields = subprocess.run(["dpkg-deb", "-f", a.package, "Installed-Size"], check=True, capture_output=True, text=True).stdout
        listing = subprocess.run(["dpkg-deb", "-c", a.package], check=True, capture_output=True, text=True).stdout
        files = sorted(((int(l.split()[2]), l.split()[5]) for l in listing.splitlines() if l.startswith("-")), reverse=True)
        bin_dir = os.path.join(root, "usr/bin")
        tools = sorted(os.listdir(bin_dir))
        report = {
            "load_average": open("/proc/loadavg").read().split()[:3],
            "size": {"installed_kib": int(fields.strip()), "deb_bytes": os.path.getsize(a.package),
                     "largest_files": [{"path": p[1:], "bytes": n} for n, p in files[:6]],
                     "links": {t: os.readlink(os.path.join(bin_dir, t)) for t in tools if os.path.islink(os.path.join(bin_dir, t))}},
        }
        tool = lambda name: os.path.join(bin_dir, name)

        # The idle daemon and its three kinds of client.
        sock = os.path.join(work, "d.sock")
        daemon_log = open(os.path.join(work, "daemon.log"), "w+")
        daemon = subprocess.Popen([tool("edgeswiped"), "--socket", sock, "--state-dir", work, "--replay", DEMO,
                                   "--wait-for-clients", "1000", "--log-level", "debug"],
                                  stdout=subprocess.DEVNULL, stderr=daemon_log)
        procs.append(daemon)
        wait_for("the daemon's socket", lambda: os.path.exists(sock))
        connected = lambda: open(daemon_log.name).read().count("client connected")

        startup = {}
        for t in tools:
            startup[f"{t} --help"] = hyperfine(f"{tool(t)} --help", a.runs, work)
        startup["edgeswipectl status"] = hyperfine(f"{tool('edgeswipectl')} status --socket {sock}", a.runs, work)
        report["startup"] = startup
        before = connected()

        monitor_out = open(os.path.join(work, "monitor.jsonl"), "w+")
        monitor = subprocess.Popen([tool("edgeswipectl"), "monitor", "--json", "--socket", sock], stdout=monitor_out, stderr=subprocess.DEVNULL)
        procs.append(monitor)
        web_out = open(os.path.join(work, "web.out"), "w+")
        web = subprocess.Popen([tool("edgeswipe-web"), "--socket", sock, "--listen", "127.0.0.1:0"], stdout=web_out, stderr=subprocess.DEVNULL)
        procs.append(web)
        home = os.path.join(work, "home")
        os.makedirs(home)
        env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": work}
        session = subprocess.Popen([tool("edgeswipe-session"), "--socket", sock], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(session)
        wait_for("the monitor's hello", lambda: '"type":"hello"' in open(monitor_out.name).read())
        wait_for("the web bridge's URL", lambda: "http://" in open(web_out.name).read())
        wait_for("three clients connected", lambda: connected() >= before + 3)
        report["at_rest"] = {name: settled(p.pid) for name, p in
                             (("edgeswiped", daemon), ("edgeswipectl monitor", monitor), ("edgeswipe-web", web), ("edgeswipe-session", session))}
        for name, p in (("edgeswipectl monitor", monitor), ("edgeswipe-web", web), ("edgeswipe-session", session)):
            if p.poll() is not None:
                sys.exit(f"footprint: {name} exited ({p.returncode}) before it was measured")
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(work, ignore_errors=True)

    text = json.dumps(report, indent=2)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
