"""A full disk breaks nothing (issue 24, item 3): with the database, the state file, the stored
playlists and the stickers on a small tmpfs that fills up, every write fails cleanly (an ACK, or
a logged error and `status`'s `error`), the previous file or row stays as it was, the server
serves on, and once space is freed the writes succeed again."""
import os
import shutil
import sqlite3
import subprocess
import time

import pytest

from support.library import wait_for_scan
from support.playback import A1, A2, B1, status
from support.polling import poll
from support.servers import TonearmServer


@pytest.fixture
def disk(tmp_path):
    """A 4 MiB tmpfs, unmounted after the test."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tonearm-test", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk):
    """Writes a file until the disk is full."""
    with open(disk / "filler", "wb") as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
        except OSError:
            pass
    assert shutil.disk_usage(disk).free < 65536


def playlist_files(disk) -> list[str]:
    return sorted(os.listdir(disk / "playlists"))


def ack(reply: list[str], command: str, code: int) -> str:
    """The message of a one-line ACK `[code@0] {command}`; fails on anything else."""
    assert len(reply) == 1 and reply[0].startswith(f"ACK [{code}@0] {{{command}}} "), reply
    return reply[0].split("} ", 1)[1]


def test_writes_fail_cleanly_on_a_full_disk_and_work_again_once_it_has_room(disk, short_library, tmp_path):
    music = tmp_path / "music"
    shutil.copytree(short_library, music)
    playlists = disk / "playlists"
    playlists.mkdir()
    state = disk / "state"
    database = disk / "database.sqlite"
    server = TonearmServer(
        tmp_path / "tonearm", music_dir=music,
        extra_config=(f'playlist_directory "{playlists}"\ndb_file "{database}"\nstate_file "{state}"\n'
                      f'sticker_file "{disk}/stickers.sqlite"\nsticker_play_stats "no"\n'))
    with server, server.connect() as c:
        wait_for_scan(c)
        assert c.command(f'add "{A1}"') == ["OK"]
        assert c.command(f'sticker set song "{A1}" rating 1') == ["OK"]
        assert c.command("save keep") == ["OK"]
        poll("the queue in the state file", lambda: state.exists() and f"0:{A1}" in state.read_text())
        state_before = state.read_text()
        kept = (playlists / "keep.m3u").read_text()

        fill(disk)
        # Stored playlists: MPD's system error, and nothing half written or left behind.
        assert "No space left on device" in ack(c.command("save other"), "save", 52)
        assert "No space left on device" in ack(c.command(f'playlistadd keep "{A2}"'), "playlistadd", 52)
        assert playlist_files(disk) == ["keep.m3u"]
        assert (playlists / "keep.m3u").read_text() == kept
        # Stickers: SQLite's words as MPD gives them (not GRDB's, with the statement), and the
        # row as it was.
        assert c.command(f'sticker set song "{A1}" rating 2') == [
            "ACK [5@0] {sticker} sqlite3_step() failed: database or disk is full"]
        assert c.command(f'sticker get song "{A1}" rating') == ["sticker: rating=1", "OK"]
        # The state file: a logged error, once, and the file as it was.
        assert c.command(f'add "{B1}"') == ["OK"]
        poll("the state file's error", lambda: "cannot write the state file" in server.log_text())
        assert "No space left on device; it keeps the state written before" in server.log_text()
        assert state.read_text() == state_before
        # An update: if SQLite finds no room, the job fails, status says why, the database is
        # whole and holds what it held.
        assert c.command("rescan")[-1] == "OK"
        wait_for_scan(c)
        error = status(c).get("error")
        assert error in (None, "update failed: database or disk is full"), error
        assert c.command("ping") == ["OK"]
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert dict(line.split(": ", 1) for line in c.command("stats")[:-1])["songs"] == "7"
        time.sleep(2 * 0.5)  # the writer tries again every half second, and says nothing new
        assert server.log_text().count("cannot write the state file") == 1

        os.unlink(disk / "filler")
        assert c.command("save other") == ["OK"]
        assert c.command(f'playlistadd keep "{A2}"') == ["OK"]
        assert (playlists / "keep.m3u").read_text() == kept + f"{A2}\n"
        assert c.command(f'sticker set song "{A1}" rating 2') == ["OK"]
        poll("the state file written again", lambda: f"1:{B1}" in state.read_text())
        assert f"the state file {state} is written again" in server.log_text()
        assert c.command("update")[-1] == "OK"
        wait_for_scan(c)
        assert "error" not in status(c)
