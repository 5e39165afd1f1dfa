"""`make deb`: what the package holds, what lintian says of it, and its life on a machine —
install, serve, upgrade, remove, purge — in a throwaway root (Tests/support/throwaway_root.py),
so that this machine's users, files and dpkg database stay as they were.
"""
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from support.clients import mpc_out
from support.library import generate, wait_for_scan
from support.servers import TonearmServer
from support.throwaway_root import ThrowawayRoot

# What dpkg, man-db's trigger and the user tools keep about any package or user they handle,
# not the package's; and the test's own copies of the packages.
BOOKKEEPING = re.compile(r"^/var/lib/dpkg(/|$)|^/var/log/(dpkg|alternatives)\.log$|^/etc/(passwd|group|shadow|gshadow)-$"
                         r"|^/etc/\.pwd\.lock$|^/var/cache/man(/|$)|^/var/cache/tonearm-test(/|$)")


def dpkg_field(package: Path, field: str) -> str:
    return subprocess.run(["dpkg-deb", "-f", str(package), field], capture_output=True, text=True,
                          check=True).stdout.strip()


def contents(package: Path) -> dict[str, str]:
    """{path: mode string} of the files and links in a package."""
    listing = subprocess.run(["dpkg-deb", "-c", str(package)], capture_output=True, text=True, check=True).stdout
    result = {}
    for line in listing.splitlines():
        fields = line.split()
        if not fields[0].startswith("d"):
            result[fields[5].removeprefix(".")] = fields[0]
    return result


@pytest.fixture(scope="module")
def dbgsym(package) -> Path:
    path = package.with_name(package.name.replace("tonearm_", "tonearm-dbgsym_", 1))
    assert path.is_file()
    return path


@pytest.fixture(scope="module")
def earlier_package(package, tmp_path_factory) -> Path:
    """The same package under an earlier version, as the build before this one would be."""
    work = tmp_path_factory.mktemp("earlier")
    unpacked = work / "unpacked"
    subprocess.run(["dpkg-deb", "-R", str(package), str(unpacked)], check=True)
    control = unpacked / "DEBIAN/control"
    version = dpkg_field(package, "Version")
    control.write_text(control.read_text().replace(f"Version: {version}\n", f"Version: {version}~earlier\n"))
    earlier = work / package.name.replace(version, f"{version}~earlier")
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-z1", "-b", str(unpacked), str(earlier)],
                   check=True, capture_output=True)
    return earlier


def test_lintian_reports_no_error_or_warning(package, dbgsym):
    """Lintian's errors and warnings, every one; the tags the package overrides are explained in
    packaging/debian/lintian-overrides."""
    result = subprocess.run(["lintian", "--fail-on", "error,warning", str(package), str(dbgsym)],
                            capture_output=True, text=True, timeout=600)
    problems = [line for line in result.stdout.splitlines() if line.startswith(("E:", "W:"))]
    assert result.returncode == 0 and problems == [], result.stdout + result.stderr


def test_the_package_holds_a_service(package, dbgsym, version, tmp_path):
    """The version is git's; Depends comes from the libraries the binary loads (no Swift
    runtime among them); the files are where Debian 12 looks; /etc/tonearm.conf is a conffile;
    the binary is stripped and its debug symbols are in the dbgsym package under its build ID."""
    assert dpkg_field(package, "Version") == version
    depends = dpkg_field(package, "Depends")
    for library in ("libavformat59", "libasound2", "libavahi-client3", "libsqlite3-0", "libc6"):
        assert library in depends
    assert "swift" not in depends.lower()
    files = contents(package)
    for path in ("/usr/bin/tonearm", "/etc/tonearm.conf", "/lib/systemd/system/tonearm.service",
                 "/lib/systemd/system/tonearm.socket", "/usr/lib/sysusers.d/tonearm.conf",
                 "/usr/share/man/man1/tonearm.1.gz", "/usr/share/man/man5/tonearm.conf.5.gz",
                 "/usr/share/doc/tonearm/copyright", "/usr/share/doc/tonearm/changelog.gz"):
        assert path in files, path
    assert files["/usr/bin/tonearm"] == "-rwxr-xr-x"
    control = tmp_path / "control"
    subprocess.run(["dpkg-deb", "-e", str(package), str(control)], check=True)
    assert (control / "conffiles").read_text() == "/etc/tonearm.conf\n"

    unpacked = tmp_path / "unpacked"
    subprocess.run(["dpkg-deb", "-x", str(package), str(unpacked)], check=True)
    subprocess.run(["dpkg-deb", "-x", str(dbgsym), str(unpacked)], check=True)
    binary = unpacked / "usr/bin/tonearm"
    sections = subprocess.run(["readelf", "-S", "-W", str(binary)], capture_output=True, text=True,
                              check=True).stdout
    assert ".debug_info" not in sections and ".gnu_debuglink" in sections
    notes = subprocess.run(["readelf", "-n", str(binary)], capture_output=True, text=True, check=True).stdout
    build_id = re.search(r"Build ID: ([0-9a-f]+)", notes).group(1)
    debug_file = unpacked / f"usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug"
    assert ".debug_info" in subprocess.run(["readelf", "-S", "-W", str(debug_file)], capture_output=True,
                                           text=True, check=True).stdout
    assert dpkg_field(dbgsym, "Build-Ids") == build_id
    printed = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30, check=True)
    assert printed.stdout.startswith(f"tonearm {version} (MPD protocol")
    # The configuration a fresh install starts with points at the folder the package makes.
    assert re.search(r'^music_directory +"/var/lib/tonearm/music"$', (unpacked / "etc/tonearm.conf").read_text(),
                     re.MULTILINE)


class PackagedTonearm(TonearmServer):
    """The installed tonearm, started in the throwaway root as tonearm.service starts it: its
    ExecStart=, as its User= with its Environment=, and `--port 0` (the edited configuration
    binds 127.0.0.1)."""

    def __init__(self, root: ThrowawayRoot, workdir: Path):
        unit = root.read("/lib/systemd/system/tonearm.service")
        settings = dict(re.findall(r"^(ExecStart|User)=(.*)$", unit, re.MULTILINE))
        environment = re.findall(r"^Environment=(.*)$", unit, re.MULTILINE)
        binary, option, config = settings["ExecStart"].split()
        assert option == "--config"
        user = settings["User"]
        run_as = (f"exec setpriv --reuid={user} --regid={user} --init-groups env HOME=/var/lib/tonearm "
                  f'{" ".join(environment)} "$0" "$@"')
        super().__init__(workdir, binary=binary, wrapper=root.command(run_as))
        self.binary = binary
        self.config_path = Path(config)

    def write_config(self):
        pass


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_install_serve_upgrade_remove_purge(package, earlier_package, tmp_path):
    """A Debian 12 machine without Swift (the toolchain's folder is empty in the root) installs
    the package, serves music with it, upgrades it, removes it and purges it."""
    swift = shutil.which("swift")
    toolchain = (Path(swift).resolve().parent.parent.parent,) if swift else ()
    root = ThrowawayRoot(tmp_path / "root", hidden=toolchain)
    library = generate(tmp_path / "music")
    shutil.copytree(library.root, root.path("/srv/music"))
    cache = root.path("/var/cache/tonearm-test")
    cache.mkdir(parents=True)
    for deb in (earlier_package, package):
        shutil.copy(deb, cache)
    before = root.changed_files()

    # A fresh install: the user in the audio group, its folders, the units enabled.
    root.run(f"dpkg -i /var/cache/tonearm-test/{earlier_package.name}")
    groups = root.run("id -nG tonearm").stdout.split()
    assert set(groups) == {"tonearm", "audio"}
    passwd = {line.split(":")[0]: line.split(":") for line in root.read("/etc/passwd").splitlines()}
    uid = int(passwd["tonearm"][2])
    assert passwd["tonearm"][5] == "/var/lib/tonearm"
    assert root.path("/var/lib/tonearm/music").stat().st_uid == uid
    assert root.exists("/etc/systemd/system/multi-user.target.wants/tonearm.service")
    assert root.exists("/etc/systemd/system/sockets.target.wants/tonearm.socket")
    if toolchain:
        assert root.run(f"ls -A {toolchain[0]}").stdout == ""
    # The installed units name files that exist there (ExecStart=, the man pages of Documentation=).
    verified = root.run("systemd-analyze verify /lib/systemd/system/tonearm.socket /lib/systemd/system/tonearm.service")
    assert verified.stderr == ""

    # The administrator's edits; then the service serves the library and keeps what clients save.
    root.run("sed -i 's|^music_directory .*|music_directory        \"/srv/music\"|' /etc/tonearm.conf && "
             "printf 'bind_to_address \"127.0.0.1\"\\nzeroconf_enabled \"no\"\\n"
             "audio_output {\\n type \"null\"\\n name \"null\"\\n}\\n' >> /etc/tonearm.conf")
    edited = root.read("/etc/tonearm.conf")
    song = library.song_uris()[0]
    with PackagedTonearm(root, tmp_path / "first") as server:
        with server.connect() as c:
            wait_for_scan(c)
            assert c.command(f'sticker set song "{song}" rating 8') == ["OK"]
            assert c.command(f'playlistadd kept "{song}"') == ["OK"]
        assert sorted(mpc_out(server, "listall").splitlines()) == library.song_uris()
    database = root.path("/var/lib/tonearm/database.sqlite")
    assert database.stat().st_uid == uid
    database_digest = digest(database)

    # The upgrade keeps the edited configuration and everything in /var/lib/tonearm.
    root.run(f"dpkg -i /var/cache/tonearm-test/{package.name}")
    assert root.run("dpkg-query -W -f '${Version}' tonearm").stdout == dpkg_field(package, "Version")
    assert root.read("/etc/tonearm.conf") == edited
    assert digest(database) == database_digest
    with PackagedTonearm(root, tmp_path / "second") as server:
        with server.connect() as c:
            assert c.command(f'sticker get song "{song}" rating') == ["sticker: rating=8", "OK"]
            assert c.command("listplaylist kept") == [f"file: {song}", "OK"]
        assert sorted(mpc_out(server, "listall").splitlines()) == library.song_uris()

    # remove: the program goes; the configuration, the data and the user stay.
    root.run("dpkg -r tonearm")
    assert not root.exists("/usr/bin/tonearm") and not root.exists("/lib/systemd/system/tonearm.service")
    assert root.read("/etc/tonearm.conf") == edited
    assert root.exists("/var/lib/tonearm/database.sqlite") and root.exists("/var/lib/tonearm/playlists/kept.m3u")
    assert root.run("dpkg-query -W -f '${Status}' tonearm").stdout == "deinstall ok config-files"
    assert root.run("id tonearm", check=False).returncode == 0

    # purge: nothing of the package's is left; music put in its folder is not deleted.
    root.run("touch /var/lib/tonearm/music/mine.flac")
    root.run("dpkg -P tonearm")
    assert root.run("id tonearm", check=False).returncode != 0
    left = {path: how for path, how in root.changed_files().items()
            if before.get(path) != how and not BOOKKEEPING.search(path)}
    assert left == {"/var/lib/tonearm": "added", "/var/lib/tonearm/music": "added",
                    "/var/lib/tonearm/music/mine.flac": "added"}
    for account in ("passwd", "group", "shadow", "gshadow"):
        assert root.read(f"/etc/{account}") == Path(f"/etc/{account}").read_text(), account
