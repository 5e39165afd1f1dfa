"""Listings longer than one database read: Tonearm fetches a walk in pages (64 KiB of output
or 1,000 entries) merged from its directories, playlist files and songs; here the pages must join
without a gap or a repeat, in MPD's order. Tonearm and Debian's MPD run on the same generated
folder and their answers are compared line for line (without 0.24's `Added:`)."""
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.audio import ffmpeg  # noqa: E402
from support.library import wait_for_scan, without_added  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402


@pytest.fixture(scope="module")
def wide_servers(tmp_path_factory):
    """Tonearm and MPD on a folder of 2,440 untagged songs: 1,200 in one folder (three pages of
    song blocks for `lsinfo`, two of names for `listall`), 40 folders of 30 under another, a playlist file in every fifth
    folder and at the root; and 40 more songs at the root (before any folder in the walk)."""
    root = tmp_path_factory.mktemp("wide")
    music = root / "music"
    music.mkdir()
    one = root / "one.mp3"
    ffmpeg("-f", "lavfi", "-i", "anullsrc=r=22050:cl=mono", "-t", "0.2", "-c:a", "libmp3lame", "-b:a", "16k", one)
    for i in range(40):
        shutil.copy(one, music / f"r{i:03}.mp3")
    (music / "top.m3u").write_text("r000.mp3\n")
    flat = music / "flat"
    flat.mkdir()
    for i in range(1200):
        shutil.copy(one, flat / f"s{i:04}.mp3")
    for d in range(40):
        folder = music / "many" / f"d{d:02}"
        folder.mkdir(parents=True)
        for i in range(30):
            shutil.copy(one, folder / f"t{i:02}.mp3")
        if d % 5 == 0:
            (folder / "list.m3u").write_text("t00.mp3\n")
    servers = []
    try:
        for kind, make in (("tonearm", TonearmServer), ("mpd", MPDServer)):
            server = make(root / kind, music_dir=music)
            servers.append(server)
            server.start()
            with server.connect() as c:
                wait_for_scan(c)
        yield servers
    finally:
        for server in servers:
            if server.process.poll() is None:
                server.stop()


@pytest.mark.parametrize("command", [
    "listall", "listallinfo", "lsinfo flat", "listall flat", "lsinfo", "listall many", "listallinfo many/d07", "lsinfo many",
    "list file",
])
def test_long_walks_match_mpd(wide_servers, command):
    tonearm, mpd = wide_servers
    with tonearm.connect() as t, mpd.connect() as m:
        ours = without_added(t.command(command))
        theirs = m.command(command)
        assert ours[-1] == "OK"
        assert len([line for line in ours if line.startswith("file: ")]) == len(
            [line for line in theirs if line.startswith("file: ")])
        assert ours == theirs
