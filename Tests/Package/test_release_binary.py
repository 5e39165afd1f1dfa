"""The release binary runs where no Swift toolchain is installed.

Each test starts the binary in a private mount namespace (`unshare -m`) in which the
toolchain's folder is hidden under an empty tmpfs, so that nothing of Swift's can be loaded
from it, and checks that it serves a library and plays to a pipe output there.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support import audio
from support.clients import mpc_out
from support.library import generate, wait_for_scan
from support.playback import wait_state
from support.servers import REPO, TonearmServer

SWIFT = shutil.which("swift")
# /opt/swift/usr/bin/swift → /opt/swift: the folder a toolchain install unpacks.
TOOLCHAIN = Path(SWIFT).resolve().parent.parent.parent if SWIFT else None
# Runs "$@" with the toolchain's folder replaced by an empty one, for this process tree only.
WITHOUT_TOOLCHAIN = ["unshare", "-m", "--propagation", "private", "sh", "-c",
                     f'mount -t tmpfs tmpfs "{TOOLCHAIN}" && exec "$@"', "without-toolchain"]

pytestmark = pytest.mark.skipif(TOOLCHAIN is None, reason="no Swift toolchain to hide")


def needed_libraries(binary: Path) -> list[str]:
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


def test_the_hidden_toolchain_is_really_gone():
    """The namespace hides the Swift runtime: a toolchain library the debug build loads is not
    there, and the debug build (linked against the toolchain) cannot start in it."""
    runtime = TOOLCHAIN / "usr/lib/swift/linux/libswiftCore.so"
    assert runtime.exists()
    hidden = subprocess.run([*WITHOUT_TOOLCHAIN, "ls", str(runtime)], capture_output=True, text=True, timeout=30)
    assert hidden.returncode != 0 and "No such file" in hidden.stderr
    debug = REPO / ".build/debug/tonearm"
    if not debug.exists() or "libswiftCore.so" not in " ".join(needed_libraries(debug)):
        pytest.skip("no debug build linked against the toolchain's runtime")
    started = subprocess.run([*WITHOUT_TOOLCHAIN, str(debug), "--version"], capture_output=True, text=True,
                             timeout=30)
    assert started.returncode != 0 and "libswift" in started.stderr and "cannot open shared object" in started.stderr


def test_the_binary_needs_only_debian_libraries(release_binary):
    """Every shared library the binary names belongs to an installed Debian package, and none
    is Swift's."""
    needed = needed_libraries(release_binary)
    assert "libavformat.so.59" in needed and "libasound.so.2" in needed
    assert not [name for name in needed if "swift" in name.lower() or name.startswith(("libFoundation", "libdispatch"))]
    for name in needed:
        owner = subprocess.run(["dpkg", "-S", f"*/{name}"], capture_output=True, text=True)
        assert owner.returncode == 0, f"{name} belongs to no Debian package"


def test_it_serves_and_plays_without_the_toolchain(release_binary, tmp_path):
    """Started without the toolchain: `mpc status` and `mpc listall` answer, and a FLAC song
    reaches a pipe output byte for byte as the `ffmpeg` CLI decodes it."""
    library = generate(tmp_path / "music")
    source = audio.chirp(tmp_path / "chirp.wav", 44100, 2)
    audio.encode(source, library.root / "tone.flac")
    capture = tmp_path / "pcm.raw"
    server = TonearmServer(tmp_path / "server", binary=str(release_binary), music_dir=library.root,
                           output=audio.pipe_output(capture), wrapper=WITHOUT_TOOLCHAIN)
    with server:
        with server.connect() as c:
            wait_for_scan(c)
        assert "volume:" in mpc_out(server, "status")
        listed = mpc_out(server, "listall").splitlines()
        assert sorted(listed) == sorted(library.song_uris() + ["tone.flac"])
        reference = audio.decode(library.root / "tone.flac")
        with server.connect() as c:
            assert c.command('add "tone.flac"') == ["OK"]
            assert c.command("play") == ["OK"]
            wait_state(c, "stop")
        assert audio.read_settled(capture, len(reference)) == reference
    assert server.process.returncode == 0
