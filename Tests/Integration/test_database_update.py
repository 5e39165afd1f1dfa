"""update and rescan on a private copy of the fixture library (Tests/support/library.py):
the job id answer, the idle events a second connection sees, new and deleted files. Runs
against Tonearm and Debian's MPD 0.23."""
import os
import re
import shutil
import sys
import time
from pathlib import Path

import mpd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import uris, wait_for_scan, write_flac_comments  # noqa: E402

JOB = re.compile(r"^updating_db: \d+$")


def stats(c):
    return dict(line.split(": ", 1) for line in c.command("stats")[:-1])


def test_update_answers_a_job_id(private_db_server):
    with private_db_server.connect() as c:
        for command in ["update", "update /", 'update ""', "update Björk", "rescan", "rescan Various",
                        'update "Björk/Debut/01 Human Behaviour.flac"', "update nope"]:
            reply = c.command(command)
            assert len(reply) == 2 and JOB.match(reply[0]) and reply[1] == "OK", (command, reply)
            wait_for_scan(c)
        assert c.command("update ../x") == ["ACK [2@0] {update} Malformed path"]
        assert c.command("update a b") == ['ACK [2@0] {update} too many arguments for "update"']
        assert stats(c)["songs"] == "20"


def test_update_finds_new_and_deleted_files_and_raises_idle_events(private_db_server):
    music = private_db_server.library.root
    with private_db_server.connect() as watcher, private_db_server.connect() as c:
        watcher.send("idle database update\n")
        time.sleep(0.2)
        shutil.copy2(music / "intro.flac", music / "Various/Duets/02 Copy.flac")
        (music / "untagged.wav").unlink()
        reply = c.command("update")
        assert JOB.match(reply[0]) and reply[1:] == ["OK"]
        # The waiting idle wakes up with the job's start ("update"); the end of the job raises
        # "update" again and, as songs changed, "database": collect events until both are seen.
        events = set()
        response = watcher.read_response(timeout=10)
        while True:
            assert response[-1] == "OK" and response[:-1], response
            events |= set(response[:-1])
            if events >= {"changed: update", "changed: database"}:
                break
            watcher.send("idle database update\n")
            response = watcher.read_response(timeout=10)
        assert events == {"changed: update", "changed: database"}
        wait_for_scan(c)
        found = c.command("find title Intro")
        assert uris(found) == ["intro.flac", "Various/Duets/02 Copy.flac"]
        assert c.command("lsinfo untagged.wav") == ["ACK [50@0] {lsinfo} No such directory"]
        assert "file: untagged.wav" not in c.command("listall")
        assert stats(c)["songs"] == "20"


def test_update_of_a_directory_only_looks_there(private_db_server):
    music = private_db_server.library.root
    with private_db_server.connect() as c:
        shutil.copy2(music / "intro.flac", music / "Various/new.flac")
        shutil.copy2(music / "intro.flac", music / "Björk/new.flac")
        assert JOB.match(c.command("update Various")[0])
        wait_for_scan(c)
        assert uris(c.command("find title Intro")) == ["intro.flac", "Various/new.flac"]
        assert JOB.match(c.command("update")[0])
        wait_for_scan(c)
        assert uris(c.command("find title Intro")) == ["intro.flac", "Björk/new.flac", "Various/new.flac"]


def test_rescan_rereads_unchanged_files(private_db_server):
    with private_db_server.connect() as watcher, private_db_server.connect() as c:
        watcher.send("idle update\n")
        time.sleep(0.2)
        assert JOB.match(c.command("rescan")[0])
        assert watcher.read_response(timeout=10) == ["changed: update", "OK"]
        wait_for_scan(c)
        assert stats(c)["songs"] == "20"


def _retag_in_place(path: Path, replacements: list[tuple[bytes, bytes]]):
    """Swaps tag text for text of the same length and puts the file's mtime back: the size and
    time `update` compares stay as they were, and only `rescan` can see the change."""
    before = path.stat()
    data = path.read_bytes()
    for old, new in replacements:
        assert len(old) == len(new) and data.count(old) == 1, old
        data = data.replace(old, new)
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size


def test_rescan_finds_tags_changed_without_a_new_mtime(private_db_server):
    """Tonearm skips the writes for a file whose tags came back as they were stored: this is
    the file whose tags did change, and every view of them must show it."""
    music = private_db_server.library.root
    duet = "Various/Duets/01 Duet.flac"
    _retag_in_place(music / duet, [(b"ALBUM=Duets", b"ALBUM=Dueto"), (b"GENRE=Jazz", b"GENRE=Funk")])
    with private_db_server.connect() as c:
        assert JOB.match(c.command("update")[0])
        wait_for_scan(c)
        assert uris(c.command("find album Duets")) == [duet]
        assert JOB.match(c.command("rescan")[0])
        wait_for_scan(c)
        assert uris(c.command("find album Dueto")) == [duet]
        assert uris(c.command("search album ueto")) == [duet]
        assert c.command("find album Duets") == ["OK"]
        assert c.command("search album uets") == ["OK"]
        assert uris(c.command("find genre Funk")) == [duet]
        assert c.command("find genre Jazz") == ["OK"]
        genres = c.command("list genre")
        assert "Genre: Funk" in genres and "Genre: Jazz" not in genres
        assert "Album: Dueto" in c.command("list album group albumartist")
        block = c.command(f'lsinfo "{duet}"')
        assert [line for line in block if line.startswith(("Album:", "Genre:"))] == [
            "Album: Dueto", "Genre: Rock", "Genre: Funk"]


def test_a_rescan_that_changes_nothing_leaves_every_answer_as_it_was(private_db_server):
    """MPD counts every file a rescan read as a change: idle `database` and a new `db_update`,
    with every answer about the songs as before."""
    queries = ["listallinfo", "list album group albumartist", "count group artist", "search title e",
               "find genre Rock", "list genre", "listall"]
    with private_db_server.connect() as watcher, private_db_server.connect() as c:
        before = {query: c.command(query) for query in queries}
        figures = stats(c)
        time.sleep(1.1)  # db_update counts seconds
        watcher.send("idle database\n")
        time.sleep(0.2)
        assert JOB.match(c.command("rescan")[0])
        assert watcher.read_response(timeout=10) == ["changed: database", "OK"]
        wait_for_scan(c)
        assert {query: c.command(query) for query in queries} == before
        after = stats(c)
        assert int(after.pop("db_update")) > int(figures.pop("db_update"))
        for volatile in ("uptime", "playtime"):
            after.pop(volatile), figures.pop(volatile)
        assert after == figures


def test_rescan_drops_removed_files_and_adds_new_ones(private_db_server):
    music = private_db_server.library.root
    with private_db_server.connect() as c:
        (music / "Various/Duets/01 Duet.flac").unlink()
        shutil.copy2(music / "intro.flac", music / "Various/Field/intro again.flac")
        assert JOB.match(c.command("rescan")[0])
        wait_for_scan(c)
        assert c.command("find album Duets") == ["OK"]
        assert c.command("search artist \"artist a\"") != ["OK"]  # Song A's artist stays
        assert "Artist: Artist A" in c.command("list artist")
        assert uris(c.command("find title Intro")) == ["intro.flac", "Various/Field/intro again.flac"]
        assert stats(c)["songs"] == "20"


def test_python_client_update(private_db_server):
    client = mpd.MPDClient()
    client.connect(private_db_server.host, private_db_server.port)
    try:
        job = client.update()
        assert job.isdigit() and int(job) > 0
        for _ in range(200):
            if "updating_db" not in client.status():
                break
            time.sleep(0.05)
        assert client.stats()["songs"] == "20"
    finally:
        client.disconnect()


def test_list_and_count_group_follow_updates(private_db_server):
    """Whole-library `list … group` and `count group` (which Tonearm answers from groupings it
    keeps in memory) show a new song, a retagged one and a deleted one after each update, and
    the same answer again when nothing changed."""
    music = private_db_server.library.root
    queries = ["list album group albumartist", "count group artist", "list genre", "list date group genre group artist"]

    def answers(c):
        return {query: c.command(query) for query in queries}

    def update(c, command="update"):
        assert JOB.match(c.command(command)[0])
        wait_for_scan(c)

    with private_db_server.connect() as c:
        before = answers(c)
        assert answers(c) == before
        added = music / "Various/new.flac"
        shutil.copy2(music / "intro.flac", added)
        write_flac_comments(added, [("ARTIST", "Zed"), ("ALBUMARTIST", "Zed"), ("ALBUM", "Zed Album"),
                                    ("GENRE", "Zydeco"), ("DATE", "1999"), ("TITLE", "New")])
        update(c)
        after = answers(c)
        assert "Album: Zed Album" in after["list album group albumartist"]
        assert "Album: Zed Album" not in before["list album group albumartist"]
        zed = after["count group artist"].index("Artist: Zed")
        assert after["count group artist"][zed + 1] == "songs: 1"
        assert "Genre: Zydeco" in after["list genre"]
        nested = after["list date group genre group artist"]
        zed = nested.index("Artist: Zed")
        assert nested[zed:zed + 3] == ["Artist: Zed", "Genre: Zydeco", "Date: 1999"]
        # A retag of the same file: its old values are gone.
        write_flac_comments(added, [("ARTIST", "Zed"), ("ALBUMARTIST", "Zed"), ("ALBUM", "Zed Two"), ("TITLE", "New")])
        later = added.stat().st_mtime + 10  # a new mtime, so that the update reads the file again
        os.utime(added, (later, later))
        update(c)
        retagged = answers(c)
        assert "Album: Zed Two" in retagged["list album group albumartist"]
        assert "Album: Zed Album" not in retagged["list album group albumartist"]
        assert "Genre: Zydeco" not in retagged["list genre"]
        update(c, "rescan")
        assert answers(c) == retagged
        added.unlink()
        update(c)
        assert answers(c) == before


def test_an_update_drops_removed_songs_from_the_queue_but_not_the_one_playing(private_db_server):
    """MPD's `StaleSong`: every queued entry of a removed song goes, except the song playing, whose
    file is still open; the queue's version moves and idle `playlist` is raised."""
    music = private_db_server.library.root
    with private_db_server.connect() as watcher, private_db_server.connect() as c:
        for uri in ("intro.flac", "untagged.wav", "intro.flac", "Various/Duets/01 Duet.flac", "untagged.wav"):
            assert c.command(f'add "{uri}"')[-1] == "OK"
        # The first untagged.wav, paused there so that it cannot end meanwhile: a paused song
        # is the one playing too.
        assert c.command("play 1")[-1] == "OK"
        assert c.command("pause 1") == ["OK"]
        version = dict(line.split(": ", 1) for line in c.command("status")[:-1])["playlist"]
        watcher.send("idle playlist\n")
        time.sleep(0.2)
        (music / "intro.flac").unlink()
        (music / "untagged.wav").unlink()
        assert JOB.match(c.command("update")[0])
        assert watcher.read_response(timeout=10) == ["changed: playlist", "OK"]
        wait_for_scan(c)
        assert c.command("playlist") == ["0:file: untagged.wav", "1:file: Various/Duets/01 Duet.flac", "OK"]
        status = dict(line.split(": ", 1) for line in c.command("status")[:-1])
        assert status["song"] == "0" and int(status["playlist"]) > int(version)
