"""The `httpd` output's song titles and its Ogg encoders, from Tonearm and from Debian's MPD
0.23 on the same songs (loopback only).

- `lame` (and `wave`, `flac`) give titles as ICY metadata to a listener that sends
  `Icy-MetaData: 1`: the ICY headers, then after every 8192 bytes of audio a block whose
  `StreamTitle` is "album - artist - title" of the song playing (MPD's order), or a zero byte.
- `vorbis` (MPD's default) and `opus` with `opustags` start a new Ogg stream for each song, its
  tags in the comment header (chained Ogg); read here with a small Ogg page parser.
- The lossy streams are compared with the song as `test_httpd_output.py` compares MP3: the
  decoded chirp, aligned within 4 000 frames, has a Pearson correlation of at least 0.99 with
  the source over 1.5 s (measured: above 0.999 for both).
- Pause and `always_on`: listeners get silence and stay connected, as MPD's do.
"""
import socket
import struct
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from support import audio  # noqa: E402
from support.playback import wait_elapsed, wait_state, wait_status  # noqa: E402
from support.servers import free_port  # noqa: E402
from test_httpd_output import Listener, httpd_output, pearson, wait_stopped  # noqa: E402

SONGS = [("one.flac", "First Song", "Ann", "Alpha", 3), ("two.flac", "Second", "Bob", None, 3)]


@pytest.fixture
def tagged_music(tmp_path):
    """Two short chirps with tags (the second without an album)."""
    music = tmp_path / "music"
    music.mkdir()
    for name, title, artist, album, seconds in SONGS:
        tags = ["-metadata", f"title={title}", "-metadata", f"artist={artist}"]
        if album:
            tags += ["-metadata", f"album={album}"]
        audio.ffmpeg("-f", "lavfi", "-i", f"aevalsrc={audio.CHIRP}:s=44100:d={seconds}", "-c:a", "flac",
                     "-sample_fmt", "s16", *tags, *audio.BITEXACT, music / name)
    return music


class IcyListener(Listener):
    """A listener that asks for ICY metadata."""

    def __init__(self, port: int):
        self.sock = socket.socket()
        self.sock.settimeout(30)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nIcy-MetaData: 1\r\n\r\n")
        self.data = bytearray()
        self.done = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def blocks(self, interval: int = 8192) -> tuple[bytes, list[bytes]]:
        """The audio and the non-empty metadata blocks, split as ICY interleaves them."""
        body = self.body
        audio_bytes, blocks, at = bytearray(), [], 0
        while at < len(body):
            audio_bytes += body[at:at + interval]
            at += interval
            if at >= len(body):
                break
            length = body[at] * 16
            if length:
                blocks.append(bytes(body[at + 1:at + 1 + length]))
            at += 1 + length
        return bytes(audio_bytes), blocks


def play_and_listen(c, port: int, song: str = "long.flac", after: float = 0.2) -> Listener:
    """Plays `song` and connects a listener once `after` seconds have played (MPD opens its
    port at the first play)."""
    assert c.command(f'add "{song}"') == ["OK"]
    assert c.command("play") == ["OK"]
    wait_elapsed(c, after)
    return Listener(port)


def play_all(server):
    with server.connect() as c:
        for name, *_ in SONGS:
            assert c.command(f'add "{name}"') == ["OK"]
        assert c.command("play") == ["OK"]


def listen_to_all(server, port: int, kind=Listener) -> Listener:
    """Plays both songs with a listener (of `kind`) that joins 0.3 s in, and returns it with
    everything it got once the songs ended."""
    play_all(server)
    with server.connect() as c:
        wait_elapsed(c, 0.3)
    listener = kind(port)
    wait_stopped(server)
    return listener.wait()


def ogg_links(data: bytes) -> list[dict[str, list[str]]]:
    """The comment header of each logical stream of a chained Ogg file, as a dict of upper-case
    names to values; pages are read as the Ogg spec lays them out."""
    links, packets, at = [], {}, 0
    while (at := data.find(b"OggS", at)) >= 0 and at + 27 <= len(data):
        header_type, serial, count = data[at + 5], struct.unpack_from("<I", data, at + 14)[0], data[at + 26]
        lacing = data[at + 27:at + 27 + count]
        body = at + 27 + count
        if header_type & 2:
            packets[serial] = [b""]
        current = packets.setdefault(serial, [b""])
        for size in lacing:
            current[-1] += data[body:body + size]
            body += size
            if size < 255:
                packet = current[-1]
                if packet.startswith(b"\x03vorbis") or packet.startswith(b"OpusTags"):
                    links.append(parse_comments(packet[7:] if packet[0] == 3 else packet[8:]))
                current.append(b"")
        at = body
    return links


def ogg_ends(data: bytes) -> list[tuple[int, bool]]:
    """For each logical stream, in the order they begin: the granule position of its last page
    and whether that page is marked as the end of the stream."""
    ends: dict[int, tuple[int, bool]] = {}
    at = 0
    while (at := data.find(b"OggS", at)) >= 0 and at + 27 <= len(data):
        header_type, granule, serial = data[at + 5], *struct.unpack_from("<qI", data, at + 6)
        ends[serial] = (granule, bool(header_type & 4))
        at += 27 + data[at + 26] + sum(data[at + 27:at + 27 + data[at + 26]])
    return list(ends.values())


def parse_comments(data: bytes) -> dict[str, list[str]]:
    vendor = struct.unpack_from("<I", data, 0)[0]
    at = 4 + vendor
    count = struct.unpack_from("<I", data, at)[0]
    at += 4
    comments: dict[str, list[str]] = {}
    for _ in range(count):
        length = struct.unpack_from("<I", data, at)[0]
        name, _, value = data[at + 4:at + 4 + length].decode().partition("=")
        comments.setdefault(name.upper(), []).append(value)
        at += 4 + length
    return comments


def test_icy_titles_change_with_the_song(make_audio_server, tagged_music):
    """A listener that asks for ICY metadata gets ICY's headers and each song's title once,
    "album - artist - title", in the order the songs play; the audio between the blocks is
    the whole MP3 stream."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "lame", ' genre "Chirps"\n website "http://example.invalid/"\n'),
                               music_dir=tagged_music)
    listener = listen_to_all(server, port, IcyListener)
    head = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in listener.head[1:])}
    assert listener.head[0] == "HTTP/1.1 200 OK"
    assert head["icy-metaint"] == "8192" and head["icy-name"] == "stream"
    assert head["icy-genre"] == "Chirps" and head["icy-url"] == "http://example.invalid/"
    assert head["icy-pub"] == "1" and head["content-type"] == "audio/mpeg"
    mp3, blocks = listener.blocks()
    titles = [block.rstrip(b" \0").decode() for block in blocks]
    assert titles == ["StreamTitle='Alpha - Ann - First Song';StreamUrl='';", "StreamTitle='Bob - Second';StreamUrl='';"]
    assert all(len(block) % 16 == 0 for block in blocks)
    assert mp3[:2] in (b"\xff\xfb", b"\xff\xf3", b"ID")  # an MP3 frame (or tag) where the audio starts


def test_a_plain_listener_gets_no_metadata(make_audio_server, tagged_music):
    """Without `Icy-MetaData: 1` the response has no ICY headers and the body is MP3 only."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "lame"), music_dir=tagged_music)
    listener = listen_to_all(server, port, Listener)
    assert not any(line.lower().startswith("icy-") for line in listener.head)
    assert b"StreamTitle" not in listener.body


def test_tags_no_sends_no_titles(make_audio_server, tagged_music):
    """`tags "no"`: the ICY headers still come, but every block is empty."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "lame", ' tags "no"\n'), music_dir=tagged_music)
    listener = listen_to_all(server, port, IcyListener)
    assert any(line.lower().startswith("icy-metaint") for line in listener.head)
    assert listener.blocks()[1] == []


@pytest.mark.parametrize("encoder", ["vorbis", "opus"])
def test_ogg_streams_chain_a_stream_per_song(make_audio_server, tagged_music, tmp_path, encoder):
    """Vorbis, and Opus with `opustags`, begin a new Ogg stream with each song's tags; the
    whole stream decodes to about the two songs' length. MPD also sends the empty stream its
    encoder opens with before the first song's, which is left out of the comparison."""
    port = free_port()
    extra = ' opustags "yes"\n' if encoder == "opus" else ""
    server = make_audio_server(httpd_output(port, encoder, extra), music_dir=tagged_music)
    listener = Listener(port) if server.kind == "tonearm" else None
    play_all(server)
    if listener is None:
        time.sleep(0.2)
        listener = Listener(port)
    wait_stopped(server)
    listener.wait()
    assert "Content-Type: audio/ogg" in listener.head
    links = ogg_links(listener.body)
    if server.kind == "mpd":
        links = [link for link in links if link]  # MPD's first stream, before any song, has no tags
    assert [link["TITLE"] for link in links] == [["First Song"], ["Second"]]
    assert [link["ARTIST"] for link in links] == [["Ann"], ["Bob"]]
    assert links[0]["ALBUM"] == ["Alpha"] and "ALBUM" not in links[1]
    decoded = listener.decoded(tmp_path, f"stream.{encoder}")
    seconds = len(decoded) / (44100 * 4)
    if server.kind == "mpd":
        # MPD's streams end short of the songs' lengths (123246 of 132300 Vorbis samples for
        # the first), and the last has no end-of-stream page.
        assert 5.0 < seconds < 6.5, seconds
        return
    # Each stream ends on a page marked as its end, whose granule position is exactly the
    # song's length in samples (Opus: at 48 kHz, with the 312 samples of pre-skip it declares).
    length = 3 * 48000 + 312 if encoder == "opus" else 3 * 44100
    assert ogg_ends(listener.body) == [(length, True), (length, True)]
    assert 5.9 < seconds < 6.1, seconds


def correlation_with(source: bytes, received: bytes) -> float:
    """The Pearson correlation of the left channel over 1.5 s, after aligning `received` to
    `source` within 4 000 frames (the encoders' and decoders' delay)."""
    source, received = audio.samples(source), audio.samples(received)
    at = 20000
    shift = min(range(0, 4000), key=lambda d: sum((received[2 * (at + d + i)] - source[2 * (at + i)]) ** 2
                                                     for i in range(0, 600, 3)))
    span = range(10000, 10000 + 66150)
    return pearson([source[2 * i] for i in span], [received[2 * (i + shift)] for i in span])


@pytest.mark.parametrize("encoder,extra", [("vorbis", ""), ("vorbis", ' bitrate "96"\n'),
                                           ("opus", ' bitrate "128000"\n')])
def test_lossy_ogg_stream_correlates_with_the_song(make_audio_server, audio_library, tmp_path, encoder, extra):
    """Vorbis (quality 3 by default, or 96 kbit/s) and Opus at 128 kbit/s (resampled to 48 kHz
    and back by the decoder here): correlation ≥ 0.99 with the song."""
    port = free_port()
    server = make_audio_server(httpd_output(port, encoder, extra))
    with server.connect() as c:
        listener = play_and_listen(c, port)
        wait_elapsed(c, 3)
        assert c.command("stop") == ["OK"]
    listener.wait()
    source = audio.decode(audio_library.music / "long.flac")
    received = listener.decoded(tmp_path, f"stream.{encoder}")
    assert len(received) > 44100 * 4 * 2
    # The listener joined a few tenths of a second in: try the song from each 80 ms up to
    # 0.6 s, each try aligning within 4 000 frames (90 ms).
    correlation = max(correlation_with(source[offset * 4:], received) for offset in range(0, 26460, 3500))
    print(f"{server.kind} {encoder}{extra.strip()}: correlation {correlation:.5f}")
    assert correlation >= 0.99


@pytest.mark.parametrize("encoder", ["vorbis", "opus"])
def test_ogg_listener_joining_mid_song_decodes(make_audio_server, audio_library, tmp_path, encoder):
    """A listener that joins 2 s into the song gets the stream's header pages first and then
    whole pages: FFmpeg decodes all of it without an error, about the song's remaining time."""
    port = free_port()
    server = make_audio_server(httpd_output(port, encoder))
    with server.connect() as c:
        assert c.command('add "long.flac"') == ["OK"]
        assert c.command("play") == ["OK"]
        wait_elapsed(c, 2)
    late = Listener(port)
    wait_stopped(server)
    late.wait()
    assert late.body.startswith(b"OggS")
    path = tmp_path / f"late.{encoder}"
    path.write_bytes(late.body)
    errors = audio.subprocess.run(audio.FFMPEG + ["-v", "error", "-xerror", "-i", str(path), "-f", "null", "-"],
                                  capture_output=True, text=True)
    assert errors.returncode == 0 and errors.stderr == ""
    seconds = len(audio.decode(path)) / (44100 * 4)
    assert 3 < seconds < 4.6, seconds


@pytest.mark.parametrize("encoder", ["vorbis", "opus"])
def test_a_late_listener_gets_the_playing_songs_header(make_audio_server, tagged_music, tmp_path, encoder):
    """A listener who joins during the second song: with `vorbis` its first Ogg stream carries
    the second song's tags; with `opus` without `opustags` (whose titles are ICY's, tested
    above for MP3) the header has no comments at all, as MPD's."""
    port = free_port()
    server = make_audio_server(httpd_output(port, encoder), music_dir=tagged_music)
    play_all(server)
    with server.connect() as c:
        wait_status(c, lambda s: s.get("song") == "1" and float(s.get("elapsed", 0)) > 0.5, what="the second song")
    listener = Listener(port)
    wait_stopped(server)
    listener.wait()
    links = ogg_links(listener.body)
    assert links, "no comment header"
    if encoder == "vorbis":
        assert links[0]["TITLE"] == ["Second"] and links[0]["ARTIST"] == ["Bob"], links
    else:
        assert links[0] == {}, links
    assert len(listener.decoded(tmp_path, f"late.{encoder}")) > 44100 * 4


def test_pause_sends_silence(make_audio_server, audio_library, tmp_path):
    """While paused the listener gets silence, so its player keeps the connection; the song
    goes on after it, whole: without the silence, what it got is the song bit for bit."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "wave"))
    with server.connect() as c:
        listener = play_and_listen(c, port)
        wait_elapsed(c, 2)
        assert c.command("pause 1") == ["OK"]
        time.sleep(1.5)
        assert c.command("pause 0") == ["OK"]
    wait_stopped(server)
    reference = audio.decode(audio_library.music / "long.flac")
    received = listener.wait().decoded(tmp_path, "paused.wav")
    silence = b"\0" * (44100 * 4)
    assert silence in received, "no second of silence during the pause"
    at = received.find(silence)
    end = at
    while end < len(received) and received[end:end + 4] == b"\0\0\0\0":
        end += 4
    assert 1.0 < (end - at) / (44100 * 4) < 2.5
    if server.kind == "tonearm":
        assert reference.endswith(received[:at] + received[end:])


def test_always_on_keeps_listeners_through_stop(make_audio_server, audio_library):
    """With `always_on "yes"`, `stop` leaves the output open: the listener stays connected and
    gets silence, then the next song."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "wave", ' always_on "yes"\n'))
    with server.connect() as c:
        listener = play_and_listen(c, port, "tone.flac")
        wait_state(c, "stop", timeout=30)
        time.sleep(1)
        before = len(listener.data)
        time.sleep(1.5)
        assert not listener.done.is_set(), "the listener was closed"
        grown = bytes(listener.data[before:])
        assert len(grown) > 44100 * 4 // 2 and grown.count(0) == len(grown), "no silence while stopped"
        assert c.command("play") == ["OK"]
        wait_state(c, "stop", timeout=30)
    time.sleep(0.5)
    listener.sock.close()
    reference = audio.decode(audio_library.music / "tone.flac")
    assert listener.body.count(reference[44100 * 4:44100 * 4 + 65536]) == 2, "the song was not heard twice"


def test_a_stations_new_title_reaches_icy_listeners(make_audio_server, audio_library):
    """A radio station relayed to an `httpd` output: when the station's StreamTitle changes
    (a real Icecast, its title set through its admin page), listeners get it in their next
    ICY block once the audio it came with is played."""
    from support.radio import Icecast

    port = free_port()
    server = make_audio_server(httpd_output(port, "lame"))
    with Icecast() as station, server.connect() as c:
        station.set_title("Before")
        assert c.command(f'add "{station.url()}"') == ["OK"]
        assert c.command("play") == ["OK"]
        wait_elapsed(c, 0.5, timeout=30)
        listener = IcyListener(port)
        time.sleep(1)
        station.set_title("Relayed Title")
        deadline = time.monotonic() + 30
        while dict(line.split(": ", 1) for line in c.command("currentsong")[:-1]).get("Title") != "Relayed Title":
            assert time.monotonic() < deadline, "the new title never reached currentsong"
            time.sleep(0.1)
        time.sleep(1.5)
        assert c.command("stop") == ["OK"]
    listener.sock.close()
    titles = [block.rstrip(b" \0").decode() for block in listener.blocks()[1]]
    assert titles and titles[-1] == "StreamTitle='Relayed Title';StreamUrl='';", titles


def test_software_volume_scales_the_stream(make_audio_server, audio_library, tmp_path):
    """`mixer_type "software"` on an `httpd` output: `setvol 50` scales what listeners get by
    MPD's factor for 50 % (122/1024). Tonearm's stream is exactly the song scaled with MPD's
    dither (its listener is there from the start); MPD widens to 24 bits first, so its stream is
    compared by level only."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "wave", ' mixer_type "software"\n'))
    with server.connect() as c:
        assert c.command("setvol 50") == ["OK"]
        early = Listener(port) if server.kind == "tonearm" else None
        listener = play_and_listen(c, port, "tone.flac")
        wait_state(c, "stop", timeout=30)
    listener = early or listener
    listener.wait()
    source = audio.samples(audio.decode(audio_library.music / "tone.flac"))
    received = audio.samples(listener.decoded(tmp_path, "quiet.wav"))

    def level(samples) -> float:
        return (sum(s * s for s in samples[::7]) / len(samples[::7])) ** 0.5

    tail = source[len(source) - len(received):]
    assert abs(level(received) / level(tail) - 122 / 1024) < 0.005
    if server.kind == "tonearm":
        assert received == audio.volume_16(source, 50)


def test_disable_closes_listeners_and_enable_streams_again(make_audio_server):
    """`disableoutput` ends the stream (the listener is closed, as MPD closes its clients; with
    no output left the player pauses); after `enableoutput` and `pause 0` a new listener gets
    the song again. `format` is forced on the stream:
    the WAV header says 48 kHz mono."""
    port = free_port()
    server = make_audio_server(httpd_output(port, "wave", ' format "48000:16:1"\n'))
    with server.connect() as c:
        first = play_and_listen(c, port)
        time.sleep(0.5)
        assert c.command("disableoutput 0") == ["OK"]
        assert first.done.wait(10), "the listener was not closed"
        assert c.command("enableoutput 0") == ["OK"]
        assert c.command("pause 0") == ["OK"]
        wait_elapsed(c, float(dict(line.split(": ", 1) for line in c.command("status")[:-1])["elapsed"]) + 0.5)
        second = Listener(port)
        time.sleep(1)
        assert c.command("stop") == ["OK"]
    second.wait()
    for listener in (first, second):
        header = listener.body[:44]
        channels, rate = struct.unpack_from("<HI", header, 22)
        assert header[:4] == b"RIFF" and (channels, rate) == (1, 48000), header
    assert len(second.body) > 44 + 48000 * 2 // 2
