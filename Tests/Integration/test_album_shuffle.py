"""Album shuffle (Tonearm's `shufflemode albums`, the Media Player framework's
`MPMusicShuffleModeAlbums`): the albums play in random order, each album's songs together in
disc and track order. MPD has only song shuffle, so these tests run on Tonearm alone.

The play order is read without waiting for songs to end: `play`, then `next` through the whole
queue, noting `currentsong` each time, walks the order a real playback would take.
"""
import os
import subprocess
from pathlib import Path

import pytest

from support.clients import mpc, mpc_out
from support.library import wait_for_scan
from support.playback import fields, status, wait_state, wait_status

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
# (folder, album, album artist, [(disc, track)…] in the order the files are named): the
# files' names do not follow the album order, so that it must come from the tags.
ALBUMS = [
    ("Ann", "North", "Ann", [(1, 3), (1, 1), (1, 2)]),
    ("Bo", "East", "Bo", [(2, 1), (1, 2), (1, 1)]),
    ("Cy", "South", "Cy", [(1, 1), (1, 2), (1, 3)]),
    ("Di", "South", "Di", [(1, 2), (1, 1)]),  # the same album name by another artist: another album
]
SINGLES = ["Loose/one.flac", "Loose/two.flac"]  # no album tag: albums of one


def album_order(folder: str) -> list[str]:
    """The album's URIs in disc and track order."""
    _, album, artist, places = next(a for a in ALBUMS if a[0] == folder)
    named = [(place, f"{folder}/{index}.flac") for index, place in enumerate(places)]
    return [uri for _, uri in sorted(named)]


def album_of(uri: str) -> str:
    return uri if uri.startswith("Loose/") else uri.split("/")[0]


@pytest.fixture(scope="module")
def albums_library(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("albums") / "music"
    for folder, album, artist, places in ALBUMS:
        for index, (disc, track) in enumerate(places):
            path = root / folder / f"{index}.flac"
            path.parent.mkdir(parents=True, exist_ok=True)
            tags = ["-metadata", f"album={album}", "-metadata", f"album_artist={artist}",
                    "-metadata", f"disc={disc}", "-metadata", f"track={track}", "-metadata", f"title={folder}{index}"]
            subprocess.run(FFMPEG + ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=1",
                                     "-c:a", "flac", *tags, str(path)], check=True)
    for uri in SINGLES:
        path = root / uri
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(FFMPEG + ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=1",
                                 "-c:a", "flac", "-metadata", f"title={path.stem}", str(path)], check=True)
    return root


@pytest.fixture
def server(make_tonearm, albums_library):
    def start(extra_config: str = ""):
        started = make_tonearm('sticker_play_stats "no"\n' + extra_config, music_dir=albums_library)
        with started.connect() as c:
            wait_for_scan(c)
            assert c.command('add ""') == ["OK"]
        return started
    return start


def playing_file(c) -> str | None:
    """The current song's URI, or None when there is none."""
    return next((line[6:] for line in c.command("currentsong") if line.startswith("file: ")), None)


def current_file(c) -> str:
    song = playing_file(c)
    assert song is not None, "no current song"
    return song


def walk_on(c) -> list[str]:
    """From the song playing now to the end of the play order by `next`: the songs in the order
    they became current."""
    played = []
    while fields(c.command("status"))["state"] != "stop":
        played.append(current_file(c))
        c.command("next")
    return played


def walk(c) -> list[str]:
    """Plays the queue from the start of the play order to its end (`walk_on`)."""
    assert c.command("play") == ["OK"]
    return walk_on(c)


def assert_albums_whole(played: list[str], queued: int):
    """Every song once; each album's songs one after another, in disc and track order."""
    assert len(played) == queued and len(set(played)) == queued
    for folder, *_ in ALBUMS:
        order = album_order(folder)
        start = played.index(order[0])
        assert played[start:start + len(order)] == order, (folder, played)


def album_sequence(played: list[str]) -> list[str]:
    runs = []
    for uri in played:
        if not runs or runs[-1] != album_of(uri):
            runs.append(album_of(uri))
    return runs


def test_mpc_turns_album_shuffle_on_and_random_keeps_it(server):
    """From mpc as it is: `sendmessage tonearm "shufflemode albums"` chooses the mode, `random
    off` and `random on` keep it, and every walk plays albums whole in a new random order."""
    tonearm = server()
    assert mpc(tonearm, "sendmessage", "tonearm", "shufflemode albums").returncode == 0
    assert "random: on" in mpc_out(tonearm, "status")
    queued = 13
    sequences = set()
    with tonearm.connect() as c:
        for _ in range(6):
            mpc_out(tonearm, "random", "off")
            assert fields(c.command("status"))["random"] == "0"
            mpc_out(tonearm, "random", "on")
            current = status(c)
            assert current["random"] == "1" and current["shufflemode"] == "albums"
            played = walk(c)
            assert_albums_whole(played, queued)
            sequences.add(tuple(album_sequence(played)))
    # Six albums' worth of groups in 720 orders: six walks in one order would be no shuffle.
    assert len(sequences) > 1


def test_shufflemode_songs_and_off(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("shufflemode songs") == ["OK"]
        current = status(c)
        assert current["random"] == "1" and "shufflemode" not in current
        assert c.command("shufflemode off") == ["OK"]
        current = status(c)
        assert current["random"] == "0" and "shufflemode" not in current
        # Song shuffle splits albums sooner or later: over 5 walks, some album is not whole.
        assert c.command("shufflemode songs") == ["OK"]
        split = False
        for _ in range(5):
            played = walk(c)
            try:
                assert_albums_whole(played, 13)
            except AssertionError:
                split = True
            c.command("random 0")
            c.command("random 1")
        assert split


def test_the_configured_mode_is_what_random_turns_on(server):
    tonearm = server('shuffle_mode "albums"\n')
    with tonearm.connect() as c:
        current = status(c)
        assert current["random"] == "0" and current["shufflemode"] == "albums"
        assert c.command("random 1") == ["OK"]
        assert_albums_whole(walk(c), 13)


def test_switching_mode_while_playing_keeps_the_song_and_its_album_follows(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command('playid ' + fields(c.command('playlistfind file "Bo/1.flac"'))["Id"]) == ["OK"]
        assert c.command("shufflemode albums") == ["OK"]
        assert current_file(c) == "Bo/1.flac"
        # Bo/1 is disc 1 track 2: next comes disc 2 track 1, then other albums.
        assert c.command("next") == ["OK"]
        assert current_file(c) == "Bo/0.flac"


def test_a_priority_brings_its_album_next(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("play") == ["OK"]
        first = current_file(c)
        target = next(folder for folder, *_ in ALBUMS if folder != album_of(first))
        position = fields(c.command(f'playlistfind file "{album_order(target)[-1]}"'))["Pos"]
        assert c.command(f"prio 200 {position}") == ["OK"]
        played = walk_on(c)
        # The rest of the playing album, then the raised album whole.
        rest = [uri for uri in played[1:] if album_of(uri) == album_of(first)]
        after = played[1 + len(rest):1 + len(rest) + len(album_order(target))]
        assert after == album_order(target), played


@pytest.mark.parametrize("first", ["Cy/0.flac", "Ann/1.flac"])
def test_songs_added_while_playing_join_their_album(server, first):
    """The rest of album Cy arrives while the queue plays: it plays with Cy's first song,
    whether that one is playing (Cy/0 first) or still to come (Ann/1 first)."""
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("clear") == ["OK"]
        for uri in album_order("Ann") + album_order("Cy")[:1] + SINGLES:
            assert c.command(f'add "{uri}"') == ["OK"]
        assert c.command("shufflemode albums") == ["OK"]
        # Paused, so that the first song does not end (in a second) before the adds.
        song_id = fields(c.command(f'playlistfind file "{first}"'))["Id"]
        assert c.command(f"playid {song_id}") == ["OK"] and c.command("pause 1") == ["OK"]
        for uri in album_order("Cy")[1:]:
            assert c.command(f'add "{uri}"') == ["OK"]
        assert c.command('add "Bo"') == ["OK"]
        played = walk_on(c)
        assert len(played) == 11
        for folder in ("Ann", "Bo", "Cy"):
            order = album_order(folder)
            start = played.index(order[0])
            assert played[start:start + len(order)] == order, played


def test_consume_removes_albums_as_they_play(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("consume 1") == ["OK"]
        played = walk(c)
        assert_albums_whole(played, 13)
        assert fields(c.command("status"))["playlistlength"] == "0"


def test_repeat_starts_a_new_round_with_albums_whole(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("repeat 1") == ["OK"]
        assert c.command("play") == ["OK"]
        played = []
        for _ in range(39):
            played.append(current_file(c))
            c.command("next")
        for round_start in (13, 26):
            assert_albums_whole(played[round_start:round_start + 13], 13)


def test_the_mode_survives_a_restart(make_tonearm, albums_library, tmp_path):
    tonearm = make_tonearm('sticker_play_stats "no"\n', music_dir=albums_library)
    with tonearm.connect() as c:
        wait_for_scan(c)
        assert c.command('add ""') == ["OK"]
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("random 0") == ["OK"]
    tonearm.stop()
    state = (tonearm.workdir / "state").read_text()
    assert "\nrandom: 0\nshufflemode: albums\n" in state
    tonearm.start()
    with tonearm.connect() as c:
        current = status(c)
        assert current["random"] == "0" and current["shufflemode"] == "albums"
        assert c.command("random 1") == ["OK"]
        assert_albums_whole(walk(c), 13)
    tonearm.stop()
    # MPD reads the same file and skips the line it does not know: once its database knows the
    # songs (a first start scans), the queue, which comes after the line, is restored.
    from support.servers import MPDServer
    mpd = MPDServer(tmp_path / "mpd", music_dir=albums_library)
    with mpd:
        with mpd.connect() as c:
            wait_for_scan(c)
    (mpd.workdir / "state").write_text((tonearm.workdir / "state").read_text())
    with mpd:
        with mpd.connect() as c:
            assert fields(c.command("status"))["playlistlength"] == "13"


@pytest.mark.parametrize("command, answer", [
    ("shufflemode", "ACK [2@0] {shufflemode} wrong number of arguments for \"shufflemode\""),
    ("shufflemode sideways", "ACK [2@0] {shufflemode} Unrecognized shuffle mode, expected off, songs, or albums"),
    ("shufflemode albums songs", "ACK [2@0] {shufflemode} wrong number of arguments for \"shufflemode\""),
    ('sendmessage tonearm "shufflemode sideways"',
     "ACK [2@0] {sendmessage} Unrecognized shuffle mode, expected off, songs, or albums"),
    ('sendmessage tonearm "play"',
     'ACK [2@0] {sendmessage} "play" is not a command of the tonearm channel: shufflemode, smartplaylist'),
    ('sendmessage tonearm ""', "ACK [2@0] {sendmessage} not a command for the tonearm channel: No command given"),
])
def test_bad_requests(server, command, answer):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command(command) == [answer]
        assert status(c)["random"] == "0"


def test_permissions_and_commands(make_tonearm, albums_library):
    tonearm = make_tonearm('password "secret@read,add,control,player"\ndefault_permissions "read"\n',
                           music_dir=albums_library)
    with tonearm.connect() as c:
        # `commands` lists what the client may run, as in MPD: not this one with read alone.
        assert "command: shufflemode" not in c.command("commands")
        assert c.command("shufflemode albums") == [
            'ACK [4@0] {shufflemode} you don\'t have permission for "shufflemode"']
        assert c.command('sendmessage tonearm "shufflemode albums"') == [
            'ACK [4@0] {sendmessage} you don\'t have permission for "sendmessage"']
        assert c.command("password secret") == ["OK"]
        assert "command: shufflemode" in c.command("commands")
        assert c.command('sendmessage tonearm "shufflemode albums"') == ["OK"]
        assert status(c)["shufflemode"] == "albums"


def test_real_playback_plays_albums_whole(server):
    """Played in real time (the null output is paced), as `mpc` starts it: the songs start
    album by album, each in its order, and `mpc playlist` still shows the queue in the order it
    was added (shuffle changes the play order, not the queue)."""
    import time
    tonearm = server()
    listed = mpc_out(tonearm, "playlist", "-f", "%file%").splitlines()
    assert mpc(tonearm, "sendmessage", "tonearm", "shufflemode albums").returncode == 0
    mpc_out(tonearm, "play")
    started = []
    with tonearm.connect() as c:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            now = status(c)
            if now["state"] == "stop":
                break
            song = playing_file(c)
            if song is None:
                continue  # the last song ended after `status`: the next `status` says stop
            if not started or started[-1] != song:
                started.append(song)
            time.sleep(0.05)
    assert_albums_whole(started, 13)
    assert mpc_out(tonearm, "playlist", "-f", "%file%").splitlines() == listed


def test_previous_walks_back_the_play_order(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("play") == ["OK"]
        forward = [current_file(c)]
        for _ in range(4):
            c.command("next")
            forward.append(current_file(c))
        backward = [current_file(c)]
        for _ in range(4):
            c.command("previous")
            backward.append(current_file(c))
        assert backward == forward[::-1]


def test_single_stops_after_the_song_and_with_repeat_repeats_it(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        assert c.command("single 1") == ["OK"]
        assert c.command("play") == ["OK"]
        # The song (a second long) ends by itself, and single stops playing there.
        wait_status(c, lambda s: s["state"] != "play", what="single to stop after the song")
        assert c.command("repeat 1") == ["OK"] and c.command("play") == ["OK"]
        # With repeat, the song that plays is also the next one.
        now = status(c)
        assert now["state"] == "play" and now["nextsongid"] == now["songid"]


def test_deleting_songs_while_it_plays_keeps_the_albums_whole(server):
    tonearm = server()
    with tonearm.connect() as c:
        assert c.command("shufflemode albums") == ["OK"]
        first = fields(c.command('playlistfind file "Di/1.flac"'))["Id"]
        assert c.command(f"playid {first}") == ["OK"] and c.command("pause 1") == ["OK"]
        # Take out the middle song of every three-song album, and one song without an album.
        for folder in ("Ann", "Bo", "Cy"):
            song_id = fields(c.command(f'playlistfind file "{album_order(folder)[1]}"'))["Id"]
            assert c.command(f"deleteid {song_id}") == ["OK"]
        song_id = fields(c.command('playlistfind file "Loose/two.flac"'))["Id"]
        assert c.command(f"deleteid {song_id}") == ["OK"]
        played = walk_on(c)
        remaining = {folder: [uri for i, uri in enumerate(album_order(folder)) if i != 1 or folder == "Di"]
                     for folder in ("Ann", "Bo", "Cy", "Di")}
        for folder, order in remaining.items():
            present = [uri for uri in order if uri in played]
            start = played.index(present[0])
            assert played[start:start + len(present)] == present, played
