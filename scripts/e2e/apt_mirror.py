#!/usr/bin/env python3
"""The Debian mirror, and the proxy to reach it, that this machine's own apt uses: scripts/e2e-qemu.sh hands them to
debootstrap, so the harness names no mirror host of its own and works unchanged behind a local mirror or an apt
proxy.

    apt_mirror.py [--suite bookworm] [--mirror URI]

prints shell assignments for `eval`:

    MIRROR=...           the archive root to debootstrap from (--mirror, i.e. E2E_MIRROR, wins)
    MIRROR_FROM=...      where it came from: FILE:LINE of the apt source, or "E2E_MIRROR"
    MIRROR_KEYRING=...   the source's Signed-By keyring file, if it names one (debootstrap --keyring)
    MIRROR_TRUSTED=...   1 if apt trusts the source without a signature ([trusted=yes]; debootstrap --no-check-gpg)
    MIRROR_PROXY_VAR=... http_proxy or https_proxy (the variable wget, debootstrap's downloader, reads), or empty
    MIRROR_PROXY=...     the proxy apt would use for that host (Acquire::http(s)::Proxy[::host],
                         Proxy-Auto-Detect), empty for none or DIRECT; unset when the environment already sets it
    MIRROR_NOTE=...      a remark worth printing (e.g. the source lists another release than --suite)

It exits 1 with a message on stderr when apt has no usable Debian source. Where apt looks is asked of apt itself
(`apt-config`: Dir::Etc::sourcelist and Dir::Etc::sourceparts, and APT_CONFIG is honoured), so a test can point
it at sample files (scripts/e2e/test_apt_mirror.py).

Sources: the one-line format (`deb [opts] URI suite comp...`, in sources.list and sources.list.d/*.list) and the
deb822 format (sources.list.d/*.sources: Types, URIs, Suites, Components, Enabled, Signed-By, Trusted), read in
apt's order: sources.list, then sources.list.d in name order, files with other endings ignored as apt ignores
them. The first enabled `deb` source that lists the suite wins. Failing that, a source whose downloaded Release
file (Dir::State::lists) says `Origin: Debian` with a plain release name (no -updates, -security, ...) is taken:
a Debian mirror carries every release.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import urllib.parse

# debootstrap (wget) can fetch from these; apt's own transports (mirror+, tor+, cdrom:) it cannot.
DEBOOTSTRAP_SCHEMES = ("http", "https", "ftp", "file")
# apt reads only files whose names consist of these characters (apt-pkg/contrib/fileutl.cc, GetListOfFilesInDir).
APT_FILE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class Source:
    """One `deb` line, or one URI of a deb822 stanza."""

    def __init__(self, origin, types, uri, suites, components, options):
        self.origin = origin            # "FILE:LINE"
        self.types = types              # ["deb", "deb-src"]
        self.uri = uri
        self.suites = suites
        self.components = components
        self.options = options          # lower-case keys: "signed-by", "trusted", "enabled", "arch", ...

    def __repr__(self):
        return f"Source({self.origin}, {self.types}, {self.uri}, {self.suites}, {self.components}, {self.options})"

    @property
    def enabled(self):
        return self.options.get("enabled", "yes").lower() not in ("no", "false", "0")

    @property
    def trusted(self):
        return self.options.get("trusted", "no").lower() in ("yes", "true", "1")

    @property
    def keyring(self):
        """The Signed-By keyring file, if the option names files (not an inline key or fingerprints)."""
        value = self.options.get("signed-by", "").strip()
        if not value or "\n" in value or "BEGIN PGP" in value:
            return None
        for path in re.split(r"[\s,]+", value):
            if path.startswith("/") and os.path.isfile(path):
                return path
        return None


def parse_one_line(text, name):
    """Sources in the one-line format (`deb [ key=value ... ] URI suite [component ...]`)."""
    sources = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        options = {}
        m = re.match(r"^(\S+)\s+\[([^\]]*)\]\s*(.*)$", line)
        if m:
            kind, option_text, rest = m.groups()
            for item in option_text.split():
                key, _, value = item.partition("=")
                # `arch+=`, `arch-=` change a default; for a mirror only the key matters.
                options[key.rstrip("+-").lower()] = value
        else:
            kind, _, rest = line.partition(" ")
        fields = rest.split()
        if len(fields) < 2:
            raise SyntaxError(f"{name}:{number}: a source needs a URI and a suite: {raw.strip()!r}")
        sources.append(Source(f"{name}:{number}", [kind], fields[0], [fields[1]], fields[2:], options))
    return sources


def parse_deb822(text, name):
    """Sources in the deb822 format: stanzas of `Field: value` lines, separated by blank lines."""
    sources = []
    stanza, start, field = {}, None, None

    def finish():
        if not stanza:
            return
        origin = f"{name}:{start}"
        types = stanza.get("types", "").split()
        uris = stanza.get("uris", "").split()
        suites = stanza.get("suites", "").split()
        if not types or not uris or not suites:
            raise SyntaxError(f"{origin}: a stanza needs Types, URIs and Suites")
        options = {k: v for k, v in stanza.items() if k not in ("types", "uris", "suites", "components")}
        for uri in uris:
            sources.append(Source(origin, types, uri, suites, stanza.get("components", "").split(), options))

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            continue  # a comment, even inside a stanza
        if not line.strip():
            finish()
            stanza, start, field = {}, None, None
            continue
        if line[0] in " \t":
            if field is None:
                raise SyntaxError(f"{name}:{number}: a continuation line before any field")
            # A lone "." stands for an empty line (e.g. inside an inline Signed-By key).
            value = line.strip()
            stanza[field] += "\n" + ("" if value == "." else value)
            continue
        key, colon, value = line.partition(":")
        if not colon:
            raise SyntaxError(f"{name}:{number}: not a 'Field: value' line: {line.strip()!r}")
        if start is None:
            start = number
        field = key.strip().lower()
        stanza[field] = value.strip()
    finish()
    return sources


def apt_config():
    """apt's configuration as a dict of lower-case keys (`apt-config dump`, which honours APT_CONFIG)."""
    try:
        out = subprocess.run(
            ["apt-config", "dump", "--no-empty", "--format", "%f=%v%n"],
            check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise SystemExit(f"apt_mirror: cannot read apt's configuration (apt-config dump): {error}")
    config = {}
    for line in out.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            config.setdefault(key.lower(), value)
    return config


# apt's defaults for the paths read here (apt-pkg/init.cc); `apt-config dump` normally lists them anyway.
APT_PATH_DEFAULTS = {
    "dir": "/", "dir::etc": "etc/apt/", "dir::etc::sourcelist": "sources.list",
    "dir::etc::sourceparts": "sources.list.d", "dir::state": "var/lib/apt/", "dir::state::lists": "lists/",
}


def apt_path(config, key):
    """A Dir:: path the way apt resolves it: a relative value hangs off its parent (Dir::Etc off Dir, ...)."""
    key = key.lower()
    value = config.get(key) or APT_PATH_DEFAULTS[key]
    if value.startswith("/") or key == "dir":
        return value
    return os.path.join(apt_path(config, key.rsplit("::", 1)[0]), value)


def source_files(config):
    """The files apt reads sources from, in its order."""
    sourcelist = apt_path(config, "Dir::Etc::sourcelist")
    sourceparts = apt_path(config, "Dir::Etc::sourceparts")
    files = []
    if os.path.isfile(sourcelist):
        files.append(sourcelist)
    if os.path.isdir(sourceparts):
        for name in sorted(os.listdir(sourceparts)):
            path = os.path.join(sourceparts, name)
            if APT_FILE_NAME.match(name) and name.endswith((".list", ".sources")) and os.path.isfile(path):
                files.append(path)
    return files


def read_sources(config):
    sources = []
    for path in source_files(config):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        sources += parse_deb822(text, path) if path.endswith(".sources") else parse_one_line(text, path)
    return sources


def release_origin(config, uri, suite):
    """`Origin:` of the Release file apt downloaded for URI and suite, if it has one."""
    lists = apt_path(config, "Dir::State::lists")
    parsed = urllib.parse.urlsplit(uri)
    # apt's URItoFileName: the URI without scheme and credentials, '/' turned into '_'.
    host = parsed.hostname or ""
    if parsed.port:
        host += f":{parsed.port}"
    stem = (host + parsed.path).rstrip("/").replace("/", "_") + f"_dists_{suite}_"
    for name in ("InRelease", "Release"):
        path = os.path.join(lists, stem + name)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                # The fields come first (after the PGP armour header in InRelease), the file lists after.
                for _, line in zip(range(50), f):
                    if line.startswith("Origin:"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            continue
    return None


def choose(sources, suite, config):
    """The source to debootstrap SUITE from, and a note; or raise LookupError saying what was found."""
    usable = [s for s in sources if s.enabled and "deb" in s.types
              and urllib.parse.urlsplit(s.uri).scheme in DEBOOTSTRAP_SCHEMES]
    for s in usable:
        if suite in s.suites:
            return s, None
    for s in usable:
        for other in s.suites:
            if re.fullmatch(r"[a-z]+", other) and release_origin(config, s.uri, other) == "Debian":
                return s, f"apt lists {other}, not {suite}, at {s.uri} ({s.origin}); a Debian mirror carries both"
    seen = [f"{s.origin}: {' '.join(s.types)} {s.uri} {' '.join(s.suites)}"
            + ("" if s.enabled else " (disabled)") for s in sources]
    raise LookupError(
        f"apt has no enabled 'deb' source for {suite} that debootstrap can use (http, https, ftp or file), nor a "
        "Debian mirror of another release; set E2E_MIRROR to a Debian mirror's archive root. apt's sources: "
        + ("; ".join(seen) if seen else "none"))


def proxy_for(config, uri, environ):
    """(variable, proxy): the variable debootstrap's wget reads for URI's scheme, and apt's proxy for its host.

    `proxy` is None when the environment already sets the variable (it wins for apt and wget alike), "" for no
    proxy (none configured, or DIRECT)."""
    parsed = urllib.parse.urlsplit(uri)
    scheme = parsed.scheme
    if scheme not in ("http", "https"):
        return "", ""
    variable = f"{scheme}_proxy"
    if environ.get(variable) or environ.get(variable.upper()):
        return variable, None
    host = (parsed.hostname or "").lower()
    # apt's https method falls back to the http settings.
    schemes = [scheme] if scheme == "http" else ["https", "http"]
    value = None
    for s in schemes:
        value = config.get(f"acquire::{s}::proxy::{host}") or config.get(f"acquire::{s}::proxy")
        if value:
            break
    if not value:
        for s in schemes:
            detect = config.get(f"acquire::{s}::proxy-auto-detect") or config.get(f"acquire::{s}::proxyautodetect")
            if detect:
                try:
                    value = subprocess.run([detect, uri], capture_output=True, text=True, timeout=30).stdout.strip()
                except (OSError, subprocess.SubprocessError):
                    value = ""
                break
    if not value or value.upper() == "DIRECT" or value.lower() == "false":
        return variable, ""
    return variable, value


def main(argv=None, environ=None):
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="bookworm")
    parser.add_argument("--mirror", default="", help="use this archive root (E2E_MIRROR); only find its proxy")
    args = parser.parse_args(argv)
    config = apt_config()
    out = {"MIRROR_KEYRING": "", "MIRROR_TRUSTED": "", "MIRROR_NOTE": ""}
    if args.mirror:
        out["MIRROR"], out["MIRROR_FROM"] = args.mirror.rstrip("/"), "E2E_MIRROR"
    else:
        try:
            source, note = choose(read_sources(config), args.suite, config)
        except (LookupError, SyntaxError) as error:
            print(f"apt_mirror: {error}", file=sys.stderr)
            return 1
        out["MIRROR"], out["MIRROR_FROM"] = source.uri.rstrip("/"), source.origin
        out["MIRROR_KEYRING"] = source.keyring or ""
        out["MIRROR_TRUSTED"] = "1" if source.trusted else ""
        out["MIRROR_NOTE"] = note or ""
    variable, proxy = proxy_for(config, out["MIRROR"], environ)
    out["MIRROR_PROXY_VAR"] = variable
    lines = [f"{k}={shlex.quote(v)}" for k, v in out.items()]
    if proxy is not None:
        lines.append(f"MIRROR_PROXY={shlex.quote(proxy)}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
