"""Play statistics kept by the server (issue 6, beyond MPD; Tonearm only): with
`sticker_play_stats "yes"` (the default) a song heard past half its length (or four minutes)
gets `playCount` + 1 and `lastPlayed` (Unix time); one left earlier by `next` (or by playing
another song) gets `skipCount` + 1. Plays the 2-second songs of the short-track library to the
end and skips the 120-second one, then reads the stickers with `sticker get`, `list` and
`find`. The writes are asynchronous: the tests wait for them, never for a time."""
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.clients import mpc_out  # noqa: E402
from support.library import wait_for_scan  # noqa: E402
from support.playback import A1, A2, A3, B1, B2, B3, LONG, wait_state, wait_status  # noqa: E402
from support.polling import poll  # noqa: E402


def q(uri: str) -> str:
    return f'"{uri}"'


def sticker(c, uri: str, name: str) -> str | None:
    reply = c.command(f"sticker get song {q(uri)} {name}")
    return reply[0].split("=", 1)[1] if reply[-1] == "OK" else None


def start(make_tonearm, short_library, extra=""):
    server = make_tonearm(extra, music_dir=short_library)
    with server.connect() as c:
        wait_for_scan(c)
    return server


def test_songs_played_to_the_end_and_skipped(make_tonearm, short_library):
    server = start(make_tonearm, short_library)
    with server.connect() as c, server.connect() as watcher:
        for uri in (A1, A2, LONG, A3):
            assert c.command(f"add {q(uri)}") == ["OK"]
        before = int(time.time())
        assert c.command("play 0") == ["OK"]
        # A1 and A2 (2 s each) play to their end; then the 120 s song is skipped at once.
        wait_status(c, lambda s: s.get("song") == "2", timeout=30, what="the long song")
        watcher.send("idle sticker\n")
        assert c.command("next") == ["OK"]
        wait_state(c, "stop", timeout=30)  # A3 played to its end and the queue ran out
        assert watcher.read_response(timeout=10) == ["changed: sticker", "OK"]
        poll("A3's playCount", lambda: sticker(c, A3, "playCount"))
        after = int(time.time())

        for uri in (A1, A2, A3):
            assert sticker(c, uri, "playCount") == "1", uri
            assert before <= int(sticker(c, uri, "lastPlayed")) <= after, uri
            assert sticker(c, uri, "skipCount") is None, uri
        assert sticker(c, LONG, "skipCount") == "1"
        assert sticker(c, LONG, "playCount") is None and sticker(c, LONG, "lastPlayed") is None
        listed = c.command(f"sticker list song {q(A1)}")
        assert [line.split("=")[0] for line in listed[:-1]] == ["sticker: lastPlayed", "sticker: playCount"]
        assert c.command('sticker find song "" skipCount') == [f"file: {LONG}", "sticker: skipCount=1", "OK"]
        assert c.command('sticker find song "Album A" playCount') == [
            f"file: {A1}", "sticker: playCount=1", f"file: {A2}", "sticker: playCount=1",
            f"file: {A3}", "sticker: playCount=1", "OK"]
        assert c.command("stickernames") == ["name: lastPlayed", "name: playCount", "name: skipCount", "OK"]
        # What a client that reads stickers shows: mpc's sticker commands, and python-mpd2's.
        played_at = sticker(c, A1, "lastPlayed")
        assert mpc_out(server, "sticker", A1, "list") == f"lastPlayed={played_at}\nplayCount=1\n"
        assert mpc_out(server, "sticker", "Album A", "find", "playCount") == "".join(
            f"{uri}: playCount=1\n" for uri in (A1, A2, A3))
        import mpd
        client = mpd.MPDClient()
        client.connect("127.0.0.1", server.port)
        try:
            assert client.sticker_list("song", LONG) == {"skipCount": "1"}
            assert client.sticker_get("song", A3, "playCount") == "1"
        finally:
            client.disconnect()

        # Played again, the count goes up; leaving the long song with `play` of another one is
        # a skip too; stopping it early is neither.
        assert c.command("play 2") == ["OK"]
        wait_status(c, lambda s: s.get("song") == "2" and s.get("state") == "play", what="the long song")
        assert c.command("play 0") == ["OK"]
        wait_status(c, lambda s: s.get("song") == "1", timeout=30, what="A2, after A1 ended")
        assert c.command("stop") == ["OK"]
        poll("A1's second play", lambda: sticker(c, A1, "playCount") == "2")
        poll("the long song's second skip", lambda: sticker(c, LONG, "skipCount") == "2")
        assert c.command("play 2") == ["OK"]
        wait_status(c, lambda s: s.get("song") == "2" and s.get("state") == "play", what="the long song")
        assert c.command("stop") == ["OK"]  # neither played nor skipped: nothing is written for it
        # The writes are made one after another in the order the songs were left: once A1's
        # third play (to its end) is written, whatever the stop had recorded would be too.
        assert c.command("play 0") == ["OK"]
        poll("A1's third play", lambda: sticker(c, A1, "playCount") == "3")
        assert sticker(c, LONG, "skipCount") == "2" and sticker(c, LONG, "playCount") is None


def test_sticker_play_stats_no_keeps_nothing(make_tonearm, short_library):
    server = start(make_tonearm, short_library, 'sticker_play_stats "no"\n')
    with server.connect() as c:
        assert c.command(f"add {q(A1)}") == ["OK"] and c.command(f"add {q(LONG)}") == ["OK"]
        assert c.command("play 0") == ["OK"]
        wait_status(c, lambda s: s.get("song") == "1", timeout=30, what="the long song")
        assert c.command("next") == ["OK"]
        wait_state(c, "stop")
        assert c.command("stickernames") == ["OK"]
        assert c.command(f"sticker list song {q(A1)}") == ["OK"]


def test_without_sticker_file_nothing_is_kept_and_playback_works(make_tonearm, short_library):
    server = start(make_tonearm, short_library, 'sticker_file ""\n')
    with server.connect() as c:
        assert c.command(f"add {q(A1)}") == ["OK"]
        assert c.command("play 0") == ["OK"]
        wait_state(c, "stop", timeout=30)
    assert not (server.workdir / "stickers.sqlite").exists()


def test_a_burst_of_short_songs_raises_few_sticker_events(make_tonearm, short_library):
    """Each write of the statistics raises idle `sticker`, at most once per 5 s: Cantata answers
    each such event by fetching the rating of every queue row it shows, and six 2-second songs
    cost it six rounds of fetches before (issue 21). Counted by a client that idles on
    `sticker` the whole time, as Cantata does; the last song's counts still arrive."""
    server = start(make_tonearm, short_library)
    songs = [A1, A2, A3, B1, B2, B3]
    with server.connect() as c, server.connect() as watcher:
        for uri in songs:
            assert c.command(f"add {q(uri)}") == ["OK"]
        assert c.command("play 0") == ["OK"]
        events = 0
        while sticker(c, songs[-1], "playCount") is None or events == 0:
            watcher.send("idle sticker\n")
            if watcher.nothing_within(1):
                watcher.send("noidle\n")
            reply = watcher.read_response(timeout=30)
            events += reply == ["changed: sticker", "OK"]
        # The last write's event may still be due, at most 5 s on.
        watcher.send("idle sticker\n")
        if watcher.nothing_within(6):
            watcher.send("noidle\n")
        events += watcher.read_response(timeout=10) == ["changed: sticker", "OK"]
        assert all(sticker(c, uri, "playCount") == "1" for uri in songs)
        # Six writes in about 12 s: one at once, then at most one per 5 s.
        assert 1 <= events <= 4, events


@pytest.mark.parametrize("protocol", ["0.24", "0.23"])
def test_a_client_that_counts_plays_itself_is_not_counted_twice(make_tonearm, short_library, protocol):
    """myMPD keeps playCount and lastPlayed itself: on its own connection, once half a song is
    heard, it sets lastPlayed and adds one to playCount — with `sticker inc` where the server
    speaks 0.24, else by reading the count (`sticker list`) and setting it one higher. While
    such a client is connected the server leaves the counting to it; once it is gone, the
    server counts again (docs/play-statistics.md)."""
    server = start(make_tonearm, short_library)
    with server.connect() as c:
        for uri in (A1, A2):
            assert c.command(f"add {q(uri)}") == ["OK"]
        with server.connect() as mympd:
            assert c.command("play 0") == ["OK"]
            wait_status(c, lambda s: s.get("song") == "0" and float(s.get("elapsed", 0)) >= 1, what="half of A1")
            assert mympd.command(f"sticker set song {q(A1)} lastPlayed {int(time.time())}") == ["OK"]
            if protocol == "0.24":
                assert mympd.command(f"sticker inc song {q(A1)} playCount 1") == ["OK"]
            else:
                count = sticker(mympd, A1, "playCount")  # myMPD lists the song's stickers
                assert mympd.command(f"sticker set song {q(A1)} playCount {int(count or 0) + 1}") == ["OK"]
            wait_status(c, lambda s: s.get("song") == "1", timeout=30, what="A2, after A1 ended")
        # myMPD has gone: A2, heard to its end, is counted by the server.
        wait_state(c, "stop", timeout=30)
        poll("A2's playCount", lambda: sticker(c, A2, "playCount"))
        assert sticker(c, A1, "playCount") == "1"
        assert sticker(c, A2, "playCount") == "1"
