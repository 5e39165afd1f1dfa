"""Audio files made with the `ffmpeg` CLI, and what a `pipe` output wrote, for the audio tests.

The tests compare the PCM a server writes to a `pipe` output (`command "cat >> FILE"`) with what
the `ffmpeg` CLI decodes from the same file. The source signal is a two-channel chirp (rising
tones: no stretch of it repeats, so an offset of one sample shows as a mismatch), written as
16-bit WAV and encoded from there; cuts are made with `atrim` at exact samples.

Everything is plain Python (no numpy): sample arrays are `array('h')`, and the alignment search
looks at a few hundred frames only.
"""
import array
import subprocess
import time
from pathlib import Path

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags:a", "+bitexact"]
CHIRP = "0.5*sin(2*PI*(200*t+400*t*t))|0.5*sin(2*PI*(300*t+300*t*t))"

# Encoder options by file suffix. The lossy ones write their gapless information as the FFmpeg
# CLI does by default: MP3 a LAME/Xing header (encoder delay and padding), M4A an edit list,
# Opus its pre-skip and end granule.
ENCODERS = {
    "flac": ["-c:a", "flac"],
    "wav": ["-c:a", "pcm_s16le"],
    "mp3": ["-c:a", "libmp3lame", "-b:a", "192k"],
    "m4a": ["-c:a", "aac", "-b:a", "192k"],
    "opus": ["-c:a", "libopus", "-b:a", "128k"],
}
LOSSLESS = {"flac", "wav"}
# One codec frame, in samples: the most a seek or a join may be off by (MP3: 1152; AAC: 1024;
# Opus: up to 960 at 48 kHz (20 ms); FLAC and WAV are exact).
FRAME = {"flac": 0, "wav": 0, "mp3": 1152, "m4a": 1024, "opus": 960}


def rate_for(suffix: str) -> int:
    """Opus only runs at 48 kHz; everything else is tested at CD rate."""
    return 48000 if suffix == "opus" else 44100


def ffmpeg(*args):
    subprocess.run(FFMPEG + [str(a) for a in args], check=True)


def chirp(path: Path, rate: int = 44100, seconds: float = 2) -> Path:
    """A 16-bit stereo WAV of the chirp."""
    ffmpeg("-f", "lavfi", "-i", f"aevalsrc={CHIRP}:s={rate}:d={seconds}", "-c:a", "pcm_s16le", *BITEXACT, path)
    return Path(path)


def cut(source: Path, path: Path, start: int, count: int | None = None) -> Path:
    """Frames `start`… (`count` of them, or to the end) of `source`, as 16-bit WAV."""
    trim = f"atrim=start_sample={start}" + (f":end_sample={start + count}" if count is not None else "")
    ffmpeg("-i", source, "-af", trim, "-c:a", "pcm_s16le", *BITEXACT, path)
    return Path(path)


def encode(source: Path, path: Path) -> Path:
    """`source` encoded with the encoder its suffix names (ENCODERS)."""
    path = Path(path)
    ffmpeg("-i", source, *ENCODERS[path.suffix[1:]], *BITEXACT, path)
    return path


def decode(path: Path, rate: int = 44100) -> bytes:
    """What `ffmpeg -i FILE -f s16le -ac 2 -ar RATE -` writes: the reference PCM."""
    return subprocess.run(FFMPEG + ["-i", str(path), "-f", "s16le", "-ac", "2", "-ar", str(rate), "-"],
                          check=True, stdout=subprocess.PIPE).stdout


def samples(data: bytes) -> array.array:
    """Interleaved native-endian 16-bit samples."""
    result = array.array("h")
    result.frombytes(data[:len(data) - len(data) % 2])
    return result


def lag(part, whole, at: int, window: range, search: int) -> int:
    """The shift (in frames, within ±search) at which frames `window` of `part` best match
    `whole` from frame `at + shift`, by the least squared difference of the left channel. 0
    means `part`'s frame `i` is `whole`'s frame `at + i`."""
    best = (0, float("inf"))
    left = part[0::2]
    whole_left = whole[0::2]
    for shift in sorted(range(-search, search + 1), key=abs):  # ties go to the smallest shift
        start = at + shift + window.start
        if start < 0 or at + shift + window.stop > len(whole_left) or window.stop > len(left):
            continue
        error = 0
        for i in window:
            d = left[i] - whole_left[at + shift + i]
            error += d * d
            if error >= best[1]:
                break
        if error < best[1]:
            best = (shift, error)
    return best[0]


def max_difference(a, b) -> int:
    """The largest difference between samples at the same index (over the shorter of the two)."""
    return max((abs(x - y) for x, y in zip(a, b)), default=0)


def pipe_output(path: Path, name: str = "pipe", fmt: str | None = "44100:16:2", extra: str = "") -> str:
    """An `audio_output` block for a pipe output that appends the raw PCM to `path`."""
    lines = ['type "pipe"', f'name "{name}"', f'command "cat >> {path}"']
    if fmt:
        lines.append(f'format "{fmt}"')
    return "audio_output {\n" + "".join(f" {line}\n" for line in lines) + extra + "}\n"


def null_output(name: str = "null", extra: str = "") -> str:
    """A null output (paced in real time: `sync` is on by default)."""
    return f'audio_output {{\n type "null"\n name "{name}"\n{extra}}}\n'


def read_settled(path: Path, expected: int | None = None, timeout: float = 20) -> bytes:
    """The bytes in `path` once the writer is done: `expected` bytes or more (if given) and no
    growth for a quarter of a second, or no growth for a second whatever the size (so that a
    short stream fails fast). A generous wait, not a timing assertion."""
    deadline = time.monotonic() + timeout
    size, stable_since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now = path.stat().st_size if path.exists() else 0
        if now != size:
            size, stable_since = now, time.monotonic()
        else:
            quiet = time.monotonic() - stable_since
            if quiet >= 1 or (quiet >= 0.25 and (expected is None or size >= expected)):
                break
        time.sleep(0.02)
    return path.read_bytes() if path.exists() else b""


# Software volume, as the two servers compute it (see test_audio_output.test_software_volume).

def volume_factor(percent: int) -> int:
    """MPD's fixed-point factor (1024 = 100 %) for a volume in percent: (e^(v/25) − 1) / (e^4 − 1)
    in single precision, × 1024, + ½, truncated. 50 % is 122."""
    import ctypes
    if percent >= 100:
        return 1024
    if percent <= 0:
        return 0
    f = ctypes.c_float
    curve = f((f(2.718281828459045 ** (percent / 25)).value - 1) / (f(54.5981500331).value - 1)).value
    return int(f(curve * 1024).value + 0.5)


class Dither:
    """MPD's PcmDither (noise shaping and triangular noise from a linear congruential
    generator), fresh as an output's filter is on every open."""

    def __init__(self):
        self.e0 = self.e1 = self.e2 = 0
        self.random = 0

    def shift(self, sample: int, source_bits: int, scale_bits: int) -> int:
        minimum, maximum = -(1 << (source_bits - 1)), (1 << (source_bits - 1)) - 1
        mask = (1 << scale_bits) - 1
        sample += self.e0 - self.e1 + self.e2
        self.e2 = self.e1
        self.e1 = self.e0 // 2 if self.e0 >= 0 else -((-self.e0) // 2)
        output = sample + (1 << (scale_bits - 1))
        following = (self.random * 0x19660D + 0x3C6EF35F) & 0xFFFFFFFF
        output += (following & mask) - (self.random & mask)
        self.random = following
        if output > maximum:
            output = maximum
            sample = min(sample, maximum)
        elif output < minimum:
            output = minimum
            sample = max(sample, minimum)
        output &= ~mask
        error = (sample - output) & 0xFFFFFFFF
        self.e0 = error - (1 << 32) if error >= 1 << 31 else error
        return output >> scale_bits


def volume_16(source, percent: int, factor: int | None = None) -> array.array:
    """16-bit samples scaled at 16 bits: `s × factor`, 26 bits, back to 16 with dither. What
    Tonearm's software volume does to a 16-bit stream, and MPD 0.23's replay gain (with the
    factor of its gain) when no software mixer widens the stream. `factor` (of 1024) overrides
    the percent's."""
    factor, dither = factor if factor is not None else volume_factor(percent), Dither()
    return array.array("h", (dither.shift(s * factor, 26, 10) for s in source))


def volume_widened_16(source, percent: int, factor: int | None = None) -> array.array:
    """What MPD 0.23 does to a 16-bit stream with a software mixer when the output takes 16
    bits: widen to 24 bits (`s << 8`), scale there (34 bits back to 24, with dither), then
    convert back to 16 bits with a second dither (its output's format conversion). `factor`
    (of 1024) overrides the percent's."""
    factor = factor if factor is not None else volume_factor(percent)
    volume, convert = Dither(), Dither()
    if factor == 1024:
        return array.array("h", (convert.shift(s << 8, 24, 8) for s in source))
    return array.array("h", (convert.shift(volume.shift((s << 8) * factor, 34, 10), 24, 8) for s in source))
