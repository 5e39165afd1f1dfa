"""A private PulseAudio sound server with a null sink, for tests that need a real, clocked
audio device and a real volume control without a sound card (ALSA's `pulse` plugin from
libasound2-plugins reaches it as the ALSA devices `pulse`, PCM and control).

It runs as this user without D-Bus, listens only on a Unix socket in its folder, and is
stopped when the `with` block ends.

`PulseAudio(…, rewinds=False)` loads the sink with `norewinds=1`. With rewinds (PulseAudio's
default), the sink renders ahead and, when a stream starts or resumes, rewinds to mix it in over
what it had rendered, which the monitor has already passed on: the recording loses the first
few hundred frames of every start (measured: 740 frames with `pacat`, 160 with Debian's MPD).
Without rewinds the monitor carries what was played bit for bit, from the first frame.

`ClockRecorder` runs `parec` on the monitor with a 10 ms latency and keeps the audio in memory,
read on a thread. The null sink renders silence when nothing plays, so the recording is a clock:
frame N was rendered N / 44100 s after the first. Each read's arrival time (`time.monotonic()`,
the clock PulseAudio's null sink runs on) maps frames to that clock: `time_of(frame)` uses the
earliest arrival seen, which delays only push later, so a loaded machine makes it late, never
early; the sink renders a block ahead, so it may be early by that block (about 10 ms, parec's
latency). The analysis helpers below work on the raw bytes at C speed (bytes.find, slicing,
comparisons, one regular expression), not sample by sample: two minutes of stereo audio are 21 MB.
"""
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from support import audio
from support.polling import poll
from support.processes import terminate

RATE = 44100
FRAME_BYTES = 4  # s16le, two channels


class PulseAudio:
    sink = "out"

    def __init__(self, folder: Path, rate: int = 44100, rewinds: bool = True):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.rate = rate
        self.socket = self.folder / "native"
        self.address = f"unix:{self.socket}"
        sink_options = "" if rewinds else " norewinds=1"
        (self.folder / "pa.pa").write_text(
            f"load-module module-null-sink sink_name={self.sink} format=s16le rate={rate} channels=2{sink_options}\n"
            f"load-module module-native-protocol-unix socket={self.socket} auth-anonymous=1\n"
            f"set-default-sink {self.sink}\n")
        self.process: subprocess.Popen | None = None

    def environment(self) -> dict[str, str]:
        return {**os.environ, "PULSE_SERVER": self.address}

    def pactl(self, *args: str) -> str:
        result = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=30,
                                env=self.environment())
        assert result.returncode == 0, (args, result.stderr)
        return result.stdout

    def start(self, timeout: float = 30) -> "PulseAudio":
        env = {**os.environ, "XDG_RUNTIME_DIR": str(self.folder), "HOME": str(self.folder)}
        env.pop("PULSE_SERVER", None)
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "-F", str(self.folder / "pa.pa"), "--exit-idle-time=-1", "--daemonize=no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.folder / "log", "w"), env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pulseaudio exited: {(self.folder / 'log').read_text()}")
            probe = subprocess.run(["pactl", "info"], capture_output=True, env=self.environment(), timeout=30)
            if probe.returncode == 0:
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("pulseaudio did not answer")

    def stop(self):
        terminate(self.process)

    def kill(self):
        """Kills the sound server at once (SIGKILL), as a crash would; `start` brings up a new one
        on the same socket."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class Recorder:
    """`parec` recording the sink's monitor: what the sound server played, as s16le stereo."""

    def __init__(self, pulse: PulseAudio, path: Path, rate: int = 44100):
        self.path = Path(path)
        self.process = subprocess.Popen(
            ["parec", "-d", f"{pulse.sink}.monitor", "--format=s16le", f"--rate={rate}", "--channels=2",
             "--latency-msec=20"],
            stdin=subprocess.DEVNULL, stdout=open(self.path, "wb"), stderr=subprocess.DEVNULL,
            env=pulse.environment())
        # Recording once the first bytes arrive (the null sink plays silence when idle): audio
        # played before then would be missing from the recording.
        deadline = time.monotonic() + 30
        while self.path.stat().st_size == 0:
            assert self.process.poll() is None and time.monotonic() < deadline, "parec records nothing"
            time.sleep(0.02)

    def stop(self) -> bytes:
        terminate(self.process)
        return self.path.read_bytes()


def sink_inputs(pulse: PulseAudio) -> list[dict[str, str]]:
    """`pactl list sink-inputs`, one dict per stream: `Volume`, `Corked`, and the properties
    (`media.role`, `media.name`, …) without their quotes."""
    streams: list[dict[str, str]] = []
    for line in pulse.pactl("list", "sink-inputs").splitlines():
        if line.startswith("Sink Input #"):
            streams.append({"index": line.removeprefix("Sink Input #")})
        elif streams and ": " in line and line.startswith("\t") and not line.startswith("\t\t"):
            key, value = line.strip().split(": ", 1)
            streams[-1][key] = value
        elif streams and " = " in line:
            key, value = line.strip().split(" = ", 1)
            streams[-1][key] = value.strip('"')
    return streams


class ClockRecorder:
    """`parec` on the sink's monitor, in memory: every frame the sink rendered, and when it
    arrived (see the module's docstring)."""

    def __init__(self, pulse: PulseAudio, latency_ms: int = 10):
        self.pulse = pulse
        self.latency_ms = latency_ms
        self._data = bytearray()
        self._lock = threading.Lock()
        self._offset = float("inf")  # min over reads of (arrival − frames so far / rate)
        self.process: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> "ClockRecorder":
        self.process = subprocess.Popen(
            ["parec", "-d", f"{self.pulse.sink}.monitor", "--format=s16le", f"--rate={self.pulse.rate}",
             "--channels=2", f"--latency-msec={self.latency_ms}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=self.pulse.environment())
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        # Recording runs once the first frames arrive.
        poll("parec to deliver audio", lambda: self.frames > 0, interval=0.01)
        return self

    def _read(self):
        fd = self.process.stdout.fileno()
        while True:
            chunk = os.read(fd, 1 << 16)
            now = time.monotonic()
            if not chunk:
                return
            with self._lock:
                self._data += chunk
                total = len(self._data) // FRAME_BYTES
                self._offset = min(self._offset, now - total / self.pulse.rate)

    @property
    def frames(self) -> int:
        with self._lock:
            return len(self._data) // FRAME_BYTES

    def data(self) -> bytes:
        """Everything recorded so far, whole frames only."""
        with self._lock:
            return bytes(self._data[:len(self._data) - len(self._data) % FRAME_BYTES])

    def tail(self, frames: int) -> bytes:
        """The last `frames` frames recorded (fewer at the start)."""
        with self._lock:
            end = len(self._data) - len(self._data) % FRAME_BYTES
            return bytes(self._data[max(0, end - frames * FRAME_BYTES):end])

    def time_of(self, frame: int) -> float:
        """When the sink rendered `frame`, on `time.monotonic()`'s clock (plus parec's latency)."""
        with self._lock:
            return self._offset + frame / self.pulse.rate

    def frame_at(self, moment: float) -> int:
        """The frame the sink rendered at `moment` (the inverse of `time_of`)."""
        with self._lock:
            return round((moment - self._offset) * self.pulse.rate)

    def wait_frames(self, count: int, timeout: float = 30):
        """Waits until `count` frames are recorded (the sink's clock has run that far)."""
        poll(f"{count} recorded frames", lambda: self.frames >= count, timeout, interval=0.01)

    def wait_seconds(self, seconds: float, timeout: float = 30):
        """Waits until the sink has rendered `seconds` more."""
        self.wait_frames(self.frames + round(seconds * self.pulse.rate), timeout + seconds)

    def stop(self) -> bytes:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        if self._thread:
            self._thread.join(timeout=10)
        return self.data()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


# Songs and the analysis of a ClockRecorder's recording.

def tones(folder: Path, count: int, seconds: float) -> list[Path]:
    """`count` 16-bit stereo FLAC songs of `seconds` each, each a different pair of chirps (its
    own start frequency per channel, rising), so that no stretch of one song matches another or
    itself elsewhere: a frame lost, repeated or out of place shows as a mismatch."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        left, right = 220 + 140 * index, 270 + 140 * index
        expression = (f"0.5*sin(2*PI*({left}*t+{7 + index}*t*t))"
                      f"|0.5*sin(2*PI*({right}*t+{5 + index}*t*t))")
        path = folder / f"tone{index}.flac"
        if not path.exists():
            audio.ffmpeg("-f", "lavfi", "-i", f"aevalsrc={expression}:s={RATE}:d={seconds}", "-c:a", "flac",
                         "-sample_fmt", "s16", *audio.BITEXACT, path)
        paths.append(path)
    return paths


def silent(data: bytes) -> bool:
    """Whether every byte is zero."""
    return not data.strip(b"\0")


def first_difference(a: bytes, b: bytes) -> int | None:
    """The first frame at which `a` and `b` differ (over the shorter), or None; found by halving
    the range, comparing slices."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return None if len(a) == len(b) else n // FRAME_BYTES
    lo, hi = 0, n
    while hi - lo > FRAME_BYTES:
        mid = (lo + hi) // 2 // FRAME_BYTES * FRAME_BYTES
        if a[lo:mid] != b[lo:mid]:
            hi = mid
        else:
            lo = mid
    return lo // FRAME_BYTES


def find_frames(haystack: bytes, needle: bytes, start: int = 0) -> int | None:
    """The first frame-aligned frame offset of `needle` in `haystack` from byte `start`, or None."""
    position = haystack.find(needle, start)
    while position >= 0 and position % FRAME_BYTES:
        position = haystack.find(needle, position + 1)
    return None if position < 0 else position // FRAME_BYTES


@dataclass
class Segment:
    """A stretch of sound in a recording (frames `start`…`end`), and where it is in the source:
    `source` is the source frame that `start` plays, or None when it is found nowhere."""
    start: int
    end: int
    source: int | None

    @property
    def frames(self) -> int:
        return self.end - self.start


# A run of at least 10 ms of zero frames is silence: the chirps cross zero in single samples only.
SILENCE_FRAMES = RATE // 100
_SILENCE = re.compile(rb"\x00{%d,}" % (SILENCE_FRAMES * FRAME_BYTES))


def segments(recording: bytes, source: bytes) -> list[Segment]:
    """The stretches of sound in `recording`, split at silences of 10 ms or more, each located in
    `source` by its first 20 ms (frame-aligned and exact: nothing is resampled or scaled)."""
    bounds, position = [], 0
    for silence in _SILENCE.finditer(recording):
        # Only whole zero frames count: round the run inwards to frame boundaries.
        first = -(-silence.start() // FRAME_BYTES)
        last = silence.end() // FRAME_BYTES
        if last - first < SILENCE_FRAMES:
            continue
        if first > position:
            bounds.append((position, first))
        position = last
    total = len(recording) // FRAME_BYTES
    if total > position:
        bounds.append((position, total))
    probe = RATE // 50
    result = []
    for start, end in bounds:
        needle = recording[start * FRAME_BYTES:min(end, start + probe) * FRAME_BYTES]
        result.append(Segment(start, end, find_frames(source, needle)))
    return result


def matches(recording: bytes, segment: Segment, source: bytes) -> bool:
    """Whether the whole segment is the source, bit for bit, from where its start was found."""
    if segment.source is None:
        return False
    a = recording[segment.start * FRAME_BYTES:segment.end * FRAME_BYTES]
    b = source[segment.source * FRAME_BYTES:(segment.source + segment.frames) * FRAME_BYTES]
    return a == b


def describe(recording: bytes, source: bytes) -> str:
    """The recording's segments and where each sits in the source, for an assertion message."""
    parts = []
    for s in segments(recording, source):
        where = "not in the source" if s.source is None else f"source {s.source}…{s.source + s.frames}"
        exact = "" if s.source is None else (" exact" if matches(recording, s, source) else " NOT exact")
        parts.append(f"frames {s.start}…{s.end} ({s.frames / RATE:.3f} s): {where}{exact}")
    return "; ".join(parts) or "silence only"
