#!/usr/bin/env python3
"""Tests for apt_mirror.py: sample apt configurations (one-line and deb822 sources, proxies, local mirrors) in a
private directory that apt itself is pointed at through APT_CONFIG, so nothing of this machine's apt leaks in.
Where apt can list its sources (`apt-get indextargets`), what apt_mirror.py reads is checked against apt's own
reading of the same files. scripts/test runs it; by hand: python3 scripts/e2e/test_apt_mirror.py -v
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import apt_mirror  # noqa: E402

# Host names of the reserved .example domain (RFC 2606): no real mirror is named here.
DEBIAN_DEFAULT_DEB822 = """\
Types: deb
# a comment inside a stanza does not end it
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: {keyring}

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: {keyring}
"""


class AptSandbox:
    """A private apt configuration: etc/apt with sources, var/lib/apt/lists, and an APT_CONFIG file."""

    def __init__(self, conf=""):
        self.root = tempfile.mkdtemp(prefix="apt-mirror-test-")
        for d in ("etc/apt/sources.list.d", "etc/apt/apt.conf.d", "var/lib/apt/lists", "var/cache/apt"):
            os.makedirs(os.path.join(self.root, d))
        self.keyring = self.path("usr/share/keyrings/test-archive-keyring.gpg")
        os.makedirs(os.path.dirname(self.keyring))
        open(self.keyring, "wb").close()
        self.config = self.path("apt.conf")
        with open(self.config, "w") as f:
            f.write(textwrap.dedent(f"""\
                Dir::Etc "{self.root}/etc/apt/";
                Dir::Etc::parts "apt.conf.d/";
                Dir::State "{self.root}/var/lib/apt/";
                Dir::Cache "{self.root}/var/cache/apt/";
                """) + conf)

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, text):
        with open(self.path(rel), "w") as f:
            f.write(text.replace("{keyring}", self.keyring))

    def run(self, *args, environ=None):
        """apt_mirror.py's output as a dict (and its exit status and stderr)."""
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.update(environ or {})
        env["APT_CONFIG"] = self.config
        p = subprocess.run([sys.executable, os.path.join(HERE, "apt_mirror.py"), *args],
                           capture_output=True, text=True, env=env)
        values = {}
        for line in p.stdout.splitlines():
            key, _, value = line.partition("=")
            values[key] = shlex.split(value)[0] if value else ""
        return p.returncode, values, p.stderr

    def apt_sources(self):
        """(URI, suite) of every `deb` index target as apt itself reads these files, or None without apt."""
        if not shutil.which("apt-get"):
            return None
        p = subprocess.run(
            ["apt-get", "indextargets", "--no-release-info", "--format", "$(REPO_URI) $(RELEASE) $(TARGET_OF)"],
            capture_output=True, text=True, env={**os.environ, "APT_CONFIG": self.config})
        if p.returncode != 0:
            return None
        return {(normal(u), s) for u, s, t in (line.split() for line in p.stdout.splitlines() if line.strip()) if t == "deb"}

    def ours(self):
        old = os.environ.get("APT_CONFIG")
        os.environ["APT_CONFIG"] = self.config
        try:
            config = apt_mirror.apt_config()
            return {(normal(s.uri), suite) for s in apt_mirror.read_sources(config)
                    if s.enabled and "deb" in s.types for suite in s.suites}
        finally:
            if old is None:
                del os.environ["APT_CONFIG"]
            else:
                os.environ["APT_CONFIG"] = old

    def close(self):
        shutil.rmtree(self.root)


def normal(uri):
    """apt writes file:///x as file:/x and adds a trailing slash."""
    uri = uri.rstrip("/")
    return "file:" + uri[len("file://"):] if uri.startswith("file://") else uri


class MirrorFromSources(unittest.TestCase):
    def setUp(self):
        self.apt = AptSandbox()

    def tearDown(self):
        self.apt.close()

    def agree_with_apt(self):
        theirs = self.apt.apt_sources()
        if theirs is not None:
            self.assertEqual(self.apt.ours(), theirs, "apt_mirror.py reads the sources as apt does")

    def test_deb822_as_debian_installs_it(self):
        self.apt.write("etc/apt/sources.list.d/debian.sources", DEBIAN_DEFAULT_DEB822)
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "http://mirror.example/debian")
        self.assertEqual(out["MIRROR_FROM"], self.apt.path("etc/apt/sources.list.d/debian.sources") + ":1")
        self.assertEqual(out["MIRROR_KEYRING"], self.apt.keyring)
        self.assertEqual(out["MIRROR_TRUSTED"], "")
        self.assertEqual(out["MIRROR_PROXY"], "")
        self.agree_with_apt()

    def test_deb822_disabled_source_only_several_uris_and_inline_key(self):
        self.apt.write("etc/apt/sources.list.d/a.sources", textwrap.dedent("""\
            # First a disabled stanza and a source-only one: neither is a mirror to use.
            Enabled: no
            Types: deb
            URIs: http://disabled.example/debian
            Suites: bookworm
            Components: main

            Types: deb-src
            URIs: http://sources-only.example/debian
            Suites: bookworm
            Components: main

            types: deb deb-src
            uris: https://first.example/debian/ http://second.example/debian
            suites: bookworm
            components: main contrib
            signed-by:
             -----BEGIN PGP PUBLIC KEY BLOCK-----
             .
             mQINBGQ=
             -----END PGP PUBLIC KEY BLOCK-----
            """))
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "https://first.example/debian")
        self.assertTrue(out["MIRROR_FROM"].endswith("a.sources:13"), out["MIRROR_FROM"])
        self.assertEqual(out["MIRROR_KEYRING"], "", "an inline key is no keyring file")
        self.assertEqual(out["MIRROR_PROXY_VAR"], "https_proxy")
        self.agree_with_apt()

    def test_one_line_format_with_options_and_comments(self):
        self.apt.write("etc/apt/sources.list", textwrap.dedent("""\
            # deb http://commented.example/debian bookworm main
            deb-src http://mirror.example/debian bookworm main
            deb [ arch=amd64,i386 signed-by={keyring} ] http://mirror.example/debian bookworm-updates main
            deb [arch=amd64 signed-by={keyring}] http://mirror.example/debian bookworm main non-free-firmware  # main
            deb http://security.example/debian-security bookworm-security main
            """))
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "http://mirror.example/debian")
        self.assertEqual(out["MIRROR_FROM"], self.apt.path("etc/apt/sources.list") + ":4")
        self.assertEqual(out["MIRROR_KEYRING"], self.apt.keyring)
        self.agree_with_apt()

    def test_order_sources_list_first_then_parts_by_name_ignoring_other_files(self):
        self.apt.write("etc/apt/sources.list.d/b.list", "deb http://b.example/debian bookworm main\n")
        self.apt.write("etc/apt/sources.list.d/a.sources",
                       "Types: deb\nURIs: http://a.example/debian\nSuites: bookworm\nComponents: main\n")
        self.apt.write("etc/apt/sources.list.d/0.list.disabled", "deb http://disabled.example/debian bookworm main\n")
        self.apt.write("etc/apt/sources.list.d/0.sources.save",
                       "Types: deb\nURIs: http://saved.example/debian\nSuites: bookworm\n")
        self.apt.write("etc/apt/sources.list.d/0 space.list", "deb http://badname.example/debian bookworm main\n")
        rc, out, _ = self.apt.run()
        self.assertEqual(out["MIRROR"], "http://a.example/debian")
        self.agree_with_apt()
        self.apt.write("etc/apt/sources.list", "deb http://main.example/debian bookworm main\n")
        rc, out, _ = self.apt.run()
        self.assertEqual(out["MIRROR"], "http://main.example/debian")
        self.agree_with_apt()

    def test_local_mirror_trusted_without_signature(self):
        self.apt.write("etc/apt/sources.list", "deb [trusted=yes] file:///srv/mirror/debian bookworm main\n")
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "file:///srv/mirror/debian")
        self.assertEqual(out["MIRROR_TRUSTED"], "1")
        self.assertEqual(out["MIRROR_PROXY_VAR"], "", "no proxy for a file: mirror")
        self.agree_with_apt()

    def test_apt_only_transports_are_skipped(self):
        self.apt.write("etc/apt/sources.list", textwrap.dedent("""\
            deb mirror+file:///etc/apt/mirrors.txt bookworm main
            deb tor+http://onion.example/debian bookworm main
            deb cdrom:[Debian GNU/Linux 12]/ bookworm main
            deb http://usable.example/debian bookworm main
            """))
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "http://usable.example/debian")

    def test_another_debian_release_is_used_when_its_release_file_says_debian(self):
        self.apt.write("etc/apt/sources.list.d/debian.sources", textwrap.dedent("""\
            Types: deb
            URIs: http://mirror.example/debian-security
            Suites: trixie-security
            Components: main

            Types: deb
            URIs: http://mirror.example:8080/debian
            Suites: trixie trixie-updates
            Components: main
            """))
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 1, "without apt's Release files nothing says the source is Debian")
        self.assertIn("E2E_MIRROR", err)
        self.assertIn("http://mirror.example:8080/debian trixie trixie-updates", err, "the message lists the sources")
        for name, origin in (("mirror.example:8080_debian_dists_trixie_InRelease", "Debian"),
                             ("mirror.example_debian-security_dists_trixie-security_InRelease", "Debian")):
            self.apt.write("var/lib/apt/lists/" + name,
                           f"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nOrigin: {origin}\nLabel: {origin}\n")
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "http://mirror.example:8080/debian")
        self.assertIn("trixie, not bookworm", out["MIRROR_NOTE"])

    def test_no_debian_source_is_an_error_that_names_the_way_out(self):
        self.apt.write("etc/apt/sources.list", "deb http://other-distribution.example/repo jammy main\n")
        self.apt.write("var/lib/apt/lists/other-distribution.example_repo_dists_jammy_Release", "Origin: Other\n")
        rc, out, err = self.apt.run()
        self.assertEqual(rc, 1)
        self.assertEqual(out, {})
        self.assertIn("no enabled 'deb' source for bookworm", err)
        self.assertIn("set E2E_MIRROR", err)

    def test_a_broken_stanza_is_reported_with_its_place(self):
        self.apt.write("etc/apt/sources.list.d/bad.sources", "Types: deb\nURIs: http://x.example/debian\n")
        rc, _, err = self.apt.run()
        self.assertEqual(rc, 1)
        self.assertIn("bad.sources:1: a stanza needs Types, URIs and Suites", err)

    def test_override_skips_the_sources(self):
        self.apt.write("etc/apt/sources.list", "this is not a source line at all\n")
        rc, out, err = self.apt.run("--mirror", "http://override.example/debian/")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out["MIRROR"], "http://override.example/debian")
        self.assertEqual(out["MIRROR_FROM"], "E2E_MIRROR")


class ProxyFromAptConfiguration(unittest.TestCase):
    def sandbox(self, conf, mirror="http://mirror.example/debian"):
        apt = AptSandbox(conf)
        self.addCleanup(apt.close)
        apt.write("etc/apt/sources.list", f"deb {mirror} bookworm main\n")
        return apt

    def test_the_http_proxy_goes_to_debootstrap(self):
        rc, out, err = self.sandbox('Acquire::http::Proxy "http://proxy.example:3142/";\n').run()
        self.assertEqual(rc, 0, err)
        self.assertEqual((out["MIRROR_PROXY_VAR"], out["MIRROR_PROXY"]), ("http_proxy", "http://proxy.example:3142/"))

    def test_a_per_host_setting_wins_and_direct_means_none(self):
        conf = 'Acquire::http::Proxy "http://proxy.example:3142/";\nAcquire::http::Proxy::mirror.example "DIRECT";\n'
        _, out, _ = self.sandbox(conf).run()
        self.assertEqual(out["MIRROR_PROXY"], "")
        conf = 'Acquire::http::Proxy "DIRECT";\nAcquire::http::Proxy::mirror.example "http://near.example:8000";\n'
        _, out, _ = self.sandbox(conf).run()
        self.assertEqual(out["MIRROR_PROXY"], "http://near.example:8000")

    def test_https_falls_back_to_the_http_proxy_as_apt_does(self):
        _, out, _ = self.sandbox('Acquire::http::Proxy "http://proxy.example:3128";\n',
                                 mirror="https://mirror.example/debian").run()
        self.assertEqual((out["MIRROR_PROXY_VAR"], out["MIRROR_PROXY"]), ("https_proxy", "http://proxy.example:3128"))
        _, out, _ = self.sandbox('Acquire::http::Proxy "http://a.example:1";\nAcquire::https::Proxy "http://b.example:2";\n',
                                 mirror="https://mirror.example/debian").run()
        self.assertEqual(out["MIRROR_PROXY"], "http://b.example:2")

    def test_an_auto_detect_command_is_asked_with_the_mirror(self):
        apt = self.sandbox("")
        script = apt.path("detect-proxy")
        with open(script, "w") as f:
            f.write('#!/bin/sh\n[ "$1" = http://mirror.example/debian ] && echo http://detected.example:3142\n')
        os.chmod(script, 0o755)
        with open(apt.config, "a") as f:
            f.write(f'Acquire::http::Proxy-Auto-Detect "{script}";\n')
        _, out, _ = apt.run()
        self.assertEqual(out["MIRROR_PROXY"], "http://detected.example:3142")

    def test_the_environment_wins_and_is_left_alone(self):
        apt = self.sandbox('Acquire::http::Proxy "http://proxy.example:3142/";\n')
        _, out, _ = apt.run(environ={"http_proxy": "http://env.example:1"})
        self.assertNotIn("MIRROR_PROXY", out)
        _, out, _ = apt.run(environ={"HTTP_PROXY": "http://env.example:1"})
        self.assertNotIn("MIRROR_PROXY", out)

    def test_no_proxy_configured(self):
        _, out, _ = self.sandbox("").run()
        self.assertEqual((out["MIRROR_PROXY_VAR"], out["MIRROR_PROXY"]), ("http_proxy", ""))

    def test_the_override_gets_its_proxy_too(self):
        _, out, _ = self.sandbox('Acquire::http::Proxy "http://proxy.example:3142/";\n').run(
            "--mirror", "http://override.example/debian")
        self.assertEqual(out["MIRROR_PROXY"], "http://proxy.example:3142/")


if __name__ == "__main__":
    unittest.main()
