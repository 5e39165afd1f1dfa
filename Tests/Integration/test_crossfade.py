"""Crossfade and MixRamp as the PCM shows them, on Tonearm and Debian's MPD 0.23 alike.

Two tones made with the `ffmpeg` CLI at test time: the outgoing song 440 Hz at half scale, the
incoming one 660 Hz at quarter scale, 21 s each (MPD crossfades only songs of 20 s or more).
In 50 ms windows both tones complete whole cycles, so projecting a window on each frequency
gives each song's amplitude exactly, whatever the other does; dividing by the song's amplitude
alone gives its weight in the mix.

A `pipe` output writes through Tests/support/throttle.py at 8× real time: MPD pairs the
crossfade's chunks only while the next song is decoded ahead of its outputs, which an unpaced
pipe outruns (then MPD fades less, or not at all, by chance). Tonearm mixes in the decoder and
does not care, but both servers get the same setup.

What both do, as measured on MPD 0.23 and asserted for each (overlaps differ by a chunk: MPD's
chunks hold 4 032 bytes of audio, Tonearm's 4 096):
- `crossfade 3`: the stream is 3 s shorter than the two songs; over the overlap the outgoing
  song's weight falls as cos²(π/2·x) and the incoming one's rises as sin²(π/2·x) (MPD's
  `pcm_mix`), x going from 0 to 1;
- MixRamp (`mixrampdelay` > 0): the overlap comes from the MIXRAMP tags, and the songs are added
  at full weight; without tags the overlap is the crossfade's length, still added;
- no crossfade: songs shorter than 20 s, songs of different formats (44.1 and 48 kHz), single
  mode;
- `elapsed` follows the outgoing song to its end and the song changes when the fade is over,
  `elapsed` then being the fade's length into the new song;
- deleting the next song during the fade: what was already played stays mixed, the outgoing
  song plays on alone to its end.
"""
import array
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.playback import status, wait_state, wait_status  # noqa: E402

RATE = 44100
SONG = 21  # seconds
WINDOW = RATE // 20  # 50 ms: 22 cycles of 440 Hz, 33 of 660 Hz
OUT_HZ, IN_HZ = 440, 660
THROTTLE = Path(__file__).resolve().parent.parent / "support" / "throttle.py"
# MixRamp profiles: each song has both tags, with other times, so that the overlap shows which
# ones count: the incoming song's start (-20 dB 0.5 s in, interpolated) and the outgoing one's
# end (-20 dB until 3 s before its end): 0.5 + 3 − 1 = 2.5 s. (The other pairings would give
# 1.1, 4 or no overlap.)
OUT_RAMPS = {"MIXRAMP_START": "-30.00 0.05;-10.00 0.15", "MIXRAMP_END": "-30.00 4.0;-10.00 2.0"}
IN_RAMPS = {"MIXRAMP_START": "-30.00 0.25;-10.00 0.75", "MIXRAMP_END": "-30.00 3.0;-10.00 1.0"}


def tone(path: Path, hz: int, amplitude: float, seconds: float, rate: int = RATE, tags: dict | None = None):
    expression = f"{amplitude}*sin(2*PI*{hz}*t)"
    metadata = [a for k, v in (tags or {}).items() for a in ("-metadata", f"{k}={v}")]
    audio.ffmpeg("-f", "lavfi", "-i", f"aevalsrc={expression}|{expression}:s={rate}:d={seconds}",
                 "-sample_fmt", "s16", "-c:a", "flac", *metadata, *audio.BITEXACT, path)


@pytest.fixture(scope="session")
def crossfade_library(tmp_path_factory):
    music = tmp_path_factory.getbasetemp() / "crossfade-library"
    music.mkdir()
    tone(music / "out.flac", OUT_HZ, 0.5, SONG)
    tone(music / "in.flac", IN_HZ, 0.25, SONG)
    tone(music / "in48.flac", IN_HZ, 0.25, SONG, rate=48000)
    tone(music / "short_out.flac", OUT_HZ, 0.5, 6)
    tone(music / "short_in.flac", IN_HZ, 0.25, 6)
    tone(music / "ramp_out.flac", OUT_HZ, 0.5, SONG, tags=OUT_RAMPS)
    tone(music / "ramp_in.flac", IN_HZ, 0.25, SONG, tags=IN_RAMPS)
    tone(music / "end_only.flac", OUT_HZ, 0.5, SONG, tags={"MIXRAMP_END": OUT_RAMPS["MIXRAMP_END"]})
    tone(music / "start_only.flac", IN_HZ, 0.25, SONG, tags={"MIXRAMP_START": IN_RAMPS["MIXRAMP_START"]})
    return music


@pytest.fixture
def fading_server(make_audio_server, crossfade_library, tmp_path):
    """A server on the crossfade library with a throttled pipe output; returns (server, capture)."""
    capture = tmp_path / "pcm.raw"

    def make(speed: float = 8):
        output = audio.pipe_output(capture).replace(f"cat >> {capture}", f"/usr/bin/python3 {THROTTLE} {capture} {speed}")
        return make_audio_server(output, music_dir=crossfade_library), capture
    return make


def play(server, capture: Path, *commands: str) -> array.array:
    """Runs `commands`, waits for the player to stop, returns the left channel written."""
    with server.connect() as c:
        for command in commands:
            assert c.command(command) == ["OK"], command
        wait_state(c, "stop", timeout=60)
        assert "error" not in status(c)
    return audio.samples(audio.read_settled(capture))[0::2]


def amplitude(left, start: int, hz: int) -> float:
    """The amplitude of `hz` in the window from frame `start`, as a fraction of full scale."""
    w = 2 * math.pi * hz / RATE
    window = left[start:start + WINDOW]
    c = sum(x * math.cos(w * i) for i, x in enumerate(window))
    s = sum(x * math.sin(w * i) for i, x in enumerate(window))
    return 2 * math.hypot(c, s) / len(window) / 32768


def weights(left, at: int) -> tuple[float, float]:
    """Each song's weight in the window at frame `at`: its amplitude over its amplitude alone."""
    return amplitude(left, at, OUT_HZ) / 0.5, amplitude(left, at, IN_HZ) / 0.25


def overlap_seconds(left, songs: float = 2 * SONG) -> float:
    return songs - len(left) / RATE


def test_crossfade_follows_mpds_curve(fading_server):
    """`crossfade 3`: 3 s of overlap (within a chunk or two), the outgoing song's weight
    cos²(π/2·x) and the incoming one's sin²(π/2·x) across it (a linear fade would be 0.25 off a
    quarter of the way in), each song alone outside it."""
    server, capture = fading_server()
    left = play(server, capture, "crossfade 3", 'add "out.flac"', 'add "in.flac"', "play")
    overlap = overlap_seconds(left)
    assert abs(overlap - 3) < 0.05, overlap
    fade_start = round((SONG - overlap) * RATE)
    fade_frames = round(overlap * RATE)
    checked = 0
    for at in range(fade_start + WINDOW, fade_start + fade_frames - 2 * WINDOW, WINDOW):
        x = (at + WINDOW / 2 - fade_start) / fade_frames
        outgoing, incoming = weights(left, at)
        assert abs(outgoing - math.cos(math.pi / 2 * x) ** 2) < 0.03, (x, outgoing)
        assert abs(incoming - math.sin(math.pi / 2 * x) ** 2) < 0.03, (x, incoming)
        checked += 1
    assert checked > 50
    for at in (fade_start - 5 * WINDOW, fade_start - 2 * WINDOW):
        assert weights(left, at)[1] < 0.01 and abs(weights(left, at)[0] - 1) < 0.01
    for at in (fade_start + fade_frames + WINDOW, len(left) - 2 * WINDOW):
        assert weights(left, at)[0] < 0.01 and abs(weights(left, at)[1] - 1) < 0.01


@pytest.mark.parametrize("songs,expected", [
    (("ramp_out.flac", "ramp_in.flac"), 2.5), (("end_only.flac", "start_only.flac"), 2.5), (("out.flac", "in.flac"), 3.0),
], ids=["tags", "the-two-that-count", "no-tags"])
def test_mixramp_adds_the_songs_over_the_tagged_overlap(fading_server, songs, expected):
    """`mixrampdb -20`, `mixrampdelay 1`: the incoming song's MIXRAMP_START reaches -20 dB 0.5 s
    in, the outgoing one's MIXRAMP_END 3 s before its end: they overlap by 0.5 + 3 − 1 = 2.5 s,
    whether or not the songs carry their other tag. Without tags the overlap is the crossfade's
    3 s. Either way the songs are added at full weight rather than faded.

    MPD 0.23 does not always see the tags: its FLAC decoder reports the stream ready before it
    reads them, and the player may decide in between (measured: the same two files gave the
    tags' overlap in one run and the crossfade's in the next). So on MPD a tagged pair may also
    overlap by the crossfade's 3 s; Tonearm reads the tags when it opens the song."""
    server, capture = fading_server()
    left = play(server, capture, "crossfade 3", "mixrampdb -20", "mixrampdelay 1",
                *(f'add "{song}"' for song in songs), "play")
    overlap = overlap_seconds(left)
    allowed = {expected, 3.0} if server.kind == "mpd" else {expected}
    assert any(abs(overlap - seconds) < 0.05 for seconds in allowed), overlap
    fade_start = round((SONG - overlap) * RATE)
    for at in range(fade_start + 2 * WINDOW, fade_start + round(overlap * RATE) - 3 * WINDOW, 4 * WINDOW):
        outgoing, incoming = weights(left, at)
        assert abs(outgoing - 1) < 0.01 and abs(incoming - 1) < 0.01, (at, outgoing, incoming)


@pytest.mark.parametrize("commands,songs", [
    (["crossfade 2"], ("short_out.flac", "short_in.flac")),
    (["crossfade 3"], ("out.flac", "in48.flac")),
], ids=["shorter-than-20s", "formats-differ"])
def test_no_crossfade_where_mpd_does_not(fading_server, commands, songs):
    """Songs under 20 s, and a 48 kHz song after a 44.1 kHz one (resampled to the pipe's 44.1
    kHz, a handful of frames off on MPD), play one after the other at full length."""
    server, capture = fading_server()
    left = play(server, capture, *commands, *(f'add "{song}"' for song in songs), "play")
    seconds = 12 if songs[0].startswith("short") else 2 * SONG
    assert abs(overlap_seconds(left, seconds)) < 0.01
    first = 6 if songs[0].startswith("short") else SONG
    assert weights(left, (first - 1) * RATE)[1] < 0.01, "the incoming song is not in the outgoing one's end"


def test_single_mode_does_not_crossfade(fading_server):
    """`single 1` pauses at the border into the next song (MPD's border pause): the song plays
    whole, its end not faded."""
    server, capture = fading_server()
    with server.connect() as c:
        for command in ("crossfade 3", "single 1", 'add "out.flac"', 'add "in.flac"', "play"):
            assert c.command(command) == ["OK"], command
        wait_state(c, "pause", timeout=60)
    left = audio.samples(audio.read_settled(capture))[0::2]
    assert len(left) == SONG * RATE
    outgoing, incoming = weights(left, len(left) - 2 * WINDOW)
    assert abs(outgoing - 1) < 0.01 and incoming < 0.01


def test_elapsed_follows_the_outgoing_song_through_the_fade(make_audio_server, crossfade_library):
    """On a real-time (null) output, 5 s from the end of a 21 s song with `crossfade 3`:
    `status` shows the outgoing song while the fade plays (elapsed past 18.5 s), and the
    incoming one from the fade's end on, its elapsed already ~3 s. MPD may show `elapsed: 0.000`
    for an instant at the change, before its outputs report the new song's time; after that
    it is ~3 s too. Tonearm never shows less."""
    server = make_audio_server(audio.null_output(), music_dir=crossfade_library)
    seen = []

    def record(s):
        seen.append((s.get("song"), float(s.get("elapsed", 0))))
        return s.get("song") == "1" and seen[-1][1] > 0
    with server.connect() as c:
        for command in ("crossfade 3", 'add "out.flac"', 'add "in.flac"', "seek 0 16"):
            assert c.command(command) == ["OK"], command
        wait_status(c, record, timeout=60, what="the new song's elapsed")
    assert any(song == "0" and elapsed > 18.5 for song, elapsed in seen), seen
    incoming = [elapsed for song, elapsed in seen if song == "1"]
    if server.kind == "mpd":
        incoming = [elapsed for elapsed in incoming if elapsed > 0]
    assert incoming and all(elapsed >= 2.9 for elapsed in incoming), seen


def test_deleting_the_next_song_during_the_fade_leaves_the_outgoing_song(fading_server):
    """At real time, `delete 1` while the fade plays: the queue has nothing after the song, and
    the stream (played from 15 s in) is exactly the rest of the outgoing song, 6 s, nothing
    lost or repeated; what was mixed ahead of the outputs stays mixed (MPD: up to its output
    pipe's 64 chunks, 1.5 s; Tonearm: what the output thread had taken), after that the
    outgoing song plays alone: its last quarter second has no trace of the incoming one."""
    server, capture = fading_server(speed=1)
    with server.connect() as c:
        for command in ("crossfade 3", 'add "out.flac"', 'add "in.flac"', "seek 0 15"):
            assert c.command(command) == ["OK"], command
        wait_status(c, lambda s: float(s.get("elapsed", 0)) >= 18.2, timeout=60, what="the fade")
        assert c.command("delete 1") == ["OK"]
        wait_state(c, "stop", timeout=60)
    left = audio.samples(audio.read_settled(capture))[0::2]
    assert abs(len(left) / RATE - 6) < 0.001, len(left) / RATE
    outgoing, incoming = weights(left, len(left) - RATE // 4 - WINDOW)
    assert abs(outgoing - 1) < 0.01 and incoming < 0.01


def test_a_song_that_follows_itself_fades_into_itself_and_plays_on(make_audio_server, crossfade_library):
    """`repeat` with one song and `crossfade 3`: the song fades into its own start and plays on
    (the pipeline must tell the player that the same song started again, or the player waits
    for a song that never ends)."""
    server = make_audio_server(audio.null_output(), music_dir=crossfade_library)
    seen = []

    def restarted(s):
        seen.append((s["state"], s.get("songid"), float(s.get("elapsed", 0))))
        return s["state"] != "play" or (any(e > 18 for _, _, e in seen) and seen[-1][2] < 10)
    with server.connect() as c:
        for command in ("crossfade 3", "repeat 1", 'add "out.flac"', "seek 0 15"):
            assert c.command(command) == ["OK"], command
        now = wait_status(c, restarted, timeout=60, what="the song to start again")
        assert now["state"] == "play", seen
        restart = float(now.get("elapsed", 0))
        wait_status(c, lambda s: s["state"] != "play" or float(s.get("elapsed", 0)) >= restart + 2,
                    timeout=60, what="the song to play on")
        assert status(c)["state"] == "play"
