"""The `alsa` output on a real clock: a private PulseAudio's null sink (`device "pulse"`, through
ALSA's pulse plugin), recorded from the sink's monitor with `parec` (Tests/support/pulse.py).
The clock tests (the queue, pause, seek) and the sound server's death also run with the `pulse`
output (libpulse), the other way to the same sink.

Unlike the `pipe` output of test_audio_output.py, this device takes samples at 44.1 kHz of real
time, negotiates hardware parameters, blocks the writer, and underruns like a sound card.

The criterion for sound is bit-exactness: the songs are 16-bit 44.1 kHz stereo FLAC, the sink runs
at 44.1 kHz s16le stereo, nothing is resampled, no volume applies (`mixer_type "none"`, sink and
stream at 100 %), and the sink is loaded without rewinds (see pulse.py), so the monitor carries
the decoded PCM unchanged. The recording, aligned by an exact search for the source's first 20 ms,
must equal the source frame for frame; a lost, repeated or changed frame fails. Every song is a
different pair of rising chirps, so no stretch of audio matches anywhere but in its place.

Times (`pause`, `play`, `seek` latencies) are read from the recording's timeline, mapped to
`time.monotonic()` by the arrival of parec's reads (pulse.ClockRecorder.time_of), and compared with
the moment the command was sent. The tolerances are the issue's functional figures (elapsed within
50 ms of the wall clock over two minutes, play resuming within 100 ms), not performance goals;
the test waits for states and for the recording, never sleeps blindly.

Every test runs against Debian's MPD 0.23 too (its `alsa` output on the same device, `log_level
"verbose"` so that its underruns are logged), with a 30 s queue instead of two minutes for the
clock test. Where MPD differs, the test says so:
- MPD's `status` after the sound server dies says `error: Failed to open audio output`; Tonearm
  names the failure (`Failed to play on "pulse" (alsa); snd_pcm_writei() failed: Input/output
  error`). Both pause on the song, keep serving, and resume on `play` once the server is back.
- MPD logs an underrun at debug level (`Underrun on ALSA device "pulse"`); Tonearm logs a warning
  (`audio output "pulse" (alsa) ran dry (underrun); recovered`).
- MPD's `pause` drops what the device holds: it falls silent at once, but 0.88 s of the song are
  never heard. Tonearm pauses the device in place: nothing is lost, and the sound stops within
  the sound server's own latency: the output thread's wait for room ends at the pause.
- After a `play` that fails while the sound server is away, MPD's `status` shows elapsed 0.000,
  though the next `play` resumes where it was; Tonearm's elapsed stays put.
- Near a song border MPD's `status` can show the old song with elapsed 0.000, a whole song back
  (measured by polling `status` without a pause; test_playback.py polls for it on purpose). The
  clock test leaves such samples out for MPD; Tonearm reads the old song as ended until the next
  one is current, and must not show it.
"""
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.playback import status, wait_state, wait_status  # noqa: E402
from support.polling import poll  # noqa: E402
from support.pulse import RATE, ClockRecorder, PulseAudio, describe, find_frames, first_difference, matches, \
    segments, silent, tones  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

pytestmark = pytest.mark.realtime

ALSA_PULSE = ('audio_output {\n type "alsa"\n name "pulse"\n device "pulse"\n mixer_type "none"\n}\n')
# The other way to the sound server, for the clock tests (issue 20 item 3: the same tests).
OUTPUTS = {"alsa": ALSA_PULSE, "pulse": 'audio_output {\n type "pulse"\n name "pulse"\n mixer_type "none"\n}\n'}
LONG_SECONDS, SHORT_SECONDS, SONGS = 24, 6, 5
# ALSA's defaults for the output (MPD's): a 500 ms buffer in periods of 125 ms. The pulse plugin
# frees its buffer a period at a time, so a blocked write returns, and `elapsed` advances, in
# steps of up to a period.
PERIOD = 0.125
# The clock test compares the median offset of elapsed from the wall clock in windows this long
# (about 50 samples, 40 periods each): the steps average out, a drift does not.
WINDOW = 5
UNDERRUN_LINE = {"tonearm": 'audio output "pulse" (alsa) ran dry (underrun); recovered',
                 "mpd": 'Underrun on ALSA device "pulse"'}


@pytest.fixture(scope="module")
def music(tmp_path_factory):
    """`long/tone0…4.flac` (24 s each: two minutes) and `short/tone0…4.flac` (6 s each), and the
    PCM the `ffmpeg` CLI decodes from each, by URI."""
    root = tmp_path_factory.mktemp("pulse-music")
    pcm = {}
    for folder, seconds in (("long", LONG_SECONDS), ("short", SHORT_SECONDS)):
        for path in tones(root / folder, SONGS, seconds):
            pcm[f"{folder}/{path.name}"] = audio.decode(path)
    return root, pcm


@pytest.fixture
def pulse(tmp_path):
    """A private PulseAudio whose sink does not rewind, so that its monitor carries every frame
    (conftest's `pulse` has rewinds, and sets `PULSE_SERVER` for the whole test instead)."""
    with PulseAudio(tmp_path / "pulse", rewinds=False) as server:
        yield server


@pytest.fixture(params=["tonearm", "mpd"])
def kind(request):
    return request.param


@pytest.fixture(params=list(OUTPUTS))
def output(request) -> str:
    """The output block of a clock test: the `alsa` output on ALSA's `pulse` device, or the
    `pulse` output (libpulse)."""
    return OUTPUTS[request.param]


@pytest.fixture
def start_server(kind, tmp_path, music):
    """Starts Tonearm or Debian's MPD on the songs, with the ALSA output on the sound server
    (`PULSE_SERVER` in its environment), and waits for the library to hold every song."""
    started = []

    def make(pulse: PulseAudio, output: str = ALSA_PULSE):
        if kind == "tonearm":
            server = TonearmServer(tmp_path / "tonearm", music_dir=music[0], output=output, env=pulse.environment())
        else:
            server = MPDServer(tmp_path / "mpd", music_dir=music[0], output=output, env=pulse.environment(),
                               extra_config='log_level "verbose"\n')
        server.kind = kind
        started.append(server)
        server.start()
        with server.connect() as c:
            if kind == "mpd":
                assert c.command("update")[-1] == "OK"
            wait_status(c, lambda s: "updating_db" not in s and library_size(c) == 2 * SONGS, 30,
                        "the library scan")
        return server

    yield make
    for server in started:
        if server.process.poll() is None:
            server.stop()


def library_size(c) -> int:
    return sum(1 for line in c.command("listall") if line.startswith("file: "))


def server_log(server) -> str:
    if server.kind == "mpd":
        path = server.workdir / "log"
        return path.read_text(errors="replace") if path.exists() else ""
    return server.log_text()


def timed(c, command: str) -> tuple[float, list[str]]:
    """Sends `command`; returns the moment just before it was sent, and the answer."""
    sent = time.monotonic()
    return sent, c.command(command)


def wait_sound_after(recorder: ClockRecorder, frame: int, seconds: float, timeout: float = 30):
    """Waits until the sink's clock has run `seconds` past `frame` and those last `seconds` hold
    sound (the song plays)."""
    need = round(seconds * RATE)

    def enough():
        return recorder.frames - frame >= need and not silent(recorder.tail(need))
    poll(f"{seconds} s of sound after frame {frame}", enough, timeout, interval=0.01)


def play_until_heard(c, recorder: ClockRecorder, uri: str, seconds: float):
    """Queues `uri`, plays it and waits until the sink has played `seconds` of it."""
    assert c.command(f'add "{uri}"') == ["OK"]
    began = recorder.frames
    assert c.command("play") == ["OK"]
    wait_sound_after(recorder, began, seconds)


def play_out(c, recorder: ClockRecorder) -> bytes:
    """Waits for the song to end and the sink to play half a second of silence after it; returns
    the recording."""
    wait_state(c, "stop", timeout=SHORT_SECONDS + 20)
    recorder.wait_seconds(0.5)
    return recorder.stop()


def stop_and_record(c, recorder: ClockRecorder) -> bytes:
    """`stop`, a little more of the sink's silence, and the recording."""
    assert c.command("stop") == ["OK"]
    recorder.wait_seconds(0.3)
    return recorder.stop()


def test_a_queue_plays_bit_exact_and_elapsed_follows_the_clock(start_server, pulse, music, kind, output):
    """Five songs played back to back (two minutes; 30 s on MPD) come out of the sink exactly as
    decoded: silence, then every frame of the five songs in order with no gap, repeat or changed
    frame at the joins or anywhere else, then silence. Meanwhile `status` is sampled every 0.1 s:
    song plus `elapsed` (the position in the whole queue) must advance as the wall clock does.
    The offset between the two moves in steps of up to an ALSA period (the pulse plugin takes
    audio a period at a time), so it is compared in windows of 5 s (from 2 s in: the buffer fills
    first, which puts elapsed up to half a second ahead, a constant lead): the median of every
    window must stay within 50 ms of the first window's, over the whole two minutes, and no single
    sample may stray further than 50 ms plus a period from it. Each sample's wall time is the
    middle of its status call, whose duration widens that sample's bound; a slow call under load
    costs nothing else. Windows inside every song catch a clock that runs fast or slow even
    though each song starts `elapsed` afresh (0.5 % too fast fails).

    Measured here: Tonearm's window medians stayed within 13 ms of the first over two minutes
    (the last window 3 to 10 ms off), MPD's within 12 ms over 30 s; the samples spread over about
    150 ms (a period plus the calls) on both. A clock 0.5 % fast (broken on purpose) drifted 84 ms."""
    folder, seconds = ("long", LONG_SECONDS) if kind == "tonearm" else ("short", SHORT_SECONDS)
    uris = [f"{folder}/tone{i}.flac" for i in range(SONGS)]
    source = b"".join(music[1][uri] for uri in uris)
    server = start_server(pulse, output=output)
    samples = []
    with ClockRecorder(pulse) as recorder, server.connect() as c:
        for uri in uris:
            assert c.command(f'add "{uri}"') == ["OK"]
        assert c.command("play") == ["OK"]
        deadline = time.monotonic() + SONGS * seconds + 30
        while time.monotonic() < deadline:
            before = time.monotonic()
            current = status(c)
            after = time.monotonic()
            samples.append((before, after, current))
            if current["state"] == "stop":
                break
            time.sleep(0.1)
        assert samples[-1][2]["state"] == "stop", "the queue did not finish"
        assert all("error" not in s for _, _, s in samples)
        recorder.wait_seconds(0.5)
        recording = recorder.stop()

    start = find_frames(recording, source[:RATE // 50 * 4])
    assert start is not None, f"the queue's first 20 ms are not in the recording: {describe(recording, source)}"
    end = start * 4 + len(source)
    assert silent(recording[:start * 4]), "sound before the queue"
    difference = first_difference(recording[start * 4:end], source)
    assert difference is None, (f"the recording differs from the source at frame {difference} "
                                f"({difference / RATE:.3f} s): {describe(recording, source)}")
    assert len(recording) > end and silent(recording[end:]), "sound after the queue, or the recording ended early"

    # elapsed against the wall clock.
    points = []  # (wall time, position in the queue − wall time, call duration)
    furthest, jumps = 0.0, []
    for before, after, s in samples:
        if s["state"] != "play":
            continue
        position = int(s["song"]) * seconds + float(s["elapsed"])
        if kind == "mpd" and position < furthest - seconds / 2:
            jumps.append(position)  # MPD only: the old song with the new one's elapsed, at a border
            continue
        furthest = max(furthest, position)
        middle = (before + after) / 2
        points.append((middle, position - middle, after - before, position))
    first_play = points[0][0]
    total = SONGS * seconds
    steady = [p for p in points if p[0] - first_play >= 2 and p[3] <= total - 1]
    windows = {}
    for point in steady:
        windows.setdefault(int((point[0] - first_play - 2) // WINDOW), []).append(point[1])
    medians = [statistics.median(offsets) for _, offsets in sorted(windows.items()) if len(offsets) >= 20]
    assert len(medians) >= (total - 4) // WINDOW, "too few samples"
    reference = medians[0]
    drift = max((m - reference for m in medians), key=abs)
    print(f"{kind}: {len(points)} samples, {len(medians)} windows, largest drift {drift * 1000:.1f} ms, "
          f"last {(medians[-1] - reference) * 1000:.1f} ms over {steady[-1][0] - first_play:.0f} s, "
          f"spread {(max(p[1] for p in steady) - min(p[1] for p in steady)) * 1000:.0f} ms, "
          f"slowest status {max(p[2] for p in points) * 1000:.0f} ms, a song back at {jumps}")
    assert abs(drift) <= 0.050, f"elapsed drifted {drift * 1000:.1f} ms from the wall clock"
    for middle, offset, duration, position in steady:
        assert abs(offset - reference) <= 0.050 + PERIOD + duration / 2, (
            f"at {position:.3f} s elapsed is {(offset - reference) * 1000:.0f} ms off the clock")


def test_pause_silences_and_play_resumes(start_server, pulse, music, kind, output):
    """`pause` two seconds into a song silences the sink within 100 ms, and `play` a second later
    brings the sound back within 100 ms of the command, on the recording's timeline; with Tonearm the sound
    goes on exactly where it stopped: the two stretches of sound are the song's frames 1… and the
    rest of it, bit for bit, nothing lost or repeated across the pause (frame 0 is silent).

    The output thread pauses the device (`snd_pcm_pause`, which keeps what it holds) between two
    writes; it waits for the device's room in a poll that the pause also wakes, so it never sits
    in a write that blocks for a period (125 ms). MPD only: its pause drops
    what the device held (it silences at once, and up to a second of the song is never heard:
    0.88 s here).

    Measured here (the timeline is good to about 20 ms; a negative figure is that error): Tonearm
    silent −5 to 0 ms after `pause` through ALSA and 12 to 26 ms through libpulse (6 to 28 ms
    while the wait for room was in 20 ms steps, 40 to 85 ms while writes blocked for a period)
    and sounding −9 to 0 ms after `play`; MPD −6 and 2 ms."""
    uri = "short/tone0.flac"
    source = music[1][uri]
    server = start_server(pulse, output=output)
    with ClockRecorder(pulse) as recorder, server.connect() as c:
        play_until_heard(c, recorder, uri, 2.0)
        paused_at, answer = timed(c, "pause 1")
        assert answer == ["OK"]
        recorder.wait_seconds(1.0)
        assert status(c)["state"] == "pause"
        resumed_at, answer = timed(c, "play")
        assert answer == ["OK"]
        recording = play_out(c, recorder)

    found = segments(recording, source)
    assert len(found) == 2, f"expected sound, silence, sound: {describe(recording, source)}"
    first, second = found
    assert first.source == 1 and matches(recording, first, source), describe(recording, source)
    assert matches(recording, second, source), describe(recording, source)
    skipped = second.source - (first.source + first.frames)
    if kind == "tonearm":
        assert skipped == 0, f"the sound after the pause does not go on where it stopped: {describe(recording, source)}"
    else:
        # MPD only: its pause drops what the device held, so the sound goes on further in.
        assert 0 < skipped <= RATE, describe(recording, source)
    assert second.source + second.frames == len(source) // 4, "the song did not play to its end"
    silenced = recorder.time_of(first.end) - paused_at
    resumed = recorder.time_of(second.start) - resumed_at
    print(f"{kind}: silent {silenced * 1000:.0f} ms after pause, sounding {resumed * 1000:.0f} ms after play, "
          f"{skipped} frames skipped")
    assert silenced <= 0.100, f"the sound went on {silenced * 1000:.0f} ms after pause"
    assert resumed <= 0.100, f"the sound came back {resumed * 1000:.0f} ms after play"


def test_seek_lands_where_asked(start_server, pulse, music, kind, output):
    """`seekcur 3.5` a second and a half into a song: the sound before it is the song from its
    start, and after it the song from frame 3.5 × 44 100 = 154 350 exactly, bit for bit, to the
    end of the song (the FLAC files seek to the sample on both servers). Measured here: the new
    position was heard 1 to 11 ms after the command with Tonearm (30 to 65 ms while its writes
    blocked for a period), about 0 ms with MPD (which interrupts its output)."""
    uri = "short/tone1.flac"
    source = music[1][uri]
    target = round(3.5 * RATE)
    server = start_server(pulse, output=output)
    with ClockRecorder(pulse) as recorder, server.connect() as c:
        play_until_heard(c, recorder, uri, 1.5)
        sought_at, answer = timed(c, "seekcur 3.5")
        assert answer == ["OK"]
        recording = play_out(c, recorder)

    landed = find_frames(recording, source[target * 4:(target + RATE // 50) * 4])
    assert landed is not None, f"the song from 3.5 s is not in the recording: {describe(recording, source)}"
    assert recording[landed * 4:landed * 4 + len(source) - target * 4] == source[target * 4:], (
        f"the sound after the seek is not the song from 3.5 s on: {describe(recording, source)}")
    assert silent(recording[landed * 4 + len(source) - target * 4:])
    before = segments(recording[:landed * 4], source)
    assert before and before[0].source == 1, describe(recording, source)
    for previous, segment in zip(before, before[1:]):
        assert segment.source == previous.source + previous.frames, describe(recording, source)
    assert all(matches(recording, s, source) for s in before), describe(recording, source)
    assert before[-1].source + before[-1].frames < target, "the seek came after the song had reached 3.5 s"
    print(f"{kind}: the seek was heard {(recorder.time_of(landed) - sought_at) * 1000:.0f} ms after the command")


def busy(seconds: float) -> subprocess.Popen:
    """A process that keeps one core busy for `seconds` (a bounded loop, at nice 0 unless this
    process runs nicer and may not lower it)."""
    loop = (f"import os, time\nif os.getpriority(os.PRIO_PROCESS, 0) < 0:\n    os.setpriority(os.PRIO_PROCESS, 0, 0)\n"
            f"end = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n")
    return subprocess.Popen([sys.executable, "-c", loop])


def continuous(recording: bytes, source: bytes) -> list:
    """The recording's stretches of sound, asserted to be the source bit for bit, each going on
    exactly where the one before stopped (an underrun inserts silence; it must not lose or
    repeat a frame)."""
    found = segments(recording, source)
    assert found and found[0].source == 1, describe(recording, source)
    for previous, segment in zip(found, found[1:]):
        assert segment.source == previous.source + previous.frames, (
            f"sound lost or repeated across a gap: {describe(recording, source)}")
    assert all(matches(recording, s, source) for s in found), describe(recording, source)
    return found


def test_both_cores_busy_for_ten_seconds(start_server, pulse, music, kind):
    """Two processes keep both cores busy for 10 s (nice 0) while a song plays with the default
    buffer (500 ms): either no underrun (one stretch of sound, bit-exact, and no underrun in the
    log), or each underrun logged and recovered: the sound goes on exactly where it stopped and
    the state stays `play` throughout.

    Measured here: no underrun, on both servers (their output threads run with real-time
    priority as root, and the sound server too)."""
    uri = "long/tone0.flac"
    source = music[1][uri]
    server = start_server(pulse)
    with ClockRecorder(pulse) as recorder, server.connect() as c:
        play_until_heard(c, recorder, uri, 2.0)
        loops = [busy(10), busy(10)]
        states = []
        while any(p.poll() is None for p in loops):
            states.append(status(c)["state"])
            time.sleep(0.25)
        assert all(p.wait() == 0 for p in loops)
        wait_sound_after(recorder, recorder.frames, 2.0)
        states.append(status(c)["state"])
        recording = stop_and_record(c, recorder)
    assert set(states) == {"play"}, states
    found = continuous(recording, source)
    logged = server_log(server).count(UNDERRUN_LINE[kind])
    print(f"{kind}: {len(found) - 1} gaps, {logged} underruns logged")
    if len(found) == 1:
        assert logged == 0, "an underrun was logged, yet the sound had no gap"
    else:
        assert logged >= 1, f"{len(found) - 1} gaps in the sound and no underrun logged"


def test_an_underrun_is_logged_and_recovered(start_server, pulse, music, kind):
    """The server stopped (SIGSTOP) for a second, twice its 500 ms buffer, mid-song: the sink runs
    dry. When it continues, the underrun is logged, the state is still `play`, and the song goes
    on exactly where the sound stopped, to its end: two stretches of sound, bit for bit, nothing
    lost or repeated. (This is the branch the busy-cores test takes when the machine is too slow.)"""
    uri = "short/tone2.flac"
    source = music[1][uri]
    server = start_server(pulse)
    with ClockRecorder(pulse) as recorder, server.connect() as c:
        play_until_heard(c, recorder, uri, 1.5)
        server.process.send_signal(signal.SIGSTOP)
        try:
            recorder.wait_seconds(1.0)
        finally:
            server.process.send_signal(signal.SIGCONT)
        assert status(c)["state"] == "play"
        recording = play_out(c, recorder)
    found = continuous(recording, source)
    assert len(found) == 2, f"expected one gap: {describe(recording, source)}"
    assert found[-1].source + found[-1].frames == len(source) // 4, "the song did not play to its end"
    if kind == "mpd" and UNDERRUN_LINE[kind] not in server_log(server):
        # MPD logs the underrun only when ALSA's pulse plugin reports it on the next write; in
        # one full `make test` run, with builds beside it, it did not, though the sound had the
        # gap. The gap and the recovery are asserted above for both servers.
        pytest.xfail("MPD did not hear of this underrun from ALSA's pulse plugin")
    assert UNDERRUN_LINE[kind] in server_log(server)


def test_the_sound_server_dies_and_comes_back(start_server, pulse, music, kind, output):
    """PulseAudio killed (SIGKILL) two seconds into a song: the player pauses on the song with an
    `error:` in `status` (MPD: `Failed to open audio output`; Tonearm names the failed write), the
    output stays listed and enabled in `outputs`, and the server keeps answering (`ping`,
    `currentsong`, `elapsed` standing still). `play` while the sound server is away fails the
    same way (MPD only: `status` then shows elapsed 0.000, though it resumes where it was). Once it is back (a
    new PulseAudio on the same socket), `play` plays again, without a restart of the server: the
    new recording is the song bit for bit from where `elapsed` stood (within a second: it counts
    what was written to the device, up to its buffer ahead of what was heard).

    Measured here: Tonearm resumed at exactly the `elapsed` it paused at (2.438 s); the audio in
    the device's buffer when the server died (up to half a second) is not heard again."""
    uri = "long/tone1.flac"
    source = music[1][uri]
    server = start_server(pulse, output=output)
    with server.connect() as c:
        with ClockRecorder(pulse) as recorder:
            play_until_heard(c, recorder, uri, 2.0)
            pulse.kill()
            failed = wait_status(c, lambda s: s["state"] == "pause" and "error" in s, 20, "the output error")
            heard = recorder.stop()
        continuous(heard, source)
        print(f"{kind}: status after the kill: error: {failed['error']}")
        plugin = "alsa" if output == ALSA_PULSE else "pulse"
        if kind == "tonearm":
            assert failed["error"].startswith(f'Failed to play on "pulse" ({plugin}); ')
        else:
            assert failed["error"] == "Failed to open audio output"
        assert c.command("ping") == ["OK"]
        assert f"file: {uri}" in c.command("currentsong")
        outputs = c.command("outputs")
        assert "outputname: pulse" in outputs and "outputenabled: 1" in outputs
        assert status(c)["elapsed"] == failed["elapsed"], "elapsed moved while the output was down"
        assert c.command("play") == ["OK"]
        again = wait_status(c, lambda s: s["state"] == "pause" and "error" in s, 20, "the output error again")
        if kind == "tonearm":
            assert again["elapsed"] == failed["elapsed"], "the failed play moved the position"
        # MPD only: after its failed `play`, `status` shows elapsed 0.000 (yet it resumes where it was).

        pulse.start()
        with ClockRecorder(pulse) as recorder:
            began = recorder.frames
            assert c.command("play") == ["OK"]
            wait_sound_after(recorder, began, 2.0)
            playing = status(c)
            assert playing["state"] == "play" and "error" not in playing, playing
            recording = stop_and_record(c, recorder)
    found = segments(recording, source)
    assert len(found) == 1 and matches(recording, found[0], source), describe(recording, source)
    resumed = found[0].source / RATE
    print(f"{kind}: paused at elapsed {failed['elapsed']}, resumed from {resumed:.3f} s")
    assert float(failed["elapsed"]) - 1.0 <= resumed <= float(failed["elapsed"]) + 0.1


def test_the_default_output_reaches_the_sound_server(start_server, pulse, music, kind):
    """With no `audio_output` at all (conf/tonearm.conf as `make run` uses it), the server plays
    through ALSA's `default` device, which Debian's pulseaudio package points at PulseAudio when a
    server answers (/etc/alsa/conf.d/99-pulse.conf): the song reaches the sink bit for bit. On a
    desktop the same path reaches the speakers (PipeWire's pipewire-alsa does the same)."""
    uri = "short/tone3.flac"
    source = music[1][uri]
    server = start_server(pulse, output="# no audio_output: the server's default\n")
    with ClockRecorder(pulse) as recorder, server.connect() as c:
        assert c.command(f'add "{uri}"') == ["OK"]
        assert c.command("play") == ["OK"]
        recording = play_out(c, recorder)
    found = segments(recording, source)
    assert len(found) == 1 and found[0].source == 1 and matches(recording, found[0], source), (
        describe(recording, source))
    assert found[0].frames == len(source) // 4 - 1
