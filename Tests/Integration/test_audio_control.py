"""Audio outputs under control and under fault, against Tonearm and Debian's MPD 0.23: songs
that cannot be decoded, an ALSA device that cannot be opened, `outputs`/`enableoutput`/
`disableoutput`/`toggleoutput`/`outputset` with their idle events, ALSA's `allowed_formats`,
and `elapsed` as what has been heard.

Files come from the audio library (Tests/support/audio.py, made at test time); what a `pipe`
output receives is compared with the `ffmpeg` CLI's decode. No timing is asserted: tests wait
for states with generous timeouts, and elapsed is only checked for order and bounds.
"""
import array
import shutil
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.playback import pending_events, status, wait_state, wait_status  # noqa: E402

BROKEN_ALSA = 'audio_output {\n type "alsa"\n name "broken"\n device "hw:99"\n mixer_type "none"\n}\n'
ALSA_ERROR = 'Failed to open "broken" (alsa); Failed to open ALSA device "hw:99": Invalid argument'


@pytest.fixture
def damaged_music(audio_library, tmp_path):
    """A private music folder: good.flac, next.flac (the chirp), and bad.flac, which is the
    chirp while the server scans it (so it is in the database) and garbage after
    `spoil(path)`; trunc.flac is the first 20 000 bytes of long.flac (a valid header, then
    its data cut off: scanned with the full duration)."""
    music = tmp_path / "music"
    music.mkdir()
    for name in ("good.flac", "bad.flac", "next.flac"):
        shutil.copy(audio_library.music / "tone.flac", music / name)
    (music / "trunc.flac").write_bytes((audio_library.music / "long.flac").read_bytes()[:20000])
    return music


def spoil(path: Path):
    path.write_bytes(bytes((i * 7919 + 13) % 251 for i in range(30000)))


def test_a_song_that_cannot_be_decoded_is_skipped(make_audio_server, damaged_music, tmp_path):
    """A song whose file turned to garbage after the scan, in the middle of the queue: it is
    skipped and the next song plays, byte for byte (the pipe receives the two good songs and
    nothing else). At the end of the queue it leaves the player stopped with MPD's `error:`
    naming the song by its URI; alone in the queue, the same. (MPD clears the error when it
    starts the next song; whether it is still shown then is not asserted.)"""
    capture = tmp_path / "pcm.raw"
    server = make_audio_server(audio.pipe_output(capture), music_dir=damaged_music)
    spoil(damaged_music / "bad.flac")
    tone = audio.decode(damaged_music / "good.flac")
    with server.connect() as c:
        for name in ("good.flac", "bad.flac", "next.flac"):
            c.command(f'add "{name}"')
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
        assert audio.read_settled(capture, 2 * len(tone)) == tone + tone
        for queue in (["good.flac", "bad.flac"], ["bad.flac"]):
            c.command("clear")
            for name in queue:
                c.command(f'add "{name}"')
            assert c.command("play") == ["OK"]
            now = wait_status(c, lambda s: s["state"] == "stop" and "error" in s, what="the error")
            assert now["error"] == "Failed to decode bad.flac", queue
            assert c.command("clearerror") == ["OK"] and "error" not in status(c)
        assert c.command("ping") == ["OK"]


def test_a_truncated_file_plays_what_it_has(make_audio_server, audio_library, damaged_music, tmp_path):
    """A FLAC file cut off after its first frames plays those and ends early without an
    error; the next song follows, byte for byte."""
    capture = tmp_path / "pcm.raw"
    server = make_audio_server(audio.pipe_output(capture), music_dir=damaged_music)
    tone = audio.decode(damaged_music / "next.flac")
    whole = audio.decode(audio_library.music / "long.flac")
    with server.connect() as c:
        c.command('add "trunc.flac"')
        c.command('add "next.flac"')
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
        assert "error" not in status(c)
    received = audio.read_settled(capture)
    assert received.endswith(tone)
    head = received[:-len(tone)]
    assert 0 < len(head) and head == whole[:len(head)]


def test_an_alsa_device_that_cannot_be_opened(make_audio_server, tmp_path):
    """`device "hw:99"` (no such card): the server starts and serves, `outputs` lists the
    output, and a second (pipe) output plays the songs in full without an error. With the
    broken output alone, `play` pauses on the song with MPD's message in `error:`, and so does
    `play` again (which tries the device again); the server answers all along."""
    capture = tmp_path / "pcm.raw"
    server = make_audio_server(BROKEN_ALSA + audio.pipe_output(capture))
    tone = audio.decode(server.music_dir / "tone.flac")
    with server.connect() as c:
        outputs = c.command("outputs")
        assert [line for line in outputs if not line.startswith("attribute: ")] == [
            "outputid: 0", "outputname: broken", "plugin: alsa", "outputenabled: 1",
            "outputid: 1", "outputname: pipe", "plugin: pipe", "outputenabled: 1", "OK"]
        c.command('add "tone.flac"')
        c.command('add "tone.wav"')
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
        assert "error" not in status(c)
        assert audio.read_settled(capture, 2 * len(tone)) == tone + tone
        assert c.command("outputs") == outputs

    alone = make_audio_server(BROKEN_ALSA)
    with alone.connect() as c:
        c.command('add "tone.flac"')
        c.command('add "tone.wav"')
        for _ in range(2):
            answer = c.command("play")
            # MPD's `play` waits for its player thread to start the song (PlayerControl::SeekLocked)
            # and rethrows an error that thread met by then: when the outputs failed to open
            # first, `play` answers with their error. Tonearm always answers OK.
            mpd_raced = alone.kind == "mpd" and answer == [f"ACK [5@0] {{play}} {ALSA_ERROR}"]
            assert answer == ["OK"] or mpd_raced
            now = wait_status(c, lambda s: "error" in s, what="the output's error")
            if alone.kind == "mpd":
                # MPD may publish the error a moment before it pauses (see test_mpc); Tonearm's
                # first status with the error must already say pause.
                now = wait_status(c, lambda s: s["state"] == "pause" and "error" in s, what="MPD to pause")
            assert (now["state"], now["song"], now["error"]) == ("pause", "0", ALSA_ERROR)
            assert c.command("ping") == ["OK"]
        assert c.command("stop") == ["OK"] and status(c)["state"] == "stop"
        assert c.command("outputs")[:4] == ["outputid: 0", "outputname: broken", "plugin: alsa", "outputenabled: 1"]


TWO_NULLS = audio.null_output("first") + audio.null_output("second", ' mixer_type "software"\n enabled "no"\n')

# (command, its answer, the idle events it raises); the second output has a software mixer.
OUTPUT_COMMANDS = [
    ("outputs", ["outputid: 0", "outputname: first", "plugin: null", "outputenabled: 1",
                 "outputid: 1", "outputname: second", "plugin: null", "outputenabled: 0", "OK"], []),
    ("disableoutput 0", ["OK"], ["output"]),
    ("disableoutput 0", ["OK"], []),
    ("enableoutput 0", ["OK"], ["output"]),
    ("enableoutput 0", ["OK"], []),
    ("toggleoutput 0", ["OK"], ["output"]),
    ("toggleoutput 0", ["OK"], ["output"]),
    ("enableoutput 1", ["OK"], ["mixer", "output"]),
    ("toggleoutput 1", ["OK"], ["mixer", "output"]),
    ("toggleoutput 1", ["OK"], ["output"]),
    ("disableoutput 1", ["OK"], ["mixer", "output"]),
    ("enableoutput 2", ["ACK [50@0] {enableoutput} No such audio output"], []),
    ("disableoutput 9", ["ACK [50@0] {disableoutput} No such audio output"], []),
    ("toggleoutput 2", ["ACK [50@0] {toggleoutput} No such audio output"], []),
    ("toggleoutput -1", ["ACK [2@0] {toggleoutput} Number too large: -1"], []),
    ("enableoutput x", ["ACK [2@0] {enableoutput} Integer expected: x"], []),
    ("enableoutput", ['ACK [2@0] {enableoutput} wrong number of arguments for "enableoutput"'], []),
    ("outputs", ["outputid: 0", "outputname: first", "plugin: null", "outputenabled: 1",
                 "outputid: 1", "outputname: second", "plugin: null", "outputenabled: 0", "OK"], []),
]


def test_output_commands(make_audio_server):
    """The answers, errors and idle events of the output commands, as MPD gives them: `output`
    when an output's state changes (every toggle; not for enabling what is enabled), and
    `mixer` too when that output has a mixer (MPD: on enable and disable; on toggle only when
    it disables)."""
    check_answers_and_events(make_audio_server(TWO_NULLS), OUTPUT_COMMANDS)


def check_answers_and_events(server, script):
    """Runs each (command, answer, idle events) of `script`; a second client sees the events."""
    with server.connect() as c, server.connect() as watcher:
        pending_events(watcher)
        for command, answer, events in script:
            assert c.command(command) == answer, command
            assert sorted(pending_events(watcher)) == events, command


def test_a_disabled_output_receives_nothing(make_audio_server, tmp_path):
    """A pipe output disabled with `disableoutput` gets no byte while a null output plays the
    song; enabled again, it receives the next playback in full."""
    capture = tmp_path / "pcm.raw"
    server = make_audio_server(audio.null_output() + audio.pipe_output(capture))
    tone = audio.decode(server.music_dir / "tone.flac")
    with server.connect() as c:
        c.command('add "tone.flac"')
        assert c.command("disableoutput 1") == ["OK"]
        assert c.command("play") == ["OK"]
        wait_status(c, lambda s: float(s.get("elapsed", 0)) > 0.5, what="playback on the null output")
        wait_state(c, "stop")
        assert audio.read_settled(capture) == b""
        assert c.command("enableoutput 1") == ["OK"]
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
    assert audio.read_settled(capture, len(tone)) == tone


def test_the_only_output_disabled_and_enabled_during_a_pause(make_audio_server):
    """`pause 1`, `disableoutput` of the only output, `enableoutput`, `pause 0`: the song plays
    on from where it was paused, with no error, as MPD does. (Tonearm's output came back behind
    the audio decoded ahead of it, and `elapsed` stood still while the state said `play`.)"""
    server = make_audio_server(audio.null_output())
    with server.connect() as c:
        c.command('add "long.flac"')
        assert c.command("play") == ["OK"]
        wait_status(c, lambda s: float(s.get("elapsed", 0)) > 0.5, what="playback")
        assert c.command("pause 1") == ["OK"]
        paused = float(wait_state(c, "pause")["elapsed"])
        assert c.command("disableoutput 0") == ["OK"]
        assert c.command("enableoutput 0") == ["OK"]
        assert c.command("pause 0") == ["OK"]
        resumed = wait_status(c, lambda s: float(s.get("elapsed", 0)) > paused + 1, what="elapsed moving on")
        assert resumed["state"] == "play" and "error" not in resumed
        assert float(resumed["elapsed"]) < paused + 5, "the song did not go on from the pause"


def test_elapsed_is_what_has_been_heard(make_audio_server):
    """With a null output (paced in real time), elapsed never goes back and never passes the
    song's length while it plays; paused, it stands still; resumed, it goes on."""
    server = make_audio_server(audio.null_output())
    with server.connect() as c:
        c.command('add "long.flac"')
        assert c.command("play") == ["OK"]
        seen = []
        deadline = time.monotonic() + 20
        while len(seen) < 15 and time.monotonic() < deadline:
            now = status(c)
            if now["state"] == "play" and "elapsed" in now:
                seen.append(float(now["elapsed"]))
                assert float(now["duration"]) == 6
            time.sleep(0.05)
        assert seen == sorted(seen) and 0 <= seen[0] and seen[-1] <= 6
        assert seen[-1] > seen[0], "elapsed grows while playing"
        assert c.command("pause 1") == ["OK"]
        paused = float(wait_state(c, "pause")["elapsed"])
        assert paused >= seen[-1]
        for _ in range(5):
            time.sleep(0.1)
            assert float(status(c)["elapsed"]) == paused
        assert c.command("pause 0") == ["OK"]
        now = wait_status(c, lambda s: s["state"] == "stop" or float(s.get("elapsed", 0)) > paused,
                          what="elapsed to go on")
        assert now["state"] == "play" and paused < float(now["elapsed"]) <= 6


# An ALSA output on ALSA's `null` PCM (nothing is opened until something plays) and a null output.
ALSA_AND_NULL = ('audio_output {\n type "alsa"\n name "card"\n device "null"\n mixer_type "none"\n}\n'
                 + audio.null_output("null"))


def card(allowed: str, dop: str) -> list[str]:
    return ["outputid: 0", "outputname: card", "plugin: alsa", "outputenabled: 1",
            f"attribute: allowed_formats={allowed}", f"attribute: dop={dop}",
            "outputid: 1", "outputname: null", "plugin: null", "outputenabled: 1", "OK"]


# (command, its answer, the idle events it raises), as Debian's MPD 0.23 gives them.
OUTPUTSET_COMMANDS = [
    ("outputs", card("", "0"), []),
    ("outputset 0 dop 1", ["OK"], ["output"]),
    ("outputset 0 dop 1", ["OK"], ["output"]),
    ("outputset 0 dop 2", ["ACK [2@0] {outputset} Bad 'dop' value"], []),
    ("outputset 0 dop yes", ["ACK [2@0] {outputset} Bad 'dop' value"], []),
    ('outputset 0 allowed_formats "44100:16:2  *:24:*"', ["OK"], ["output"]),
    ("outputs", card("44100:16:2 *:24:*", "1"), []),
    ('outputset 0 allowed_formats "dsd64:2=dop 48000:24_3:1"', ["OK"], ["output"]),
    ("outputs", card("dsd64:2=dop 48000:24:1", "1"), []),
    ('outputset 0 allowed_formats "44100:16:2 x"', ["ACK [2@0] {outputset} Failed to parse the sample rate"], []),
    ('outputset 0 allowed_formats "44100:16"', ["ACK [2@0] {outputset} Channel count missing"], []),
    ("outputs", card("dsd64:2=dop 48000:24:1", "1"), []),
    ('outputset 0 allowed_formats ""', ["OK"], ["output"]),
    ("outputset 0 dop 0", ["OK"], ["output"]),
    ("outputs", card("", "0"), []),
    ("outputset 0 foo bar", ["ACK [2@0] {outputset} Unsupported attribute"], []),
    ("outputset 0 Dop 1", ["ACK [2@0] {outputset} Unsupported attribute"], []),
    ("outputset 0 foo-x bar", ["ACK [2@0] {outputset} Illegal attribute name"], []),
    ('outputset 0 "" bar', ["ACK [2@0] {outputset} Illegal attribute name"], []),
    ("outputset 1 dop 1", ["ACK [2@0] {outputset} Unsupported attribute"], []),
    ("outputset 2 dop 1", ["ACK [50@0] {outputset} No such audio output"], []),
    ("outputset 9 foo-x bar", ["ACK [50@0] {outputset} No such audio output"], []),
    ("outputset -1 dop 1", ["ACK [2@0] {outputset} Number too large: -1"], []),
    ("outputset x dop 1", ["ACK [2@0] {outputset} Integer expected: x"], []),
    ("outputset 0 dop", ['ACK [2@0] {outputset} wrong number of arguments for "outputset"'], []),
]


def test_outputset(make_audio_server):
    """`outputset` and the `attribute:` lines of `outputs`: ALSA's `dop` (0 or 1) and
    `allowed_formats` (a list of formats, printed in MPD's spelling), MPD's errors in MPD's
    order (the output, then the name, then the plugin), idle `output` on every success and on
    nothing else."""
    check_answers_and_events(make_audio_server(ALSA_AND_NULL), OUTPUTSET_COMMANDS)


def test_allowed_formats_sets_the_sample_type(make_audio_server, audio_library, tmp_path):
    """`allowed_formats "*:32:*"` makes the ALSA output take 32-bit samples: an ALSA `file:`
    PCM receives the same song, each sample the 16-bit one widened (`s << 16`). MPD adds a
    varying amount of silence around the song (it pads periods), so on MPD the comparison leaves
    out the silence at either end."""
    sizes, streams = [], []
    for index, setting in enumerate([None, '"*:32:*"']):
        raw = tmp_path / f"alsa{index}.raw"
        server = make_audio_server(f'audio_output {{\n type "alsa"\n name "card"\n device "file:\'{raw}\',raw"\n'
                                   ' mixer_type "none"\n}\n')
        with server.connect() as c:
            if setting:
                assert c.command(f"outputset 0 allowed_formats {setting}") == ["OK"]
            assert c.command('add "tone.flac"') == ["OK"] and c.command("play") == ["OK"]
            wait_state(c, "stop")
            assert "error" not in status(c)
        server.stop()
        sizes.append(len(audio.read_settled(raw)))
        streams.append(raw.read_bytes())
    narrow, wide = list(audio.samples(streams[0])), list(array.array("i", streams[1]))
    assert len(narrow) >= len(audio.decode(audio_library.music / "tone.flac")) // 2
    if server.kind == "mpd":
        narrow, wide = trim_silence(narrow), trim_silence(wide)
    assert wide == [s << 16 for s in narrow]


def trim_silence(samples: list[int]) -> list[int]:
    """`samples` without the zeros at either end."""
    start = next((i for i, s in enumerate(samples) if s), len(samples))
    end = len(samples) - next((i for i, s in enumerate(reversed(samples)) if s), 0)
    return samples[start:end]
