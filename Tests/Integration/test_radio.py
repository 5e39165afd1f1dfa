"""Internet radio and remote streams (issue 18), against Tonearm and Debian's MPD 0.23 with the same
assertions: a real Icecast station fed by ffmpeg, and a small HTTP server with plain files, remote
playlists, an HLS playlist and faults (Tests/support/radio.py). Everything runs on 127.0.0.1.

What MPD 0.23 does, measured with these fixtures, and where the tests follow the issue instead:
- a stream's `status` has `time: ELAPSED:0`, `elapsed`, `bitrate` and `audio`, and no `duration`;
  `currentsong` has `file: URL`, `Title:` (the ICY StreamTitle) and `Name:` (icy-name);
- a title change raises idle `playlist` and `player` (the queue's version goes up too);
- a stream that cannot be opened (404, refused, redirect loop) sets `error: Failed to decode URL;
  CURL failed: …` when it was the last song; with a song after it, MPD goes on to that song at
  once and the error is cleared when it starts (only the log keeps it);
- a source that stops mid-song (an Icecast source killed, a truncated file) ends the song
  without an error, and the queue goes on;
- a server that accepts and never answers: MPD waits for ever (still "play", elapsed 0, after
  40 s), and a `load` of such a URL blocks every client and even SIGTERM (over 100 s). The issue
  asks that the controls answer at once, which MPD does while playing; the time-out is asserted
  for Tonearm only (`test_a_stalled_station_gives_way_to_the_next_song`,
  `test_load_of_a_stalled_url_blocks_no_other_client`);
- a connection that drops while the station is still on the air is not reconnected by MPD (the
  song ends, no error); the reconnect the issue asks for is asserted for Tonearm only;
- a WAV over HTTP loses its first 3 frames in MPD (a FLAC is exact): a strict xfail on MPD.
"""
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.clients import LineReader, mpc_out  # noqa: E402
from support.playback import (A1, A2, LONG, fields, pending_events, playing_file, queue_uris,  # noqa: E402
                              status, wait_elapsed, wait_state, wait_status)
from support.polling import poll  # noqa: E402
from support.radio import STATION_NAME, FixtureHTTPServer, Icecast, refused_port  # noqa: E402

# A generous bound for "answers at all" while a stream is connecting: not a performance figure.
ANSWERS_WITHIN = 3.0


@pytest.fixture(scope="module")
def icecast():
    """One Icecast station for the module, live at `icecast.url()`, with a first title."""
    with Icecast() as station:
        station.set_title("First Song")
        yield station


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """One fixture HTTP server for the module (its files are made once)."""
    with FixtureHTTPServer(tmp_path_factory.mktemp("radio-web") / "root") as server:
        yield server


def ok(c, command: str) -> list[str]:
    reply = c.command(command)
    assert reply and reply[-1] == "OK", (command, reply)
    return reply


def current(c) -> dict[str, str]:
    return fields(ok(c, "currentsong"))


def timed(c, command: str) -> tuple[list[str], float]:
    """The reply to `command` and how long it took (for the generous "answers at all" bounds)."""
    start = time.monotonic()
    reply = c.command(command, timeout=ANSWERS_WITHIN + 5)
    return reply, time.monotonic() - start


def wait_title(c, title: str, timeout: float = 30) -> dict[str, str]:
    """Waits until `currentsong` shows `title`: the ICY block carrying it reaches the player
    after the audio buffered before it (a few seconds with Icecast's burst)."""
    return poll(f"Title {title!r} in currentsong", lambda: (s := current(c)).get("Title") == title and s,
                timeout=timeout, interval=0.1)


def unique_title(request) -> str:
    """A title no other test sets, so that a test never sees an older change of the shared station."""
    return f"{request.node.name} {time.monotonic():.3f}"


# urlhandlers and bad input

def test_urlhandlers_list_http_and_https(server):
    """Clients such as Cantata check a station's scheme against `urlhandlers` before adding it."""
    handlers = ok(server.connect(), "urlhandlers")
    assert "handler: http://" in handlers and "handler: https://" in handlers, handlers


def test_an_unsupported_scheme_is_refused(server):
    """`add foo://bar`: MPD's ACK, word for word, and the queue stays empty."""
    with server.connect() as c:
        assert c.command("add foo://bar") == ["ACK [2@0] {add} Unsupported URI scheme"]
        assert c.command("addid foo://bar") == ["ACK [2@0] {addid} Unsupported URI scheme"]
        assert queue_uris(c) == []


def test_file_urls_are_refused_over_tcp(server, web):
    """`file://` is for Unix-socket clients only (they prove who they are); over TCP it is
    `Access denied`, whether the file exists or not."""
    with server.connect() as c:
        existing = (web.root / "tone.flac").resolve()
        assert c.command(f'add "file://{existing}"') == ["ACK [4@0] {add} Access denied"]
        assert c.command('add "file:///nonexistent.flac"') == ["ACK [4@0] {add} Access denied"]
        assert queue_uris(c) == []


# A stream is a song

def test_add_addid_and_playlistadd_keep_the_url(server, web):
    """`add`, `addid` and `playlistadd` take an http URL as they are; `playlistinfo` and
    `listplaylist` give it back unchanged, and `save`/`load` of a stored playlist keep it."""
    flac, wav = web.url("tone.flac"), web.url("tone.wav") + "?a=1&b=%20"
    with server.connect() as c:
        ok(c, f'add "{flac}"')
        reply = ok(c, f'addid "{wav}"')
        assert re.fullmatch(r"Id: \d+", reply[0]) and len(reply) == 2, reply
        assert queue_uris(c) == [flac, wav]
        ok(c, f'playlistadd radio "{flac}"')
        assert ok(c, "listplaylist radio") == [f"file: {flac}", "OK"]
        ok(c, "save saved")
        ok(c, "clear")
        ok(c, "load saved")
        assert queue_uris(c) == [flac, wav]
        ok(c, "load radio")
        assert queue_uris(c) == [flac, wav, flac]


def test_a_stored_playlist_with_a_url_plays_it(server, web):
    """A playlist file in the playlist folder (as a user or another program writes it) whose
    line is a URL: `load` queues the URL and `play` plays it to its end without an error."""
    url = web.url("tone.flac")
    (server.workdir / "playlists" / "radio.m3u").write_text(f"#EXTM3U\n{url}\n")
    with server.connect() as c:
        ok(c, "load radio")
        assert queue_uris(c) == [url]
        ok(c, "play")
        wait_status(c, lambda s: s["state"] == "play" and float(s.get("elapsed", 0)) > 0.2 or "error" in s,
                    what="the URL to play")
        assert playing_file(c) == url
        stopped = wait_state(c, "stop")
        assert "error" not in stopped, stopped


def test_the_state_file_keeps_a_queued_url(make_server, web):
    """A queue of URLs survives a restart (the state file's `song_begin: URL` lines)."""
    server = make_server()
    urls = [web.url("tone.flac"), web.url("tone.mp3")]
    with server.connect() as c:
        for url in urls:
            ok(c, f'add "{url}"')
    server.stop()
    server.start()
    with server.connect() as c:
        assert queue_uris(c) == urls


@pytest.mark.parametrize("name", ["list.m3u", "list.pls", "list.xspf"])
def test_load_of_a_remote_playlist_queues_its_entries(server, web, name):
    """`load URL` of a remote M3U, PLS or XSPF playlist queues its entries, in order (MPD 0.23
    reads all three)."""
    with server.connect() as c:
        ok(c, f'load "{web.url(name)}"')
        assert queue_uris(c) == [web.url(f) for f in FixtureHTTPServer.PLAYLIST_FILES]


def test_remote_playlist_entries_carry_their_titles(server, web):
    """The entries' titles and lengths come along as MPD 0.23 shows them: from M3U's `#EXTINF`
    a `Name:` (not `Title:`) and `Time:`, from PLS `Title:` and `Time:`, from XSPF `Title:`."""
    expected = {"list.m3u": ("Name", True), "list.pls": ("Title", True), "list.xspf": ("Title", False)}
    with server.connect() as c:
        for name, (tag, timed_entries) in expected.items():
            ok(c, "clear")
            ok(c, f'load "{web.url(name)}"')
            lines = ok(c, "playlistinfo")
            for file in FixtureHTTPServer.PLAYLIST_FILES:
                entry = lines[lines.index(f"file: {web.url(file)}") + 1:]
                entry = entry[:next(i for i, line in enumerate(entry) if line.startswith("Pos: "))]
                wanted = [f"{tag}: {file}"] + (["Time: 2", "duration: 2.000"] if timed_entries else [])
                assert entry == wanted, (name, file, entry)


@pytest.mark.parametrize("fault", ["missing", "refused", "redirect-loop"])
def test_load_of_an_unreachable_playlist_is_refused(server, web, fault):
    """`load URL` when the web server answers 404, refuses the connection or redirects in a
    loop: MPD's ACK (the same as for a playlist that does not exist), nothing queued."""
    with server.connect() as c:
        assert c.command(f'load "{fault_url(web, fault)}"', timeout=30) == ["ACK [50@0] {load} No such playlist"]
        assert queue_uris(c) == []


def test_load_of_a_url_that_is_no_playlist_is_refused(server, web):
    """A FLAC file is not a playlist: MPD's ACK, and nothing queued."""
    with server.connect() as c:
        assert c.command(f'load "{web.url("tone.flac")}"') == ["ACK [50@0] {load} No such playlist"]
        assert queue_uris(c) == []


@pytest.mark.parametrize("name", ["endless.m3u", "huge.m3u"])
def test_load_of_an_endless_or_huge_playlist_ends_with_an_error(server, web, name):
    """A playlist response that never ends, or one of 50 MB, ends in an ACK (MPD: `ACK [51@0]
    {load} Playlist is too large`, within a second, having queued max_playlist_length = 16384
    entries) rather than a hang or unbounded memory; the server keeps answering."""
    with server.connect() as c:
        reply = c.command(f'load "{web.url(name)}"', timeout=30)
        assert len(reply) == 1 and reply[0].startswith("ACK [") and "{load}" in reply[0], reply
        assert int(status(c)["playlistlength"]) <= 16384
        assert c.command("ping") == ["OK"]


# A live station

def play_station(c, icecast):
    ok(c, f'add "{icecast.url()}"')
    ok(c, "play")
    return wait_elapsed(c, 0.5, timeout=30)


def test_a_live_stream_status_and_currentsong(server, icecast, request):
    """`status` while a station plays: state play, `elapsed` counting up, `time: ELAPSED:0`,
    the bitrate and audio format, and no `duration` (a live stream has none). `currentsong`:
    the URL as `file:`, the icy-name as `Name:` and the StreamTitle as `Title:`."""
    title = unique_title(request)
    with server.connect() as c:
        first = play_station(c, icecast)
        icecast.set_title(title)
        song = wait_title(c, title)
        assert song["file"] == icecast.url() and song["Name"] == STATION_NAME, song
        later = wait_status(c, lambda s: float(s["elapsed"]) >= float(first["elapsed"]) + 1, what="elapsed + 1 s")
        for s in (first, later):
            assert s["state"] == "play" and "duration" not in s, s
            # `time: ELAPSED:0`: MPD rounds elapsed to whole seconds, and a total of 0 means "none".
            seconds, total = s["time"].split(":")
            assert total == "0" and abs(int(seconds) - float(s["elapsed"])) <= 1, s
            assert s["bitrate"] == "128", s  # the source's 128 kb/s CBR MP3
            assert re.fullmatch(r"44100:(16|24|32|f):2", s["audio"]), s


def test_a_title_change_updates_currentsong_and_raises_idle(server, icecast, request):
    """A new StreamTitle shows in `currentsong` and wakes an idle client with `player` and
    `playlist` (MPD raises both: the song's tags changed, so the queue's version moved)."""
    title = unique_title(request)
    with server.connect() as c, server.connect() as watcher:
        play_station(c, icecast)
        poll("a first title", lambda: current(c).get("Title"), timeout=30)
        time.sleep(1)
        pending_events(watcher)  # the stream's start
        version = int(status(c)["playlist"])
        watcher.send("idle\n")
        icecast.set_title(title)
        events = set()
        deadline = time.monotonic() + 30
        while current(c).get("Title") != title:
            assert time.monotonic() < deadline, f"no Title {title!r} after 30 s"
            reply = watcher.read_response(timeout=30)
            assert reply and reply[-1] == "OK", reply
            events |= {line.removeprefix("changed: ") for line in reply[:-1]}
            watcher.send("idle\n")
        watcher.send("noidle\n")
        reply = watcher.read_response(timeout=10)
        events |= {line.removeprefix("changed: ") for line in reply[:-1]}
        song = current(c)
        assert {"player", "playlist"} <= events, events
        assert song["Name"] == STATION_NAME
        assert int(status(c)["playlist"]) > version


def test_pause_and_resume_a_live_stream(server, icecast):
    """`pause 1` holds a live station (elapsed stops), `pause 0` plays it on (elapsed moves)."""
    with server.connect() as c:
        play_station(c, icecast)
        ok(c, "pause 1")
        paused = wait_state(c, "pause")
        time.sleep(1)
        assert status(c)["elapsed"] == paused["elapsed"]
        ok(c, "pause 0")
        wait_status(c, lambda s: s["state"] == "play" and float(s["elapsed"]) > float(paused["elapsed"]) + 0.5,
                    what="play on after pause")


def test_a_live_stream_cannot_seek_and_a_remote_file_can(server, icecast, web):
    """A seek into a station on air is MPD's `ACK [5@0] {seekcur} Not seekable` and the station
    plays on; seeking to 0 starts it again. A remote file from a server without ranges (Python's
    http.server) seeks: Tonearm reads on to the target. (MPD answers OK too, but starts the file
    again from 0, so its position is not asserted.)"""
    with server.connect() as c:
        play_station(c, icecast)
        assert c.command("seekcur 5") == ["ACK [5@0] {seekcur} Not seekable"]
        assert c.command("seek 0 3") == ["ACK [5@0] {seek} Not seekable"]
        now = status(c)
        assert now["state"] == "play" and now["error"] == "Not seekable"  # as MPD's player reports it
        ok(c, "seekcur 0")
        wait_elapsed(c, 0.5, timeout=30)
        ok(c, "clear")
        ok(c, f'add "{web.url("long.flac")}"')
        ok(c, "play")
        wait_elapsed(c, 0.2, timeout=30)
        ok(c, "seekcur 12")
        now = wait_status(c, lambda s: s["state"] == "play" and "elapsed" in s, what="the file playing")
        assert "error" not in now  # a seek clears the error
        if server.kind == "tonearm":
            assert float(now["elapsed"]) >= 12


def test_mpc_plays_a_station_and_shows_its_title(server, icecast, request):
    """`mpc add URL`, `mpc play`, then `mpc current` prints `STATION: TITLE` (mpc's default
    format for a song with a Name and a Title), and `mpc idleloop player` prints `player` when
    the title changes."""
    title = unique_title(request)
    mpc_out(server, "add", icecast.url())
    mpc_out(server, "play")
    icecast.set_title(title)
    poll("mpc current with the title", lambda: mpc_out(server, "current") == f"{STATION_NAME}: {title}\n",
         timeout=30, interval=0.2)
    with LineReader.mpc(server, "idleloop", "player") as loop, server.connect() as c:
        titles = []

        def change(attempt):
            titles.append(f"{title} #{attempt}")
            icecast.set_title(titles[-1])

        loop.repeat_until_printed(change, "player")
        poll("a new title in currentsong", lambda: current(c).get("Title") in titles, timeout=30)


# Plain files and HLS over HTTP

@pytest.mark.parametrize("suffix", ["flac", "wav"])
def test_a_lossless_file_over_http_reaches_the_output_bit_for_bit(make_audio_server, web, tmp_path, suffix,
                                                                   request):
    """A FLAC or WAV file served over HTTP reaches a pipe output exactly as `ffmpeg -f s16le`
    decodes the same file (the HTTP input adds, drops and changes nothing).

    MPD 0.23 drops the first 3 frames (12 bytes) of the WAV over HTTP, and plays the rest
    exactly; from a local file it is exact (test_audio_output.py): a strict xfail on MPD."""
    capture = tmp_path / "pcm.raw"
    server = make_audio_server(audio.pipe_output(capture))
    if server.kind == "mpd" and suffix == "wav":
        request.applymarker(pytest.mark.xfail(strict=True, reason="MPD 0.23 loses 3 frames of a WAV over HTTP"))
    reference = audio.decode(web.root / f"tone.{suffix}")
    with server.connect() as c:
        ok(c, f'add "{web.url(f"tone.{suffix}")}"')
        ok(c, "play")
        wait_status(c, lambda s: s["state"] == "play" or "error" in s, what="playback to start")
        wait_state(c, "stop")
        assert "error" not in status(c)
    received = audio.read_settled(capture, len(reference))
    assert len(received) == len(reference) and received == reference


# What an MPD user writes to play a station with a self-signed certificate; Tonearm loads
# mpd.conf files as they are, so both servers get the same lines.
NO_TLS_VERIFY = 'input {\n plugin "curl"\n verify_peer "no"\n verify_host "no"\n}\n'


def test_a_file_over_https_plays(make_server, web):
    """`https://` plays, not only `urlhandlers` listing it: a FLAC over TLS (a self-signed
    certificate, accepted through the curl input block's `verify_peer "no"`) plays to its end
    without an error."""
    server = make_server(extra_config=NO_TLS_VERIFY)
    url = web.https_url("tone.flac")
    with server.connect() as c:
        ok(c, f'add "{url}"')
        ok(c, "play")
        wait_status(c, lambda s: s["state"] == "play" and float(s.get("elapsed", 0)) > 0.2 or "error" in s,
                    what="the https URL to play")
        assert playing_file(c) == url
        stopped = wait_state(c, "stop")
        assert "error" not in stopped, stopped


def test_https_certificates_are_checked(make_player_server, web):
    """A certificate no authority signed is refused by default (status names the URL, the queue
    goes on), and trusted with the curl input block's `cacert`; a remote playlist likewise."""
    url = web.https_url("tone.flac")
    refusing = make_player_server()
    with refusing.connect() as c:
        ok(c, f'add "{url}"')
        ok(c, f'add "{A1}"')
        ok(c, "play")
        now = wait_status(c, lambda s: s.get("song") == "1" or s["state"] == "stop", what="the refusal")
        assert now.get("song") == "1" or url in now.get("error", ""), now
        assert c.command(f'load "{web.https_url("list.m3u")}"') == ["ACK [50@0] {load} No such playlist"]
    trusting = make_player_server(extra_config=f'input {{\n plugin "curl"\n cacert "{web.https_certificate}"\n}}\n')
    with trusting.connect() as c:
        ok(c, f'add "{url}"')
        ok(c, "play")
        wait_status(c, lambda s: s["state"] == "play" and float(s.get("elapsed", 0)) > 0.2, what="the file to play")
        assert "error" not in status(c)
        ok(c, f'load "{web.https_url("list.m3u")}"')


def test_hls_segments_are_certificate_checked(request, make_player_server, web):
    """An HLS playlist over https whose segments are on another server: each segment's
    certificate is checked as the playlist's was. With the playlist's certificate trusted
    (`cacert`), the playlist whose segments sit beside it plays, and the one whose segments are
    on a server with a certificate nobody signed does not: FFmpeg's HLS demuxer opens the
    segments itself, without the playlist's `tls_verify` and `ca_file` unless they are handed on.
    MPD 0.23 plays the second one (it fetches the segments unchecked): a strict xfail on MPD."""
    server = make_player_server(extra_config=f'input {{\n plugin "curl"\n cacert "{web.https_certificate}"\n}}\n')
    with server.connect() as c:
        ok(c, f'add "{web.https_url("hls/index.m3u8")}"')
        ok(c, "play")
        first = wait_elapsed(c, 0.5)
        assert "error" not in first
        ok(c, "stop")
        ok(c, "clear")
        ok(c, f'add "{web.https_url("hls/elsewhere.m3u8")}"')
        if server.kind == "mpd":
            request.applymarker(pytest.mark.xfail(strict=True, reason="MPD 0.23 fetches HLS segments unchecked"))
        ok(c, "play")
        ended = wait_status(c, lambda s: s["state"] == "stop" or float(s.get("elapsed", 0)) > 0.5,
                            what="the playlist to stop or play")
        assert ended["state"] == "stop", ended


def test_an_hls_playlist_plays_as_a_song(server, web):
    """An HLS station's `index.m3u8`, added as a song, plays: state play and elapsed moving."""
    with server.connect() as c:
        ok(c, f'add "{web.url("hls/index.m3u8")}"')
        ok(c, "play")
        first = wait_elapsed(c, 0.5)
        assert "error" not in first
        wait_elapsed(c, float(first["elapsed"]) + 1)


# Faults

def fault_url(web, fault: str) -> str:
    if fault == "refused":
        return f"http://127.0.0.1:{refused_port()}/station.mp3"
    return web.url(fault)


@pytest.mark.parametrize("fault", ["missing", "refused", "redirect-loop"])
def test_an_unreachable_station_is_reported_and_the_queue_goes_on(make_player_server, web, fault):
    """404, connection refused and a redirect loop. Alone in the queue: playback stops with an
    `error:` naming the URL (MPD: `Failed to decode URL; CURL failed: The requested URL returned
    error: 404`, `… Failed to connect to 127.0.0.1 port P after 0 ms: Couldn't connect to
    server`, `… Maximum (5) redirects followed`). With a song after it: that song plays (MPD
    clears the error when it starts). The server answers throughout."""
    server = make_player_server()
    url = fault_url(web, fault)
    with server.connect() as c:
        ok(c, f'add "{url}"')
        ok(c, "play")
        stopped = wait_status(c, lambda s: s["state"] == "stop" and "error" in s, timeout=30,
                              what="stop with an error")
        assert url in stopped["error"], stopped
        ok(c, "clearerror")
        assert "error" not in status(c)
        ok(c, "clear")
        ok(c, f'add "{url}"')
        # The long track: a two-second one can end between `status` and `currentsong` on a
        # loaded machine (seen once, on MPD, with the integration tests on two workers).
        ok(c, f'add "{LONG}"')
        ok(c, "play")
        wait_status(c, lambda s: s["state"] == "play" and s.get("song") == "1", timeout=30, what="the next song")
        assert playing_file(c) == LONG
        assert c.command("ping") == ["OK"]


def test_a_truncated_file_ends_and_the_queue_goes_on(make_player_server, web):
    """A file whose server closes the connection a third of the way in (the Content-Length
    promised more): the song ends (no later than where the data ends), the next song plays, and
    the server answers. (MPD reports no `error:` for it: the decoder just runs out of data.)"""
    server = make_player_server()
    requests = web.requests.count("/truncated.flac")
    with server.connect() as c:
        ok(c, f'add "{web.url("truncated.flac")}"')
        ok(c, f'add "{A1}"')
        ok(c, "play")
        # How much of it plays is the server's business: MPD reads the short transfer at once and
        # plays from 0 to 6 s of it, depending on whether the cut reaches its decoder first.
        wait_status(c, lambda s: s["state"] == "play" and s.get("song") == "1", timeout=30, what="the next song")
        assert playing_file(c) == A1
        assert c.command("ping") == ["OK"]
    assert web.requests.count("/truncated.flac") > requests


def test_a_source_that_stops_mid_stream_gives_way_to_the_next_song(make_player_server, icecast):
    """The station's source client is killed while a server plays it: Icecast ends the
    listeners' streams (and answers 404 from then on), the next song plays and the server
    answers. (MPD shows no `error:`: for it the stream just ended.)"""
    server = make_player_server()
    mount = f"/dropped-{server.kind}.mp3"
    icecast.start_source(mount, name="Dropped FM")
    try:
        with server.connect() as c:
            ok(c, f'add "{icecast.url(mount)}"')
            ok(c, f'add "{A1}"')
            ok(c, "play")
            assert poll("the station's name", lambda: current(c).get("Name"), timeout=30) == "Dropped FM"
            wait_elapsed(c, 0.5, timeout=30)
            icecast.stop_source(mount)
            wait_status(c, lambda s: s["state"] == "play" and s.get("song") == "1", timeout=30,
                        what="the next song")
            assert playing_file(c) == A1
            assert c.command("ping") == ["OK"]
    finally:
        icecast.stop_source(mount)


def test_a_dropped_connection_to_a_live_station_is_reconnected(make_player_server, web):
    """A live station whose connection drops after 3 s while the station itself is still on the
    air: the server connects again and the same song plays on (elapsed goes past the drop);
    the station saw a second request.

    Tonearm only (the issue asks for a reconnect): MPD 0.23 does not reconnect; for it the
    stream just ends at the drop (no error) and the next song plays."""
    server = make_player_server()
    if server.kind == "mpd":
        pytest.skip("MPD 0.23 does not reconnect a dropped stream (see the docstring)")
    url = web.url(f"dropping.mp3?{server.kind}-{time.monotonic()}")
    path = url.removeprefix(web.base)
    with server.connect() as c:
        ok(c, f'add "{url}"')
        ok(c, f'add "{A1}"')
        ok(c, "play")
        wait_status(c, lambda s: s.get("song") != "0" or float(s.get("elapsed", 0)) >= FixtureHTTPServer.DROP_AFTER + 3,
                    timeout=30, what="play past the drop")
        assert status(c).get("song") == "0" and playing_file(c) == url
        assert web.requests.count(path) >= 2


def test_controls_answer_while_a_stream_is_connecting(make_player_server, web):
    """A server that accepts and never answers: while the player waits for it, `status`, `next`
    and `stop` answer at once (within a generous bound), `next` moves on to the next song and
    `stop` stops.

    Between the two parts the stalled connection is closed: MPD 0.23's decoder stays stuck in
    it after `next`, and a `play 0` back to the same URL then blocked every client (over 10 s)."""
    server = make_player_server()
    try:
        with server.connect() as c:
            ok(c, f'add "{web.stall_url}"')
            ok(c, f'add "{A1}"')
            ok(c, f'add "{A2}"')
            ok(c, "play")
            time.sleep(1)  # the connection is open and unanswered now
            reply, seconds = timed(c, "status")
            assert reply[-1] == "OK" and seconds < ANSWERS_WITHIN, (reply, seconds)
            assert fields(reply)["state"] == "play" and fields(reply).get("song") == "0", reply
            # Buffering: nothing is heard yet, as MPD shows it (no format, no rate, no position).
            waiting = fields(reply)
            assert waiting["elapsed"] == "0.000" and waiting["bitrate"] == "0", reply
            assert "audio" not in waiting and "duration" not in waiting, reply
            reply, seconds = timed(c, "next")
            assert reply == ["OK"] and seconds < ANSWERS_WITHIN, (reply, seconds)
            wait_status(c, lambda s: s.get("song") == "1", what="the next song")
            assert playing_file(c) == A1
            ok(c, "stop")
            web.release_stalled()
            ok(c, "clear")
            ok(c, f'add "{web.stall_url}"')
            ok(c, f'add "{A1}"')
            ok(c, "play")
            time.sleep(1)
            reply, seconds = timed(c, "stop")
            assert reply == ["OK"] and seconds < ANSWERS_WITHIN, (reply, seconds)
            assert status(c)["state"] == "stop"
    finally:
        web.release_stalled()


def test_a_stalled_station_gives_way_to_the_next_song(make_player_server, web):
    """A server that accepts and never answers: the connection times out with an `error:`, and
    the next song plays, within the test's 30 s.

    Tonearm only: MPD 0.23 waits for ever (measured: still "play", song 0, elapsed 0 and no
    error after 40 s), which the issue asks Tonearm not to do."""
    server = make_player_server()
    if server.kind == "mpd":
        pytest.skip("MPD 0.23 waits for a stalled server for ever (see the docstring)")
    try:
        with server.connect() as c:
            ok(c, f'add "{web.stall_url}"')
            ok(c, f'add "{A1}"')
            ok(c, "play")
            wait_status(c, lambda s: s["state"] == "play" and s.get("song") == "1", timeout=30,
                        what="the next song")
            assert playing_file(c) == A1
    finally:
        web.release_stalled()


def test_a_stalled_next_station_replaced_before_its_turn_is_not_waited_for(make_player_server, web):
    """The song after the playing one is a server that accepts and never answers, and the
    decoder is already connecting to it (it opens the next song as soon as the current one is
    decoded, to go on without a gap). A client replaces it before its turn: the replacement
    plays at the border, and the stalled connection is given up, not waited out (Tonearm's
    10 s stream time-out, which would log `no data for 10 seconds` and leave the outputs
    silent meanwhile).

    MPD 0.23 likewise plays the replacement (its decoder waits for ever on the stalled server,
    and the player cancels it for the new next song)."""
    server = make_player_server()
    try:
        with server.connect() as c:
            ok(c, f'add "{A1}"')
            ok(c, f'add "{web.stall_url}"')
            connected = len(web.stalled)
            ok(c, "play")
            poll("the decoder connecting to the stalled next song", lambda: len(web.stalled) > connected, 30)
            assert status(c).get("song") == "0"
            ok(c, "delete 1")
            ok(c, f'add "{A2}"')
            wait_status(c, lambda s: s["state"] == "play" and s.get("song") == "1", timeout=30,
                        what="the replacement")
            assert playing_file(c) == A2
        if server.kind == "tonearm":
            assert "no data for 10 seconds" not in server.log_text()
    finally:
        web.release_stalled()


def test_load_of_a_stalled_url_blocks_no_other_client(make_server, web):
    """`load URL` of a server that never answers keeps only that client waiting: another client's
    `status` answers at once, and the `load` itself ends with an ACK within 30 s.

    Tonearm only: MPD 0.23 reads a remote playlist on its main thread, so every client waits
    (measured: no answer for over 100 s) and SIGTERM does not end it either."""
    if make_server.kind == "mpd":
        pytest.skip("MPD 0.23 blocks every client while loading from a stalled server (see the docstring)")
    server = make_server()
    try:
        with server.connect() as loader, server.connect() as other:
            loader.send(f'load "{web.stall_url}"\n')
            time.sleep(1)
            reply, seconds = timed(other, "status")
            assert reply[-1] == "OK" and seconds < ANSWERS_WITHIN, (reply, seconds)
            reply = loader.read_response(timeout=30)
            assert len(reply) == 1 and reply[0].startswith("ACK [") and "{load}" in reply[0], reply
    finally:
        web.release_stalled()


# Tags of remote songs

def test_addtagid_and_cleartagid_edit_a_stream_song_only(make_player_server, web):
    """`addtagid` and `cleartagid` change what `playlistinfo` shows for a stream; `cleartagid`
    without a tag clears them all. On a local file both are refused with MPD's ACK."""
    server = make_player_server()
    url = web.url("tone.mp3")
    with server.connect() as c:
        stream_id = ok(c, f'addid "{url}"')[0].removeprefix("Id: ")
        local_id = ok(c, f'addid "{A1}"')[0].removeprefix("Id: ")
        ok(c, f'addtagid {stream_id} artist "Radio Artist"')
        ok(c, f'addtagid {stream_id} title "Radio Title"')
        song = ok(c, f"playlistid {stream_id}")
        assert "Artist: Radio Artist" in song and "Title: Radio Title" in song, song
        ok(c, f"cleartagid {stream_id} artist")
        song = ok(c, f"playlistid {stream_id}")
        assert not any(line.startswith("Artist: ") for line in song) and "Title: Radio Title" in song, song
        ok(c, f"cleartagid {stream_id}")
        assert ok(c, f"playlistid {stream_id}") == [f"file: {url}", "Pos: 0", f"Id: {stream_id}", "OK"]
        assert c.command(f'addtagid {local_id} artist "X"') == [
            "ACK [4@0] {addtagid} Cannot edit tags of local file"]
        assert c.command(f"cleartagid {local_id} artist") == ["ACK [4@0] {cleartagid} Cannot edit tags of local file"]
        assert c.command(f"cleartagid {local_id}") == ["ACK [4@0] {cleartagid} Cannot edit tags of local file"]
