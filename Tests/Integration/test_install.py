"""`make install`, the man pages and the systemd units.

`make install BINARY=…` installs the binary already built (the debug one here) instead of making
a release build first, so this stays quick. The man pages are checked with groff's warnings on
and against the options they document; the units with `systemd-analyze verify` once installed,
so that ExecStart= names a real file.
"""
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
BINARY = os.environ.get("TONEARM_BIN") or str(REPO / ".build/debug/tonearm")


def make_install(*variables: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "install", f"BINARY={BINARY}",
                           *variables], capture_output=True, text=True, timeout=120)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_install_under_a_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    result = make_install(f"PREFIX={prefix}", "DESTDIR=")
    assert result.returncode == 0, result.stderr
    expected = {
        "bin/tonearm": 0o755,
        "share/man/man1/tonearm.1": 0o644,
        "share/man/man5/tonearm.conf.5": 0o644,
        "lib/systemd/system/tonearm.service": 0o644,
        "lib/systemd/system/tonearm.socket": 0o644,
        "etc/tonearm.conf": 0o644,  # SYSCONFDIR is PREFIX/etc unless PREFIX is /usr
    }
    installed = {str(p.relative_to(prefix)): mode(p) for p in prefix.rglob("*") if p.is_file()}
    assert installed == expected
    version = subprocess.run([str(prefix / "bin/tonearm"), "--version"], capture_output=True, text=True, timeout=30)
    assert version.returncode == 0 and version.stdout.startswith("tonearm ")
    assert (prefix / "etc/tonearm.conf").read_text() == (REPO / "conf/tonearm.conf").read_text()
    service = (prefix / "lib/systemd/system/tonearm.service").read_text()
    assert f"\nExecStart={prefix}/bin/tonearm --config {prefix}/etc/tonearm.conf\n" in service


def test_install_into_destdir_for_a_package(tmp_path):
    """PREFIX=/usr: the configuration goes to /etc, and the unit names the paths on the target
    system, not under DESTDIR."""
    root = tmp_path / "root"
    assert make_install("PREFIX=/usr", f"DESTDIR={root}").returncode == 0
    for path in ["usr/bin/tonearm", "usr/share/man/man1/tonearm.1", "usr/share/man/man5/tonearm.conf.5",
                 "usr/lib/systemd/system/tonearm.service", "usr/lib/systemd/system/tonearm.socket",
                 "etc/tonearm.conf"]:
        assert (root / path).is_file(), path
    service = (root / "usr/lib/systemd/system/tonearm.service").read_text()
    assert "\nExecStart=/usr/bin/tonearm --config /etc/tonearm.conf\n" in service


def test_an_edited_configuration_is_kept_and_uninstall_leaves_it(tmp_path):
    prefix = tmp_path / "prefix"
    assert make_install(f"PREFIX={prefix}").returncode == 0
    (prefix / "etc/tonearm.conf").write_text('music_directory "/srv/music"\n')
    assert make_install(f"PREFIX={prefix}").returncode == 0
    assert (prefix / "etc/tonearm.conf").read_text() == 'music_directory "/srv/music"\n'
    subprocess.run(["make", "--no-print-directory", "-C", str(REPO), "uninstall", f"PREFIX={prefix}"],
                   check=True, capture_output=True, timeout=60)
    assert [str(p.relative_to(prefix)) for p in prefix.rglob("*") if p.is_file()] == ["etc/tonearm.conf"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_installed_units_verify(tmp_path):
    prefix = tmp_path / "prefix"
    assert make_install(f"PREFIX={prefix}").returncode == 0
    units = prefix / "lib/systemd/system"
    # MANPATH: verify also checks that Documentation=man:… pages exist.
    result = subprocess.run(["systemd-analyze", "verify", "./tonearm.socket", "./tonearm.service"], cwd=units,
                            capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, MANPATH=str(prefix / "share/man")))
    assert result.returncode == 0 and result.stderr == "", result.stderr


@pytest.mark.parametrize("page", ["tonearm.1", "tonearm.conf.5"])
def test_the_man_pages_render_without_warnings(page):
    result = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(REPO / "docs" / page)],
                            capture_output=True, text=True, timeout=60, env=dict(os.environ, LC_ALL="C.UTF-8"))
    assert result.returncode == 0 and result.stderr == ""


def test_tonearm_1_documents_every_command_line_option():
    help_text = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=30).stdout
    options = set(re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", help_text, re.M))
    assert {"--config", "--port", "--verbose", "--version", "--help"} <= options
    page = (REPO / "docs/tonearm.1").read_text().replace("\\-", "-")
    for option in options:
        assert re.search(rf"^\.(?:B|BI|BR|OP) {option}\b", page, re.M), option


def test_tonearm_conf_5_documents_every_option_of_configuration_md():
    guide = (REPO / "docs/configuration.md").read_text()
    options = set(re.findall(r"^\| `([a-z_]+)[` ]", guide, re.M)) - {"type"}
    assert {"music_directory", "bind_to_address", "audio_output", "log_level", "user"} <= options
    page = (REPO / "docs/tonearm.conf.5").read_text()
    documented = set(re.findall(r"^\.B(?:R)? ([a-z_]+)", page, re.M))
    assert options - documented == set()
