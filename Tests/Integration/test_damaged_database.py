"""A damaged database is rebuilt, not fatal (issue 24, item 4): truncated, overwritten at its
start (no database any more) or in its middle, it is moved or copied aside to `db_file.damaged`,
the music folder is scanned again, and the server serves; stickers, stored playlists and the
queue, kept in files of their own, are all still there."""
import os
import shutil
import sqlite3

import pytest

from support import audio
from support.library import wait_for_scan
from support.polling import poll
from support.servers import TonearmServer

SONGS = 150


@pytest.fixture
def server(tmp_path):
    """A stopped server whose database holds SONGS songs, a sticker, a stored playlist and a
    queue of two songs (in the state file)."""
    music = tmp_path / "music"
    for folder in ("a", "b", "c"):
        (music / folder).mkdir(parents=True)
    source = audio.chirp(tmp_path / "chirp.wav", seconds=0.1)
    for number in range(SONGS):
        shutil.copy(source, music / "abc"[number % 3] / f"{number:03}.wav")
    server = TonearmServer(tmp_path / "tonearm", music_dir=music)
    with server, server.connect() as c:
        wait_for_scan(c)
        assert c.command("add a/000.wav")[-1] == "OK" and c.command("add b/001.wav")[-1] == "OK"
        assert c.command("sticker set song a/000.wav rating 8") == ["OK"]
        assert c.command("save kept") == ["OK"]
    return server


def database(server):
    return server.workdir / "database.sqlite"


def assert_rebuilt(server, aside_verb: str):
    with server, server.connect() as c:
        poll("the library scanned again", lambda: songs(c) == SONGS, timeout=30)
        wait_for_scan(c)
        # With a new database the state file is restored once its first scan has ended.
        queue = ["0:file: a/000.wav", "1:file: b/001.wav", "OK"]
        poll("the queue restored", lambda: c.command("playlist") == queue)
        assert c.command("sticker get song a/000.wav rating") == ["sticker: rating=8", "OK"]
        assert c.command("listplaylist kept") == ["file: a/000.wav", "file: b/001.wav", "OK"]
    damaged = f"{database(server)}.damaged"
    assert f"the database {database(server)} is damaged (" in server.log_text()
    assert f"{aside_verb} it to {damaged} and scanning the music folder again" in server.log_text()
    assert os.path.exists(damaged)
    with sqlite3.connect(database(server)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def songs(c) -> int:
    return int(dict(line.split(": ", 1) for line in c.command("stats")[:-1])["songs"])


def test_a_truncated_database_is_moved_aside_and_rebuilt(server):
    path = database(server)
    os.truncate(path, path.stat().st_size // 2)
    assert_rebuilt(server, "moved")


def test_a_file_that_is_no_database_any_more_is_moved_aside_and_rebuilt(server):
    with open(database(server), "r+b") as file:
        file.write(os.urandom(4096))
    assert_rebuilt(server, "moved")


def test_a_database_damaged_in_its_middle_is_found_after_start_and_rebuilt(server):
    """It opens, so the damage shows only when its pages are read: the server checks them in the
    background once it serves, copies the file aside and scans again."""
    path = database(server)
    size = path.stat().st_size
    with open(path, "r+b") as file:
        for fraction in (0.3, 0.5, 0.7):
            file.seek(int(size * fraction) // 4096 * 4096)
            file.write(b"\xa5" * 4096)
    with sqlite3.connect(path) as db, pytest.raises(sqlite3.DatabaseError, match="malformed"):
        db.execute("PRAGMA quick_check").fetchall()
    assert_rebuilt(server, "copied")


def test_a_queue_whose_songs_lie_on_damaged_pages_comes_back_after_the_rebuild(server):
    """The damage hits the songs' own rows, so the state file's songs cannot be read at start:
    the queue waits for the check and the new scan rather than starting empty (and the file is
    not written over meanwhile)."""
    path = database(server)
    with sqlite3.connect(path) as db:
        pages = [row[0] for row in db.execute("SELECT pageno FROM dbstat WHERE name = 'song' AND pagetype = 'leaf'")]
    assert pages
    with open(path, "r+b") as file:
        for page in pages:
            file.seek((page - 1) * 4096)
            file.write(b"\xa5" * 4096)
    assert_rebuilt(server, "copied")
    assert "cannot read its songs from the database" in server.log_text()


def test_an_intact_database_is_left_alone(server):
    server.extra_config = 'log_level "info"\n'
    with server, server.connect() as c:
        assert songs(c) == SONGS
        poll("the background check", lambda: f"the database {database(server)} is intact" in server.log_text())
    assert "damaged" not in server.log_text()
    assert not os.path.exists(f"{database(server)}.damaged")
