"""The player's commands: status during stop, play and pause; play, playid, pause, stop, next,
previous, seek, seekid, seekcur; the options random/repeat/single/consume/crossfade/mixramp*/
replay_gain_mode and their bad values; setvol/volume/getvol with and without a mixer;
clearerror and a song that cannot be played.

Every test runs against Tonearm and Debian's MPD 0.23 on the short-track library
(Tests/support/playback.py) and asserts what MPD answers. Timing is never asserted: a test waits
for a state with a generous timeout, and checks elapsed only against wide bounds. Song
transitions and idle events are in test_playback.py."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.playback import (A1, LONG, SOFTWARE_MIXER, fields, keys, pending_events, queue_uris,  # noqa: E402
                              status, wait_elapsed, wait_status)

PLAYING = ["time", "elapsed", "bitrate", "duration", "audio"]


def status_keys(server, *tail, volume=False):
    """status's field order (§1.15). MPD 0.24 always prints `lastloadedplaylist` after `state`;
    Debian's 0.23 does not have it."""
    head = ["repeat", "random", "single", "consume", "partition", "playlist", "playlistlength", "mixrampdb", "state"]
    if server.kind == "tonearm":
        head.append("lastloadedplaylist")
    return (["volume"] if volume else []) + head + list(tail)


def add_longs(c, count=3):
    for _ in range(count):
        c.command(f'add "{LONG}"')


def test_status_when_stopped_playing_and_paused(player_server):
    with player_server.connect() as c:
        lines = c.command("status")
        assert keys(lines) == status_keys(player_server)
        assert lines[:9] == ["repeat: 0", "random: 0", "single: 0", "consume: 0", "partition: default", "playlist: 1",
                             "playlistlength: 0", "mixrampdb: 0", "state: stop"]
        if player_server.kind == "tonearm":
            assert lines[9] == "lastloadedplaylist: "  # with its trailing space
        c.command('add "Album A"')
        c.command(f'add "{LONG}"')
        c.command("play 3")
        now = wait_elapsed(c, 0.1)  # the output runs: bitrate and audio are known
        assert keys(c.command("status")) == status_keys(player_server, "song", "songid", *PLAYING)
        assert (now["song"], now["songid"], now["duration"], now["audio"]) == ("3", "4", "120.000", "8000:16:1")
        assert now["time"].endswith(":120") and int(now["bitrate"]) >= 0
        c.command("play 0")  # not the last song: nextsong/nextsongid close the list
        wait_elapsed(c, 0.1)
        playing = c.command("status")
        assert keys(playing) == status_keys(player_server, "song", "songid", *PLAYING, "nextsong", "nextsongid")
        assert fields(playing)["nextsong"] == "1" and fields(playing)["nextsongid"] == "2"
        assert fields(playing)["duration"] == "2.000"
        c.command("pause")
        paused = status(c)
        assert paused["state"] == "pause" and keys(c.command("status")) == keys(playing)
        assert status(c)["elapsed"] == paused["elapsed"]  # paused: elapsed stands still
        c.command("stop")  # the current song stays selected; nothing about time
        assert keys(c.command("status")) == status_keys(player_server, "song", "songid", "nextsong", "nextsongid")
        c.command("crossfade 3")
        c.command("mixrampdelay 1.5")
        assert keys(c.command("status")) == status_keys(player_server, "xfade", "mixrampdelay", "song", "songid",
                                                        "nextsong", "nextsongid")


def test_play_and_playid(player_server):
    with player_server.connect() as c:
        assert c.command("play") == ["OK"] and c.command("playid") == ["OK"]  # empty queue: nothing, no error
        assert status(c)["state"] == "stop"
        assert c.command("play 0") == ["ACK [2@0] {play} Bad song index"]
        assert c.command("playid 1") == ["ACK [50@0] {playid} No such song"]
        add_longs(c)
        assert c.command("play 3") == ["ACK [2@0] {play} Bad song index"]
        assert c.command("play -2") == ["ACK [2@0] {play} Bad song index"]
        assert c.command("play x") == ["ACK [2@0] {play} Integer expected: x"]
        assert c.command("play 1 2") == ['ACK [2@0] {play} too many arguments for "play"']
        assert c.command("playid 9") == ["ACK [50@0] {playid} No such song"]
        assert c.command("playid x") == ["ACK [2@0] {playid} Integer expected: x"]
        assert status(c)["state"] == "stop"
        # -1 means "no argument" (MPD 0.23 and 0.24; master rejects it): the first song here.
        assert c.command("play -1") == ["OK"]
        assert (status(c)["state"], status(c)["songid"]) == ("play", "1")
        assert c.command("playid 3") == ["OK"] and status(c)["songid"] == "3"
        c.command("stop")
        assert c.command("playid") == ["OK"]  # resumes the current song
        assert (status(c)["state"], status(c)["songid"]) == ("play", "3")
        c.command("seekcur 30")
        assert c.command("play") == ["OK"]  # already playing: nothing changes
        assert status(c)["songid"] == "3" and float(status(c)["elapsed"]) >= 30
        c.command("pause 1")
        assert c.command("play") == ["OK"]  # paused: resumes where it was
        now = status(c)
        assert (now["state"], now["songid"]) == ("play", "3") and float(now["elapsed"]) >= 30


def test_pause(player_server):
    with player_server.connect() as c:
        add_longs(c, 1)
        for command in ["pause", "pause 1", "pause 0"]:  # stopped: accepted, nothing happens
            assert c.command(command) == ["OK"]
            assert status(c)["state"] == "stop"
        c.command("play 0")
        for command, state in [("pause", "pause"), ("pause", "play"), ("pause 1", "pause"), ("pause 1", "pause"),
                               ("pause 0", "play"), ("pause 0", "play")]:
            assert c.command(command) == ["OK"]
            assert status(c)["state"] == state, command
        assert c.command("pause 2") == ["ACK [2@0] {pause} Boolean (0/1) expected: 2"]
        assert c.command("pause x") == ["ACK [2@0] {pause} Boolean (0/1) expected: x"]
        assert c.command("pause 0 1") == ['ACK [2@0] {pause} too many arguments for "pause"']


def test_stop_keeps_the_current_song(player_server):
    with player_server.connect() as c:
        add_longs(c)
        c.command("play 1")
        assert c.command("stop") == ["OK"] and c.command("stop") == ["OK"]
        now = status(c)
        assert (now["state"], now["song"], now["songid"], now["nextsongid"]) == ("stop", "1", "2", "3")
        assert "Pos: 1" in c.command("currentsong") and "Id: 2" in c.command("currentsong")
        assert c.command("stop 1") == ['ACK [2@0] {stop} wrong number of arguments for "stop"']


def test_next_and_previous(player_server):
    with player_server.connect() as c:
        add_longs(c)
        assert c.command("next") == ["ACK [55@0] {next} Not playing"]
        assert c.command("previous") == ["ACK [55@0] {previous} Not playing"]
        c.command("play 1")
        c.command("stop")
        assert c.command("next") == ["ACK [55@0] {next} Not playing"]  # a current song is not enough
        c.command("play 1")
        assert c.command("next") == ["OK"] and status(c)["songid"] == "3"
        assert c.command("next") == ["OK"]  # past the last song: stop, and no current song any more
        now = status(c)
        assert now["state"] == "stop" and "song" not in now and "songid" not in now
        c.command("play 2")
        assert c.command("previous") == ["OK"] and status(c)["songid"] == "2"
        assert c.command("previous") == ["OK"] and status(c)["songid"] == "1"
        c.command("seekcur 30")
        assert c.command("previous") == ["OK"]  # at the first song: it starts again
        assert status(c)["songid"] == "1" and float(status(c)["elapsed"]) < 30
        c.command("repeat 1")
        assert c.command("previous") == ["OK"] and status(c)["songid"] == "3"  # repeat: round to the last
        assert c.command("next") == ["OK"] and status(c)["songid"] == "1"  # and on to the first
        c.command("repeat 0")
        c.command("pause 1")
        assert c.command("next") == ["OK"]  # paused: next plays
        assert (status(c)["state"], status(c)["songid"]) == ("play", "2")
        c.command("single 1")
        assert c.command("next") == ["OK"]  # single does not stop a `next`
        assert (status(c)["state"], status(c)["songid"]) == ("play", "3")
        c.command("previous")
        c.command("consume 1")
        assert c.command("next") == ["OK"]  # consume: the song it leaves is deleted
        assert (status(c)["state"], status(c)["songid"], status(c)["playlistlength"]) == ("play", "3", "2")
        assert c.command("next") == ["OK"]
        now = status(c)
        assert (now["state"], now["playlistlength"]) == ("stop", "1") and "song" not in now
        assert c.command("next x") == ['ACK [2@0] {next} wrong number of arguments for "next"']


def test_seek_seekid_seekcur(player_server):
    def elapsed(c):
        return float(status(c)["elapsed"])

    with player_server.connect() as c:
        add_longs(c, 2)
        c.command(f'add "{A1}"')
        assert c.command("seekcur 5") == ["ACK [55@0] {seekcur} Not playing"]
        assert c.command("seekcur +5") == ["ACK [55@0] {seekcur} Not playing"]
        assert c.command("seek 0 50") == ["OK"]  # stopped: seek starts playback there
        assert status(c)["state"] == "play" and 50 <= elapsed(c) < 60
        assert c.command("seekcur 10") == ["OK"] and 10 <= elapsed(c) < 20
        assert c.command("seekcur +5") == ["OK"] and 15 <= elapsed(c) < 25
        assert c.command("seekcur -30") == ["OK"] and elapsed(c) < 10  # clamped at 0
        assert c.command("seekcur +1.5") == ["OK"] and 1.5 <= elapsed(c) < 10
        assert c.command("seekid 2 30") == ["OK"]
        assert status(c)["songid"] == "2" and 30 <= elapsed(c) < 40
        c.command("pause 1")
        assert c.command("seekcur 60") == ["OK"]  # paused: stays paused, at the new place
        assert (status(c)["state"], status(c)["elapsed"]) == ("pause", "60.000")
        assert c.command("seek 0 20") == ["OK"]
        assert (status(c)["state"], status(c)["songid"], status(c)["elapsed"]) == ("pause", "1", "20.000")
        for command, error in [
                ("seek 0 -1", "ACK [2@0] {seek} Negative value not allowed: -1"),
                ("seek 0 x", "ACK [2@0] {seek} Float expected: x"),
                ("seek 3 1", "ACK [2@0] {seek} Bad song index"),
                ("seek x 1", "ACK [2@0] {seek} Integer expected: x"),
                ("seek 0", 'ACK [2@0] {seek} wrong number of arguments for "seek"'),
                ("seekid 9 1", "ACK [50@0] {seekid} No such song"),
                ("seekid x 1", "ACK [2@0] {seekid} Integer expected: x"),
                ("seekid 1 -1", "ACK [2@0] {seekid} Negative value not allowed: -1"),
                ("seekcur x", "ACK [2@0] {seekcur} Float expected: x"),
                ("seekcur", 'ACK [2@0] {seekcur} wrong number of arguments for "seekcur"')]:
            assert c.command(command) == [error]
        assert status(c)["elapsed"] == "20.000"


def test_options_and_their_bad_values(player_server):
    with player_server.connect() as c:
        for command, key, value in [("repeat 1", "repeat", "1"), ("random 1", "random", "1"),
                                    ("single 1", "single", "1"), ("single oneshot", "single", "oneshot"),
                                    ("consume 1", "consume", "1"), ("repeat 00", "repeat", "0"),
                                    ("crossfade 5", "xfade", "5"), ("mixrampdb -17.5", "mixrampdb", "-17.5"),
                                    ("mixrampdb -17", "mixrampdb", "-17"), ("mixrampdelay 1.5", "mixrampdelay", "1.5")]:
            assert c.command(command) == ["OK"]
            assert status(c)[key] == value, command
        for command in ["random 0", "single 0", "consume 0", "crossfade 0", "mixrampdelay 0", "mixrampdb 0"]:
            assert c.command(command) == ["OK"]
        assert c.command("status")[:9] == ["repeat: 0", "random: 0", "single: 0", "consume: 0", "partition: default",
                                           "playlist: 1", "playlistlength: 0", "mixrampdb: 0", "state: stop"]
        assert "xfade" not in status(c) and "mixrampdelay" not in status(c)
        assert c.command("mixrampdelay -1") == ["OK"] and "mixrampdelay" not in status(c)
        for command, error in [
                ("repeat 2", "ACK [2@0] {repeat} Boolean (0/1) expected: 2"),
                ("repeat x", "ACK [2@0] {repeat} Boolean (0/1) expected: x"),
                ("repeat", 'ACK [2@0] {repeat} wrong number of arguments for "repeat"'),
                ("random yes", "ACK [2@0] {random} Boolean (0/1) expected: yes"),
                ("single 2", "ACK [2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot"),
                ("crossfade -1", "ACK [2@0] {crossfade} Number too large: -1"),
                ("crossfade 1.5", "ACK [2@0] {crossfade} Integer expected: 1.5"),
                ("mixrampdb x", "ACK [2@0] {mixrampdb} Float expected: x"),
                ("mixrampdelay x", "ACK [2@0] {mixrampdelay} Float expected: x"),
                ("replay_gain_mode bogus", "ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode"),
                ("replay_gain_status x",
                 'ACK [2@0] {replay_gain_status} wrong number of arguments for "replay_gain_status"')]:
            assert c.command(command) == [error]
        assert c.command("replay_gain_status") == ["replay_gain_mode: off", "OK"]
        for mode in ["track", "album", "auto", "off"]:
            assert c.command(f"replay_gain_mode {mode}") == ["OK"]
            assert c.command("replay_gain_status") == [f"replay_gain_mode: {mode}", "OK"]


def test_consume_oneshot_is_new_in_0_24(player_server):
    """MPD 0.24 added `consume oneshot`; Debian's 0.23 takes a boolean only."""
    with player_server.connect() as c:
        if player_server.kind == "mpd":
            assert c.command("consume oneshot") == ["ACK [2@0] {consume} Boolean (0/1) expected: oneshot"]
        else:
            assert c.command("consume oneshot") == ["OK"] and status(c)["consume"] == "oneshot"
        assert c.command("consume 2") == ["ACK [2@0] {consume} Unrecognized consume mode, expected 0, 1, or oneshot"
                                          if player_server.kind == "tonearm" else
                                          "ACK [2@0] {consume} Boolean (0/1) expected: 2"]


def test_volume_without_a_mixer(player_server):
    with player_server.connect() as c, player_server.connect() as watcher:
        assert c.command("getvol") == ["OK"]
        assert c.command("setvol 50") == ["ACK [5@0] {setvol} No mixer"]  # ACK 5, where volume says 52
        assert c.command("volume 10") == ["ACK [52@0] {volume} No mixer"]
        assert c.command("setvol 101") == ["ACK [2@0] {setvol} Number too large: 101"]
        assert c.command("setvol -1") == ["ACK [2@0] {setvol} Number too large: -1"]
        assert c.command("setvol x") == ["ACK [2@0] {setvol} Integer expected: x"]
        assert c.command("volume 101") == ["ACK [2@0] {volume} Number too large: 101"]
        assert c.command("volume -101") == ["ACK [2@0] {volume} Number too large: -101"]
        assert c.command("volume x") == ["ACK [2@0] {volume} Integer expected: x"]
        assert "volume" not in status(c)
        assert pending_events(watcher) == []


def test_volume_with_a_software_mixer(make_player_server):
    """setvol raises `mixer` every time, volume only when the level changes; the result of
    volume is clamped to 0…100."""
    server = make_player_server(output=SOFTWARE_MIXER)
    with server.connect() as c, server.connect() as watcher:
        assert keys(c.command("status")) == status_keys(server, volume=True)
        assert status(c)["volume"] == "100" and c.command("getvol") == ["volume: 100", "OK"]
        for command, volume, events in [("setvol 50", "50", ["mixer"]), ("setvol 50", "50", ["mixer"]),
                                        ("volume +10", "60", ["mixer"]), ("volume -100", "0", ["mixer"]),
                                        ("volume 0", "0", []), ("volume 100", "100", ["mixer"]),
                                        ("volume 5", "100", []), ("setvol 0", "0", ["mixer"])]:
            assert c.command(command) == ["OK"], command
            assert c.command("getvol") == [f"volume: {volume}", "OK"], command
            assert pending_events(watcher) == events, command
        assert c.command("volume 150") == ["ACK [2@0] {volume} Number too large: 150"]
        c.command(f'add "{LONG}"')
        c.command("play")
        assert c.command("setvol 30") == ["OK"] and status(c)["volume"] == "30"


def play_broken(c):
    """`play` of a song that cannot be decoded: MPD answers OK, or (when the decoder fails before
    the command returns, a race) ACK 5 with the decoder's message."""
    reply = c.command("play 0")
    assert reply == ["OK"] or (len(reply) == 1 and reply[0].startswith("ACK [5@0] {play} ")), reply


def test_a_song_that_cannot_be_played(make_player_server):
    """A song whose file is gone: playback goes on with the next song; when nothing can play,
    the player stops with `error:` in status (naming the file) until clearerror.

    (Whether MPD still shows the error once the next song plays is a race in MPD; and when the
    broken song is the one queued after a playing song, MPD sometimes stops instead of going
    on: neither is asserted. MPD may also show the error a moment before it stops.)"""
    server = make_player_server()
    (server.music_dir / A1).unlink()  # still in the database
    with server.connect() as c, server.connect() as watcher:
        for uri in [A1, LONG]:
            c.command(f'add "{uri}"')
        play_broken(c)
        wait_status(c, lambda s: s.get("songid") == "2" and s["state"] == "play", what="the song after it")
        c.command("clear")
        assert c.command("clearerror") == ["OK"] and "error" not in status(c)
        c.command(f'add "{A1}"')
        play_broken(c)
        now = wait_status(c, lambda s: "error" in s, what="an error")
        if server.kind == "mpd":
            # MPD's player thread publishes the error before its main thread stops the
            # playlist, so a status between the two shows `state: play` with the error.
            # Tonearm's first status with the error must already say stop.
            now = wait_status(c, lambda s: s["state"] == "stop", what="MPD to stop")
        assert now["state"] == "stop" and now["song"] == "0" and A1 in now["error"]
        assert keys(c.command("status"))[-3:] == ["song", "songid", "error"]
        pending_events(watcher)
        assert c.command("clearerror") == ["OK"]
        assert "error" not in status(c) and pending_events(watcher) == []
        assert c.command("clearerror x") == ['ACK [2@0] {clearerror} wrong number of arguments for "clearerror"']
        assert queue_uris(c) == [A1]
