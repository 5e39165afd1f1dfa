"""mpdscribble (Debian's 0.24), the scrobbler, against Tonearm and Debian's MPD: it watches the
player over the protocol (`idle player message`, `status` and `currentsong` in a command list,
`subscribe mpdscribble`, `readmessages`) and reports to a local AudioScrobbler 1.2 endpoint
(Tests/support/scrobbler.py) on 127.0.0.1.

Its rules (src/Main.cxx): a song is submitted when it stops being current after more than half
of it was played, by mpdscribble's own clock, and only when it is at least 30 s long; every
song that starts is announced as "now playing"; `sendmessage mpdscribble love` marks the current
song loved in its submission. So the songs here are sine tones of 4, 31 and 33 s played in real
time on the null output, and the test moves on once more than half of a song has played: about
40 s for each server."""
import os
import shutil
import subprocess
import time

import pytest

from support import processes
from support.library import wait_for_scan
from support.playback import fields, wait_status
from support.polling import poll
from support.scrobbler import ScrobblerEndpoint
from support.servers import Connection, MPDServer, TonearmServer

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
ARTIST = "Scrobble Artist"
ALBUM = "Scrobble Album"
# (file, title, track, seconds): played in this order.
SHORT = ("01 Short.flac", "Too Short", "1", 4)
LOVED = ("02 Loved.flac", "Loved Song", "2", 31)
SECOND = ("03 Second.flac", "Second Song", "3", 33)
# More than half of LOVED and SECOND, with a margin for mpdscribble noticing the song late.
HEARD = 18


@pytest.fixture(scope="module")
def scrobble_library(tmp_path_factory):
    """Three tagged FLAC sine tones made with the `ffmpeg` CLI."""
    music = tmp_path_factory.mktemp("scrobble-music")
    for name, title, track, seconds in (SHORT, LOVED, SECOND):
        subprocess.run(FFMPEG + ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=8000:duration={seconds}",
                                 "-ac", "1", "-c:a", "flac", "-metadata", f"title={title}",
                                 "-metadata", f"artist={ARTIST}", "-metadata", f"album={ALBUM}",
                                 "-metadata", f"track={track}", str(music / name)], check=True)
    return music


@pytest.fixture(params=["tonearm", "mpd"])
def scrobbled_server(request, scrobble_library, tmp_path):
    """Tonearm or Debian's MPD on the three songs, its first scan done, with mpdscribble
    connected to it and handshaken with a local endpoint: yields (server, endpoint)."""
    if shutil.which("mpdscribble") is None:
        pytest.skip("mpdscribble is missing: apt-get install mpdscribble")
    kind = TonearmServer if request.param == "tonearm" else MPDServer
    with kind(tmp_path / request.param, music_dir=scrobble_library) as server, ScrobblerEndpoint() as endpoint:
        server.kind = request.param
        with server.connect() as c:
            wait_for_scan(c)
        config = tmp_path / "mpdscribble.conf"
        log = tmp_path / "mpdscribble.log"
        config.write_text(f"log = {log}\nverbose = 3\nhost = {server.host}\nport = {server.port}\n\n"
                          f"[local]\nurl = {endpoint.url}\nusername = {endpoint.username}\npassword = {endpoint.password}\n"
                          f"journal = {tmp_path}/journal\n")
        # Nothing but the endpoint: no proxy from the environment (mpdscribble reads http_proxy).
        env = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
        scribble = subprocess.Popen(["mpdscribble", "--no-daemon", "--conf", str(config)], cwd=tmp_path,
                                    env={**env, "HOME": str(tmp_path)}, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            endpoint.wait_for("the handshake", lambda: endpoint.handshakes)
            with server.connect() as c:
                poll("mpdscribble to subscribe to its channel",
                     lambda: "channel: mpdscribble" in c.command("channels"), timeout=30)
            yield server, endpoint
        finally:
            processes.terminate(scribble)
            print("mpdscribble's log:\n" + (log.read_text() if log.exists() else "(none)"))


def song_id(c, position: int) -> str:
    return fields(c.command(f"playlistinfo {position}"))["Id"]


def play_past_half(c, endpoint: ScrobblerEndpoint, song, song_id_: str):
    """Waits until `song` is announced as now playing and, by the endpoint's clock and the
    server's, more than half of it has played."""
    title = song[1]
    endpoint.wait_for(f"now playing {title}", lambda: any(n.title == title for n in endpoint.now_playing))
    announced = time.monotonic()
    wait_status(c, lambda s: s.get("songid") == song_id_ and float(s.get("elapsed", 0)) >= HEARD
                and time.monotonic() - announced >= HEARD, timeout=60, what=f"{title} past half")


def test_mpdscribble_submits_plays_with_their_tags_and_love_but_not_short_songs(scrobbled_server):
    server, endpoint = scrobbled_server
    started = int(time.time())
    # A generous wait for each answer: for some minutes on a busy machine, Debian's MPD did not
    # answer `next` within the connection's usual 10 s (the player had moved on to the next song).
    with Connection.connect(server.host, server.port, timeout=60) as c:
        for name, *_ in (SHORT, LOVED, SECOND):
            assert c.command(f'add "{name}"') == ["OK"]
        loved_id, second_id = song_id(c, 1), song_id(c, 2)
        assert c.command("play") == ["OK"]

        # The short song plays to its end; then the loved one, loved while it plays.
        play_past_half(c, endpoint, LOVED, loved_id)
        assert c.command("sendmessage mpdscribble love") == ["OK"]
        assert c.command("next") == ["OK"]
        endpoint.wait_for("the loved song's submission", lambda: endpoint.submissions)
        play_past_half(c, endpoint, SECOND, second_id)
        assert c.command("stop") == ["OK"]
        endpoint.wait_for("the second submission", lambda: len(endpoint.submissions) >= 2)

    assert endpoint.errors == []
    announced = [(n.artist, n.title, n.album, n.length, n.track) for n in endpoint.now_playing]
    assert announced == [(ARTIST, title, ALBUM, str(seconds), track) for _, title, track, seconds in
                         (SHORT, LOVED, SECOND)]
    # The 4 s song, played to its end, is not submitted: mpdscribble ignores songs under 30 s.
    submitted = [(s.artist, s.title, s.album, s.length, s.track, s.source, s.loved) for s in endpoint.submissions]
    assert submitted == [(ARTIST, LOVED[1], ALBUM, "31", "2", "P", True),
                         (ARTIST, SECOND[1], ALBUM, "33", "3", "P", False)]
    assert all(started <= int(s.time) <= time.time() for s in endpoint.submissions)
