"""Moving from MPD with the files MPD itself wrote: Debian's MPD 0.23 sets up a queue, a position,
modes, outputs, stickers and stored playlists through the protocol and stops; Tonearm then starts
on the same music folder with MPD's `state_file`, `sticker_file` and `playlist_directory` (later
lines of its configuration replace the test server's own) and must show what MPD showed. Every
expectation is what MPD reported before it stopped, or, for what MPD does not write, what MPD
restored itself from the same files.

What 0.23 writes (v0.23.12: src/StateFile.cxx, src/mixer/Memento.cxx, src/output/State.cxx,
src/queue/PlaylistState.cxx, src/queue/QueueSave.cxx): `sw_volume`, one `audio_device_state` per
output of the default partition, `state`, `current` (a queue position), `time` (`%f`), `random`,
`repeat`, `single` and `consume` as numbers (`single: 2` is oneshot, which no MPD reads back:
MPD issue #1853), `crossfade` (`%i`), `mixrampdb` and `mixrampdelay` (`%f`), then the queue with
a `Prio:` line before each prioritised entry and a `song_begin:` block for an entry with a range.
It writes one partition only (`StateFile` holds the default one) and no `replay_gain_mode`.

0.23's `sticker.sql` is the table `sticker(type, uri, name, value)` with a unique index (the same
in 0.24), and 0.23 knows only the `song` type: `sticker set playlist …` answers `unknown sticker
domain`, so there are no playlist stickers for Tonearm to take over from Debian's MPD.

Tonearm's database is new on such a start: it restores the state file once its first scan has
found the songs (before, every song would be unknown), so the tests wait for the queue. Both
servers get the same two null outputs, the first with a software mixer so that the volume is
MPD's `sw_volume`."""
import shutil
import signal
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.hostile import quote  # noqa: E402
from support.library import wait_for_scan  # noqa: E402
from support.playback import (A1, A2, B1, B2, B3, LONG, SOFTWARE_MIXER, brief, fields, playing_file,  # noqa: E402
                              seek_when_decoding, status, wait_elapsed, wait_status)
from support.polling import poll  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

OUTPUTS = SOFTWARE_MIXER + 'audio_output {\n type "null"\n name "second"\n}\n'
# `status` fields that the state file carries, compared as they are printed (not `nextsong`: in
# random mode a restore draws the order anew) ...
STATUS_FIELDS = ["state", "song", "random", "repeat", "single", "consume", "xfade", "volume", "playlistlength",
                 "duration"]
# ... and those compared by value: each server prints floats its own way.
NUMERIC_FIELDS = ["mixrampdb", "mixrampdelay"]


@pytest.fixture
def servers(short_library, tmp_path):
    """`servers.mpd(workdir)` starts Debian's MPD on the short-track library (read only: neither
    server writes into the music folder) and `servers.tonearm(mpd)` Tonearm on the same folder
    with that MPD's files; both return the server once its scan is finished. Every server is
    stopped at the end."""
    started = []

    def scanned(server):
        started.append(server)
        server.start()
        with server.connect() as c:
            wait_for_scan(c)
        return server

    class Servers:
        @staticmethod
        def mpd(workdir: Path) -> MPDServer:
            return scanned(MPDServer(workdir, music_dir=short_library, output=OUTPUTS))

        @staticmethod
        def tonearm(mpd: MPDServer) -> TonearmServer:
            # Play statistics (a Tonearm addition) would add stickers that MPD never wrote.
            config = (f'state_file "{mpd.workdir}/state"\nsticker_file "{mpd.workdir}/sticker.sql"\n'
                      f'playlist_directory "{mpd.workdir}/playlists"\nsticker_play_stats "no"\n')
            return scanned(TonearmServer(tmp_path / "tonearm", music_dir=short_library, output=OUTPUTS,
                                         extra_config=config))

    yield Servers
    for server in started:
        if server.process.poll() is None:
            server.stop()


def run(c, *commands: str):
    for command in commands:
        assert c.command(command) == ["OK"], command


def entry(c, uri: str, key: str) -> str:
    """The `key` (Pos, Id) of the queue entry of `uri`."""
    return fields(c.command(f"playlistfind file {quote(uri)}"))[key]


def state_lines(server) -> list[str]:
    return (server.workdir / "state").read_text().splitlines()


def saved_time(server) -> float:
    return float(next(line for line in state_lines(server) if line.startswith("time: ")).removeprefix("time: "))


def queue(c) -> list[str]:
    """The queue as `playlistinfo` shows it (file, Range, Pos, Prio), without the ids, which a
    restore gives anew in queue order."""
    return [line for line in brief(c.command("playlistinfo")) if not line.startswith("Id: ")]


def outputs(c) -> list[tuple[str, str, str]]:
    """(name, plugin, enabled) of each output, in order."""
    lines = [line for line in c.command("outputs") if line.startswith(("outputname: ", "plugin: ", "outputenabled: "))]
    return [tuple(line.split(": ", 1)[1] for line in lines[i:i + 3]) for i in range(0, len(lines), 3)]


def stored_playlists(c) -> list[tuple[str, str]]:
    """(name, Last-Modified) of each stored playlist, sorted: MPD lists the playlist directory in
    readdir order, Tonearm by name."""
    lines = c.command("listplaylists")
    assert lines[-1] == "OK", lines
    return sorted(zip(lines[:-1:2], lines[1:-1:2]))


def sticker_file(server) -> list[str]:
    """The `sql` of every table and index in the server's `sticker.sql`, and its journal mode."""
    with closing(sqlite3.connect(server.workdir / "sticker.sql")) as db:
        return ([row[0] for row in db.execute("SELECT sql FROM sqlite_master ORDER BY rowid")]
                + [db.execute("PRAGMA journal_mode").fetchone()[0]])


def wait_for_queue(c, length: str) -> dict[str, str]:
    """Waits until Tonearm's queue has `length` entries: it restores the state file once its
    first scan has finished."""
    return wait_status(c, lambda s: s["playlistlength"] == length, what=f"a restored queue of {length}")


def test_a_paused_queue_comes_back_with_its_order_priorities_range_position_and_modes(servers, tmp_path):
    """Everything 0.23 writes of a paused player: the queue in an order that is not the order of
    adding, with priorities and a range, the current song and position, the modes, the software
    volume and a disabled output."""
    mpd = servers.mpd(tmp_path / "mpd")
    with mpd.connect() as c:
        run(c, 'add "Album A"', f'add "{LONG}"', 'add "Album B"', "move 6 0")  # not the order of adding
        run(c, "prio 9 1", "prio 200 4:6", f"rangeid {entry(c, B2, 'Id')} 0.5:1.5")
        run(c, "random 1", "repeat 1", "single 1", "consume 1", "crossfade 4", "mixrampdb -12.5", "mixrampdelay 1.5",
            "setvol 35", "disableoutput 1")
        run(c, f"play {entry(c, LONG, 'Pos')}")
        assert seek_when_decoding(c, 30) == ["OK"]
        wait_elapsed(c, 30.5)  # really played on from the seek
        run(c, "pause 1")
        before = status(c)
        before_queue, before_outputs, before_file = queue(c), outputs(c), playing_file(c)
    mpd.stop()
    # What the test is about: MPD wrote each of them.
    written = state_lines(mpd)
    for line in ["sw_volume: 35", "audio_device_state:0:second", "state: pause", "single: 1", "crossfade: 4",
                 "Prio: 200", f"song_begin: {B2}"]:
        assert line in written, line
    assert before["state"] == "pause" and before_outputs[1][2] == "0" and "Range: 0.500-1.500" in before_queue

    tonearm = servers.tonearm(mpd)
    with tonearm.connect() as c:
        after = wait_for_queue(c, before["playlistlength"])
        for key in STATUS_FIELDS:
            assert after.get(key) == before.get(key), key
        for key in NUMERIC_FIELDS:
            assert float(after[key]) == float(before[key]), key
        # Paused: the file holds MPD's position to the microsecond, `status` prints milliseconds.
        assert abs(float(after["elapsed"]) - float(before["elapsed"])) < 0.01
        assert playing_file(c) == before_file
        assert queue(c) == before_queue
        assert outputs(c) == before_outputs


def test_a_playing_song_plays_on_from_where_mpd_stopped_and_single_oneshot_is_read(servers, tmp_path):
    """0.23 writes oneshot as `single: 2` and cannot read that back itself (it then restores
    nothing at all); 0.24 writes `oneshot`. Tonearm reads `2` as the oneshot it stands for."""
    mpd = servers.mpd(tmp_path / "mpd")
    with mpd.connect() as c:
        run(c, 'add "Album A"', f'add "{LONG}"', "single oneshot", "play 3")
        assert seek_when_decoding(c, 20) == ["OK"]
        before = wait_elapsed(c, 20.5)
    mpd.stop()
    assert "state: play" in state_lines(mpd) and "single: 2" in state_lines(mpd)
    saved = saved_time(mpd)
    assert saved >= float(before["elapsed"])

    tonearm = servers.tonearm(mpd)
    with tonearm.connect() as c:
        after = wait_for_queue(c, before["playlistlength"])
        # Restored playing from MPD's last position, so at least there (`status` prints
        # milliseconds); how far it has played on since is the clock's business.
        assert float(after["elapsed"]) >= saved - 0.0005
        for key in ["state", "song", "single", "random", "repeat", "consume", "playlistlength", "duration"]:
            assert after.get(key) == before.get(key), key
        assert playing_file(c) == LONG


def test_what_mpd_does_not_write_comes_back_as_mpd_itself_restores_it(servers, tmp_path):
    """A second partition (with an output moved into it) and the replay gain mode are not in
    0.23's state file. MPD started again on a copy of its files is the expectation: one
    partition, the configured replay gain mode, and the moved output disabled, since the
    default partition wrote it as its `dummy` stand-in, which is disabled (src/output/State.cxx
    saves `ao.IsEnabled()` of every output the default partition lists). A stopped player keeps
    its current song."""
    mpd = servers.mpd(tmp_path / "mpd")
    with mpd.connect() as c:
        run(c, 'add "Album A"', "play 1", "stop", "replay_gain_mode track", "newpartition radio", "partition radio",
            "moveoutput second", 'add "Album B"', "repeat 1", "partition default")
        assert c.command("listpartitions") == ["partition: default", "partition: radio", "OK"]
        assert fields(c.command("replay_gain_status")) == {"replay_gain_mode": "track"}
    mpd.stop()
    written = state_lines(mpd)
    assert not any(line.startswith(("partition", "replay")) for line in written), written
    assert "audio_device_state:0:second" in written and "current: 1" in written

    def restored(c) -> dict:
        now = status(c)
        return {"partitions": c.command("listpartitions"), "replay gain": c.command("replay_gain_status"),
                "outputs": outputs(c), "queue": queue(c),
                "status": {key: now.get(key) for key in ["state", "song", "repeat", "playlistlength"]}}

    shutil.copytree(mpd.workdir, tmp_path / "mpd again")
    again = servers.mpd(tmp_path / "mpd again")
    with again.connect() as c:
        expected = restored(c)
    again.stop()
    assert expected["status"]["state"] == "stop" and expected["status"]["song"] == "1"

    tonearm = servers.tonearm(mpd)
    with tonearm.connect() as c:
        wait_for_queue(c, expected["status"]["playlistlength"])
        assert restored(c) == expected


def test_stickers_and_stored_playlists_move_and_mpd_still_reads_them_afterwards(servers, tmp_path):
    """Song stickers (names and values with spaces, `=`, quotes, UTF-8, an empty value) and
    stored playlists (one saved from the queue, one with a UTF-8 name) answer in Tonearm as they
    did in MPD; Tonearm leaves `sticker.sql` with MPD's schema and journal mode, and MPD started
    on it again reads a sticker Tonearm added."""
    mpd = servers.mpd(tmp_path / "mpd")
    stickers = [(A1, "rating", "5"), (A1, "note", "a b=c \"quoted\""), (LONG, "rating", "3"),
                (LONG, "comment", "Grüße, 音楽"), (B3, "rating", "10"), (B1, "empty", "")]
    with mpd.connect() as c:
        for uri, name, value in stickers:
            run(c, f"sticker set song {quote(uri)} {name} {quote(value)}")
        assert c.command("sticker set playlist Mix rating 4") == ["ACK [2@0] {sticker} unknown sticker domain"]
        run(c, f'add "{B2}"', f'add "{A2}"', f'add "{LONG}"', "save Mix", f'playlistadd "Grüße 音楽" "{B3}"',
            f'playlistadd "Grüße 音楽" "{A1}"', "clear")
        queries = ([f"sticker list song {quote(uri)}" for uri in sorted({uri for uri, _, _ in stickers})]
                   + [f'sticker find song "" {name}' for name in sorted({name for _, name, _ in stickers})]
                   + ['sticker find song "Album A" rating', 'sticker find song "" rating < 4',
                      f"sticker get song {quote(A1)} note", "listplaylist Mix",
                      f"listplaylist {quote('Grüße 音楽')}"])
        before = {query: c.command(query) for query in queries}
        playlists = stored_playlists(c)
    mpd.stop()
    assert all(answer[-1] == "OK" and len(answer) > 1 for answer in before.values()), before
    assert [name for name, _ in playlists] == ["playlist: Grüße 音楽", "playlist: Mix"]
    mpds_file = sticker_file(mpd)
    assert mpds_file[-1] == "delete" and "CREATE UNIQUE INDEX sticker_value ON sticker(type, uri, name)" in mpds_file

    tonearm = servers.tonearm(mpd)
    with tonearm.connect() as c:
        for query in queries:
            assert c.command(query) == before[query], query
        assert stored_playlists(c) == playlists
        run(c, f"sticker set song {quote(A2)} rating 7")
        after = {query: c.command(query) for query in queries}
    tonearm.stop()
    assert sticker_file(mpd) == mpds_file

    # Moving back: MPD reads the file Tonearm used, with the sticker Tonearm added.
    mpd.start()
    with mpd.connect() as c:
        for query in queries:
            assert c.command(query) == after[query], query
        assert stored_playlists(c) == playlists
        assert c.command(f"sticker get song {quote(A2)} rating") == ["sticker: rating=7", "OK"]


def test_and_back_mpd_reads_the_state_file_tonearm_wrote_before_it_was_killed(servers, tmp_path):
    """The way back: the state file Tonearm keeps within a second (issue 24) is still MPD's
    format. Tonearm is killed with SIGKILL once the file holds its last change; MPD, started on
    the same files with its database already built, shows the queue, the position and the modes
    Tonearm had."""
    mpd = servers.mpd(tmp_path / "mpd")
    mpd.stop()  # its database is built; the state file it wrote is empty
    tonearm = servers.tonearm(mpd)
    with tonearm.connect() as c:
        run(c, 'add "Album A"', f'add "{LONG}"', 'add "Album B"', "move 3 0")
        run(c, "prio 9 1", "repeat 1", "single 1", "crossfade 4", "setvol 35")
        run(c, f"play {entry(c, LONG, 'Pos')}")
        assert seek_when_decoding(c, 30) == ["OK"]
        wait_elapsed(c, 30.5)
        run(c, "pause 1")
        before = status(c)
        before_queue, before_file = queue(c), playing_file(c)
    saved = mpd.workdir / "state"
    poll("the pause in the file", lambda: "state: pause" in saved.read_text())
    tonearm.stop(signal.SIGKILL)

    mpd.start()
    with mpd.connect() as c:
        after = status(c)
        for key in STATUS_FIELDS:
            assert after.get(key) == before.get(key), key
        assert abs(float(after["elapsed"]) - float(before["elapsed"])) < 0.01
        assert playing_file(c) == before_file
        assert queue(c) == before_queue
