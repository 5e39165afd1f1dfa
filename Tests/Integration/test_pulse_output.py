"""MPD's `pulse` output (libpulse) on a private PulseAudio server with a null sink
(Tests/support/pulse.py): what it plays, recorded from the sink's monitor, is the decoded PCM
bit for bit; its mixer is the stream's volume in the server, with MPD's arithmetic, and a
change made in the server reaches `status` and idle `mixer`; the stream carries its name and
media role; `pause` corks it. Each test runs against Tonearm and Debian's MPD.
"""
import re
import time

import pytest

from support import audio
from support.playback import pending_events, status, wait_state, wait_status
from support.pulse import Recorder, sink_inputs

pytestmark = pytest.mark.realtime


def pulse_output(extra: str = "") -> str:
    return f'audio_output {{\n type "pulse"\n name "Tonearm test"\n mixer_type "hardware"\n{extra}}}\n'


@pytest.fixture
def tone(tmp_path):
    """A folder with `tone.flac`, a 2 s chirp, and its PCM as the `ffmpeg` CLI decodes it."""
    music = tmp_path / "music"
    music.mkdir()
    source = audio.chirp(tmp_path / "chirp.wav", 44100, 2)
    flac = audio.encode(source, music / "tone.flac")
    return music, audio.decode(flac)


@pytest.fixture
def start(make_audio_server, pulse, tone):
    return lambda extra="": make_audio_server(pulse_output(extra), music_dir=tone[0])


def stream_of(pulse) -> dict[str, str]:
    streams = sink_inputs(pulse)
    assert len(streams) == 1, streams
    return streams[0]


def wait_stream(pulse, predicate, timeout: float = 10) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while True:
        streams = sink_inputs(pulse)
        if len(streams) == 1 and predicate(streams[0]):
            return streams[0]
        assert time.monotonic() < deadline, streams
        time.sleep(0.05)


def paused_stream(c, pulse) -> dict[str, str]:
    """Plays the tone until the server has its stream, then pauses: the stream stays."""
    assert c.command('add "tone.flac"') == ["OK"]
    assert c.command("play") == ["OK"]
    stream = wait_stream(pulse, lambda s: s.get("Corked") == "no")
    assert c.command("pause 1") == ["OK"]
    return stream


def raw_volumes(stream: dict[str, str]) -> list[int]:
    return [int(value) for value in re.findall(r"(\d+) / +\d+%", stream["Volume"])]


def test_what_plays_is_the_decoded_pcm_bit_for_bit(start, pulse, tone, tmp_path):
    _, reference = tone
    server = start()
    recorder = Recorder(pulse, tmp_path / "recording.raw")
    with server.connect() as c:
        assert c.command('add "tone.flac"') == ["OK"]
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
    time.sleep(0.5)  # the monitor's last chunks
    recording = recorder.stop()
    # The sink does not rewind (the `pulse` fixture), so its monitor has the song from its first
    # frame; found by its first 20 ms, compared to its end.
    found = recording.find(reference[:3528])
    assert found >= 0 and found % 4 == 0, "the song's start is not in the recording"
    assert recording[found:found + len(reference)] == reference


def test_the_mixer_sets_the_streams_volume(start, pulse):
    server = start()
    with server.connect() as c:
        paused_stream(c, pulse)
        assert c.command("setvol 40") == ["OK"]
        # MPD's arithmetic: (40 × PA_VOLUME_NORM + 50) / 100, every channel.
        stream = wait_stream(pulse, lambda s: raw_volumes(s) == [26214, 26214])
        assert stream["media.role"] == "music" and stream["media.name"] == "Tonearm test"
        assert status(c)["volume"] == "40"


def test_a_change_in_the_server_reaches_status_and_idle(start, pulse):
    server = start()
    with server.connect() as watcher, server.connect() as c:
        stream = paused_stream(c, pulse)
        # Whatever opening the stream raised is heard; then a change made in the server.
        pending_events(watcher, "mixer")
        watcher.send("idle mixer\n")
        pulse.pactl("set-sink-input-volume", stream["index"], "30%")
        assert watcher.read_response(timeout=20) == ["changed: mixer", "OK"]
        wait_status(c, lambda s: s.get("volume") == "30", what="volume 30")


def test_pause_corks_the_stream_and_play_resumes(start, pulse):
    server = start()
    with server.connect() as c:
        paused_stream(c, pulse)
        wait_stream(pulse, lambda s: s.get("Corked") == "yes")
        assert c.command("pause 0") == ["OK"]
        wait_stream(pulse, lambda s: s.get("Corked") == "no")
        wait_state(c, "stop")


def test_a_bad_scale_volume_leaves_the_output_out(make_tonearm, pulse, tone):
    """Tonearm reports the block and goes on without it, as with any output it cannot set up."""
    server = make_tonearm(output=pulse_output(' scale_volume "9"\n'), music_dir=tone[0])
    with server.connect() as c:
        assert "outputname: Tonearm test" not in c.command("outputs")
    assert '"9" is not a number in the range 0.5 to 5.0' in server.log_text()


def test_a_level_set_while_no_stream_is_open(start, pulse):
    """MPD's pulse mixer lives with its stream: before the first `play` MPD refuses `setvol`.
    Tonearm keeps the level, shows it, and opens the stream at it (docs/protocol.md)."""
    server = start()
    with server.connect() as c:
        answer = c.command("setvol 40")
        if server.kind == "mpd":
            assert answer == ["ACK [5@0] {setvol} All outputs are disabled"]
            return
        assert answer == ["OK"]
        assert status(c)["volume"] == "40"
        paused_stream(c, pulse)
        wait_stream(pulse, lambda s: raw_volumes(s) == [26214, 26214])
        assert status(c)["volume"] == "40"
