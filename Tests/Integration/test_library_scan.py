"""The music database end to end: the first start scans, browsing, updates and their idle
events, stats and album art, auto_update (inotify) and a scan killed midway, on a small library
made with ffmpeg."""
import calendar
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import uris  # noqa: E402
from support.polling import poll  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402


def encode(path: Path, seconds: float = 1, **tags):
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = [arg for key, value in tags.items() for arg in ("-metadata", f"{key}={value}")]
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", f"sine=d={seconds}",
                    *metadata, str(path)], check=True)


@pytest.fixture(scope="module")
def music(tmp_path_factory):
    root = tmp_path_factory.mktemp("music")
    encode(root / "Artist/Album/01.flac", artist="Björk", album="Debut", title="Human Behaviour", track="1/11")
    encode(root / "Artist/Album/02.flac", 2, artist="Björk", album="Debut", title="Crying", track="2/11")
    encode(root / "Other/x.ogg", artist="Other", title="X \"quoted\"")
    encode(root / "root.flac", title="At the root")
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=red:s=8x8",
                    "-frames:v", "1", str(root / "Artist/Album/cover.png")], check=True)
    (root / "Other/notes.txt").write_text("not music\n")
    (root / "Other/broken.flac").write_bytes(b"fLaC" + bytes(range(256)) * 4)
    (root / "Empty").mkdir()
    return root


def library_copy(music, tmp_path) -> Path:
    copy = tmp_path / "music"
    shutil.copytree(music, copy)
    return copy


def wait_for_update(connection, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(line.startswith("updating_db:") for line in connection.command("status")):
            return
        time.sleep(0.05)
    raise AssertionError("the update did not finish")


@pytest.fixture
def library(make_tonearm, music, tmp_path):
    server = make_tonearm(music_dir=library_copy(music, tmp_path))
    with server.connect() as c:
        wait_for_update(c)
    return server


def test_first_start_scans_the_music_directory(library):
    with library.connect() as c:
        stats = dict(line.split(": ", 1) for line in c.command("stats")[:-1])
        assert stats["songs"] == "4" and stats["artists"] == "2" and stats["albums"] == "1"
        assert stats["db_playtime"] == "5" and int(stats["db_update"]) > 0


def test_lsinfo_lists_songs_then_directories_and_prunes_empty_ones(library):
    with library.connect() as c:
        root = c.command("lsinfo")
        assert [l for l in root if not l.startswith(("Last-Modified", "Added", "Format", "Time", "duration"))] == [
            "file: root.flac", "Title: At the root", "directory: Artist", "directory: Other", "OK"]
        assert c.command("lsinfo /") == root
        assert c.command("lsinfo Empty") == ["ACK [50@0] {lsinfo} No such directory"]
        assert c.command("lsinfo ../etc") == ["ACK [50@0] {lsinfo} No such directory"]


def test_song_block_fields_and_track_numbers(library):
    with library.connect() as c:
        block = c.command("lsinfo Artist/Album/01.flac")
        keys = [line.split(":", 1)[0] for line in block[:-1]]
        assert keys == ["file", "Last-Modified", "Added", "Format", "Artist", "Album", "Title", "Track", "Time",
                        "duration"]
        assert "Format: 44100:16:1" in block and "Track: 1" in block and "duration: 1.000" in block
        c.command("tagtypes clear")
        assert [line.split(":")[0] for line in c.command("lsinfo Artist/Album/01.flac")[:-1]] == [
            "file", "Last-Modified", "Added", "Format", "Time", "duration"]


def test_listall_walks_in_mpd_order(library):
    with library.connect() as c:
        assert c.command("listall") == [
            "file: root.flac", "directory: Artist", "directory: Artist/Album", "file: Artist/Album/01.flac",
            "file: Artist/Album/02.flac", "directory: Other", "file: Other/x.ogg", "OK"]
        assert c.command("listall Other") == ["directory: Other", "file: Other/x.ogg", "OK"]
        assert c.command("listall Artist/Album/02.flac") == ["file: Artist/Album/02.flac", "OK"]
        assert c.command("listall nope") == ["ACK [50@0] {listall} No such directory"]
        info = c.command("listallinfo Other")
        assert info[:3] == ["directory: Other", info[1], "file: Other/x.ogg"] and 'Title: X "quoted"' in info
        assert info[1].startswith("Last-Modified: ")


def test_listfiles_shows_every_file(library):
    with library.connect() as c:
        lines = c.command("listfiles Other")
        # In directory order, as MPD lists them.
        assert sorted(l for l in lines if l.startswith(("file:", "directory:"))) == [
            "file: broken.flac", "file: notes.txt", "file: x.ogg"]
        assert c.command("listfiles nope") == [
            f"ACK [52@0] {{listfiles}} Failed to open {library.music_dir}/nope: No such file or directory"]


def test_update_adds_and_removes_songs_and_raises_idle_events(library):
    with library.connect() as watcher, library.connect() as c:
        watcher.send("idle database update\n")
        time.sleep(0.2)
        encode(library.music_dir / "Other/new.flac", title="New")
        (library.music_dir / "root.flac").unlink()
        reply = c.command("update")
        assert reply[0].startswith("updating_db: ") and reply[-1] == "OK"
        first = watcher.read_response(timeout=10)
        assert first in (["changed: update", "OK"], ["changed: database", "OK"],
                         ["changed: database", "changed: update", "OK"])
        wait_for_update(c)
        if "changed: database" not in first:
            # Events raised before the watcher's answer is written merge into it: on a busy
            # machine the whole job can end first, and then no database event is left to wait for.
            watcher.send("idle database\n")
            assert watcher.read_response(timeout=10) == ["changed: database", "OK"]
        assert c.command("lsinfo Other/new.flac")[0] == "file: Other/new.flac"
        assert c.command("lsinfo root.flac") == ["ACK [50@0] {lsinfo} No such directory"]
        stats = dict(line.split(": ", 1) for line in c.command("stats")[:-1])
        assert stats["songs"] == "4"


def song_blocks(connection, directory: str) -> dict[str, dict[str, str]]:
    """The songs below `directory` (`listallinfo`), each as its lines' keys and values."""
    blocks: dict[str, dict[str, str]] = {}
    song = None  # a directory's lines belong to no song
    for line in connection.command(f"listallinfo {directory}")[:-1]:
        key, _, value = line.partition(": ")
        if key == "file":
            song = blocks[value] = {}
        elif key == "directory":
            song = None
        elif song is not None:
            song[key] = value
    return blocks


def unix_time(text: str) -> int:
    """A time as MPD prints it (ISO 8601, UTC, whole seconds) in Unix seconds; anything else
    fails."""
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def test_added_is_when_an_update_first_found_the_song(make_tonearm, tmp_path):
    """`Added:` (MPD 0.24) is the time an update put the song in the database, in MPD's ISO
    8601 form: not the file's time, and kept when the file changes. Three songs are added one
    update at a time, each in a later second than the one before and in an order their names
    do not have; `sort Added` lists them in that order, `sort -Added` the other way round."""
    music = tmp_path / "music"
    music.mkdir()
    server = make_tonearm(music_dir=music)
    file_time = calendar.timegm((2001, 2, 3, 4, 5, 6))
    added = {}
    with server.connect() as c:
        wait_for_update(c)
        for name in ("c.flac", "a.flac", "b.flac"):
            uri = f"new/{name}"
            encode(music / uri, title=name)
            os.utime(music / uri, (file_time, file_time))
            before = int(time.time())
            assert c.command("update")[-1] == "OK"
            poll(f"{uri} in the database", lambda: c.command(f"lsinfo {uri}")[-1] == "OK")
            after = time.time()
            wait_for_update(c)
            song = song_blocks(c, "new")[uri]
            added[uri] = unix_time(song["Added"])
            assert before <= added[uri] <= after, song
            assert song["Last-Modified"] == "2001-02-03T04:05:06Z"
            # The next song is added in a later second.
            time.sleep(max(0.0, added[uri] + 1 - time.time()))
        order = ["new/c.flac", "new/a.flac", "new/b.flac"]
        assert added[order[0]] < added[order[1]] < added[order[2]]
        assert uris(c.command("find \"(base 'new')\" sort Added")) == order
        assert uris(c.command("find \"(base 'new')\" sort -Added")) == order[::-1]

        # A changed file is read again and keeps the time it was first added.
        encode(music / order[0], title="changed")
        assert c.command("update")[-1] == "OK"
        poll("the change to new/c.flac", lambda: "Title: changed" in c.command("lsinfo new/c.flac"))
        wait_for_update(c)
        song = song_blocks(c, "new")[order[0]]
        assert unix_time(song["Added"]) == added[order[0]]
        assert unix_time(song["Last-Modified"]) > file_time
        assert uris(c.command("find \"(base 'new')\" sort Added")) == order


def test_update_rejects_bad_paths(library):
    with library.connect() as c:
        assert c.command("update ../x") == ["ACK [2@0] {update} Malformed path"]
        assert c.command("update a//b") == ["ACK [2@0] {update} Malformed path"]
        assert c.command("rescan")[0].startswith("updating_db: ")


def test_database_survives_a_restart_without_rescanning(make_tonearm, music, tmp_path):
    server = make_tonearm(music_dir=library_copy(music, tmp_path))
    with server.connect() as c:
        wait_for_update(c)
        before = c.command("listallinfo")
    assert server.stop() == 0
    # Closed at shutdown: SQLite folded the write-ahead log back into the file, so the next
    # start does not read it back.
    assert os.path.exists(f"{server.workdir}/database.sqlite")
    assert not os.path.exists(f"{server.workdir}/database.sqlite-wal")
    server.start()
    with server.connect() as c:
        assert not any(line.startswith("updating_db") for line in c.command("status"))
        assert c.command("listallinfo") == before


def test_albumart_reads_the_cover_in_chunks(library):
    cover = (library.music_dir / "Artist/Album/cover.png").read_bytes()
    with library.connect() as c:
        c.command("binarylimit 64")
        received = b""
        while True:
            c.send(f"albumart Artist/Album/01.flac {len(received)}\n")
            size = int(c.read_line().removeprefix("size: "))
            length = int(c.read_line().removeprefix("binary: "))
            while len(c.buffer) < length + 1:
                c._fill(None)
            received += c.buffer[:length]
            c.buffer = c.buffer[length + 1:]
            assert c.read_line() == "OK"
            if len(received) >= size:
                break
        assert received == cover
        assert c.command(f"albumart Artist/Album/01.flac {len(cover) + 1}") == [
            "ACK [2@0] {albumart} Offset too large"]
        assert c.command("albumart Other/x.ogg 0") == ["ACK [50@0] {albumart} No file exists"]
        assert c.command("readpicture Other/x.ogg 0") == ["OK"]


def test_no_database_without_a_usable_db_file(make_tonearm, tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    server = make_tonearm(extra_config=f'db_file "{blocker}/db.sqlite"\n')
    with server.connect() as c:
        assert c.command("lsinfo") == ["ACK [50@0] {lsinfo} No database"]
        assert c.command("stats")[-1] == "OK"


def uris(lines):
    return [line.removeprefix("file: ") for line in lines if line.startswith("file: ")]


def test_find_is_exact_and_search_folds_case(library):
    with library.connect() as c:
        assert uris(c.command("find artist Björk")) == ["Artist/Album/01.flac", "Artist/Album/02.flac"]
        assert uris(c.command("find artist björk")) == []
        assert uris(c.command("search artist BJÖ")) == ["Artist/Album/01.flac", "Artist/Album/02.flac"]
        assert uris(c.command("search \"(title == 'crying')\"")) == ["Artist/Album/02.flac"]
        assert uris(c.command("search \"(title == 'cry')\"")) == []
        assert uris(c.command("find \"(title contains_ci 'BEHAV')\"")) == ["Artist/Album/01.flac"]
        assert uris(c.command("search \"(title starts_with 'at the')\"")) == ["root.flac"]
        assert uris(c.command("search \"(title =~ '^x .QUO')\"")) == ["Other/x.ogg"]
        assert uris(c.command("find \"(title =~ '^x .QUO')\"")) == []


def test_filters_combine_negate_and_fall_back(library):
    with library.connect() as c:
        both = "find \"((artist == 'Björk') AND (!(title == 'Crying')))\""
        assert uris(c.command(both)) == ["Artist/Album/01.flac"]
        # AlbumArtist falls back to Artist; an empty value matches songs without the tag.
        assert uris(c.command("find albumartist Other")) == ["Other/x.ogg"]
        assert uris(c.command("find \"(artist == '')\"")) == ["root.flac"]
        assert uris(c.command("find \"(base 'Artist')\"")) == ["Artist/Album/01.flac", "Artist/Album/02.flac"]
        assert uris(c.command("find \"(file == 'root.flac')\"")) == ["root.flac"]
        assert uris(c.command("find \"(AudioFormat =~ '44100:*:1')\"")) == uris(c.command("listall"))
        assert uris(c.command("find \"(modified-since '2000-01-01')\"")) == uris(c.command("listall"))


def test_sort_and_window(library):
    with library.connect() as c:
        assert uris(c.command("find \"(base '')\" sort -Title")) == [
            "Other/x.ogg", "Artist/Album/01.flac", "Artist/Album/02.flac", "root.flac"]
        assert uris(c.command("find \"(base '')\" sort Track window 1:3")) == [
            "Other/x.ogg", "Artist/Album/01.flac"]
        assert c.command("find artist x sort Nope") == ["ACK [2@0] {find} Unknown sort tag"]


def test_count_and_list(library):
    with library.connect() as c:
        assert c.command("count artist Björk") == ["songs: 2", "playtime: 3", "OK"]
        assert c.command("count group artist") == [
            "Artist: ", "songs: 1", "playtime: 1", "Artist: Björk", "songs: 2", "playtime: 3",
            "Artist: Other", "songs: 1", "playtime: 1", "OK"]
        assert c.command("searchcount title a") == ["songs: 2", "playtime: 2", "OK"]
        assert c.command("list artist") == ["Artist: ", "Artist: Björk", "Artist: Other", "OK"]
        assert c.command("list album group artist") == [
            "Artist: ", "Album: ", "Artist: Björk", "Album: Debut", "Artist: Other", "Album: ", "OK"]
        assert c.command("list album Björk") == ["Album: Debut", "OK"]
        assert c.command("list title \"(artist == 'Other')\"") == ['Title: X "quoted"', "OK"]


def test_malformed_filters_get_mpds_errors(library):
    with library.connect() as c:
        assert c.command("find") == ['ACK [2@0] {find} too few arguments for "find"']
        assert c.command("find artist") == ["ACK [2@0] {find} Incorrect number of filter arguments"]
        assert c.command("find \"(artist == \"") == ["ACK [2@0] {find} Quoted string expected"]
        assert c.command("find \"(bogus == 'x')\"") == ["ACK [2@0] {find} Unknown filter type: bogus"]
        assert c.command("find \"(artist == 'x') junk\"") == ["ACK [2@0] {find} Unparsed garbage after expression"]
        assert c.command("list bogus") == ["ACK [2@0] {list} Unknown tag type: bogus"]
        assert c.command("list album group album") == ["ACK [2@0] {list} Conflicting group"]
        assert c.command("ping") == ["OK"]


# auto_update: changes on disk reach the database without an `update` command.

def stats_of(c) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in c.command("stats")[:-1])


def wait_until(condition, what: str, timeout: float = 30):
    """Polls `condition` until it holds; MPD waits 5 s after the last change, Tonearm 1 s, and
    the limit is generous on purpose: only the outcome is asserted, never how fast it came."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"auto_update did not {what} within {timeout} s")


@pytest.fixture(params=["tonearm", "mpd"])
def watched(request, music, tmp_path):
    """Tonearm and Debian's MPD, each with auto_update on a private copy of the library."""
    kind = TonearmServer if request.param == "tonearm" else MPDServer
    with kind(tmp_path / request.param, extra_config='auto_update "yes"\n',
              music_dir=library_copy(music, tmp_path)) as server:
        with server.connect() as c:
            wait_until(lambda: stats_of(c)["songs"] == "4" and not any(
                line.startswith("updating_db:") for line in c.command("status")), "finish the first scan")
        yield server


def test_auto_update_follows_files_and_new_directories(watched):
    music = watched.music_dir
    with watched.connect() as waiting, watched.connect() as c:
        waiting.send("idle database\n")
        assert waiting.nothing_within(0.2)
        shutil.copyfile(music / "Artist/Album/02.flac", music / "Other/copy.flac")
        (music / "Artist/Album/01.flac").unlink()
        # No update command: the watcher queues one, which wakes the idle client.
        assert waiting.read_response(timeout=30) == ["changed: database", "OK"]
        wait_until(lambda: c.command("lsinfo Other/copy.flac")[0] == "file: Other/copy.flac"
                   and c.command("lsinfo Artist/Album/01.flac")[0].startswith("ACK"), "add and remove songs")
        assert stats_of(c)["songs"] == "4"

        # A new directory: its song shows up, and the directory is watched from then on.
        (music / "New/Sub").mkdir(parents=True)
        time.sleep(0.5)  # MPD (not Tonearm) misses files written before it has seen the directory
        shutil.copyfile(music / "Artist/Album/02.flac", music / "New/Sub/a.flac")
        wait_until(lambda: "file: New/Sub/a.flac" in c.command("listall New"), "find a new directory")
        shutil.copyfile(music / "Artist/Album/02.flac", music / "New/Sub/b.flac")
        wait_until(lambda: "file: New/Sub/b.flac" in c.command("listall New"), "watch a new directory")
        assert uris(c.command("listall New")) == ["New/Sub/a.flac", "New/Sub/b.flac"]
        wait_until(lambda: stats_of(c)["songs"] == "6", "count the new songs")

        # A directory deleted as a whole disappears, songs and all.
        shutil.rmtree(music / "New")
        wait_until(lambda: c.command("lsinfo New")[0].startswith("ACK"), "remove a deleted directory")
        wait_until(lambda: stats_of(c)["songs"] == "4", "count the removed songs")


def test_auto_update_sees_a_change_at_the_root_next_to_one_below(make_tonearm, music, tmp_path):
    """MPD 0.23 drops this root change: its queue takes "" for a path inside any pending one
    (InotifyQueue's path_in), so root.flac stays in its database until the next update."""
    server = make_tonearm('auto_update "yes"\n', music_dir=library_copy(music, tmp_path))
    with server.connect() as c:
        wait_for_update(c)
        shutil.copyfile(server.music_dir / "Other/x.ogg", server.music_dir / "Other/y.ogg")
        (server.music_dir / "root.flac").unlink()
        wait_until(lambda: c.command("lsinfo root.flac")[0].startswith("ACK"), "remove a song at the root")
        wait_until(lambda: c.command("lsinfo Other/y.ogg")[0] == "file: Other/y.ogg", "add a song below")


def test_auto_update_depth_limits_what_is_watched(make_tonearm, music, tmp_path):
    """With auto_update_depth 1, a change two levels down is only seen by the next change above
    it (or an update): the directory it lies in is not watched."""
    server = make_tonearm('auto_update "yes"\nauto_update_depth "1"\nlog_level "info"\n',
                          music_dir=library_copy(music, tmp_path))
    music_dir = server.music_dir
    with server.connect() as c:
        wait_for_update(c)
        shutil.copyfile(music_dir / "Artist/Album/01.flac", music_dir / "Artist/Album/03.flac")
        shutil.copyfile(music_dir / "Other/x.ogg", music_dir / "Other/y.ogg")
        wait_until(lambda: c.command("lsinfo Other/y.ogg")[0] == "file: Other/y.ogg", "see a watched directory")
        wait_for_update(c)
        assert c.command("lsinfo Artist/Album/03.flac")[0].startswith("ACK")
        assert "auto_update: watching 4 directories" in server.log_text()  # "", Artist, Other, Empty
    assert server.stop() == 0  # SIGTERM stops the watcher with the rest


# A scan killed at any moment leaves the last consistent database.

def check_database(path: Path) -> int:
    """SQLite's own checks on the database file, and the figures `stats` keeps against the rows;
    returns the number of songs."""
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        db.execute("INSERT INTO songTagText(songTagText) VALUES ('integrity-check')")
        songs = db.execute("SELECT count(*) FROM song").fetchone()[0]
        assert db.execute("SELECT value FROM meta WHERE key = 'songs'").fetchone() == (songs,)
        return songs


def test_a_scan_killed_midway_leaves_a_consistent_database(make_tonearm, music, tmp_path):
    server = make_tonearm(music_dir=library_copy(music, tmp_path))
    with server.connect() as c:
        wait_for_update(c)
        before = c.command("listallinfo")
    copies = 8000  # a scan of about a second in a debug build
    tiny = tmp_path / "tiny.flac"
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=d=0.01:sample_rate=8000",
                    "-metadata", "title=Copy", str(tiny)], check=True)
    for i in range(copies):
        folder = server.music_dir / f"Many/{i // 100:02}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tiny, folder / f"{i:04}.flac")

    # Kill at some moment inside the scan, not only at its start: a random pause first, then
    # `status`; the last tries have no pause, so one of them catches a scan running.
    pauses = [random.uniform(0, 0.5) for _ in range(3)] + [0, 0, 0]
    with server.connect() as c:
        for command, pause in zip(["update"] + ["rescan"] * 5, pauses):
            c.send(f"{command}\n")
            assert c.read_response()[0].startswith("updating_db: ")
            time.sleep(pause)
            if any(line.startswith("updating_db:") for line in c.command("status")):
                server.process.kill()
                server.process.wait()
                break
            wait_for_update(c)
        else:
            pytest.fail(f"no scan of {copies} files lasted long enough to be killed")

    assert check_database(server.workdir / "database.sqlite") in (4, 4 + copies)
    server.start()
    with server.connect() as c:
        songs = int(stats_of(c)["songs"])
        assert songs in (4, 4 + copies)
        if songs == 4:
            assert c.command("listallinfo") == before
        assert c.command("lsinfo")[-1] == "OK"
        assert c.command("update")[0].startswith("updating_db: ")
        wait_for_update(c, timeout=120)
        assert stats_of(c)["songs"] == str(4 + copies)
        assert len([line for line in c.command("lsinfo Many") if line.startswith("directory: ")]) == 80
    server.stop()
    assert check_database(server.workdir / "database.sqlite") == 4 + copies
