"""A private PulseAudio sound server with a null sink, for tests that need a real, clocked
audio device and a real volume control without a sound card (ALSA's `pulse` plugin from
libasound2-plugins reaches it as the ALSA devices `pulse`, PCM and control).

It runs as this user without D-Bus, listens only on a Unix socket in its folder, and is
stopped when the `with` block ends.
"""
import os
import subprocess
import time
from pathlib import Path

from support.processes import terminate


class PulseAudio:
    sink = "out"

    def __init__(self, folder: Path, rate: int = 44100):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.socket = self.folder / "native"
        self.address = f"unix:{self.socket}"
        (self.folder / "pa.pa").write_text(
            f"load-module module-null-sink sink_name={self.sink} format=s16le rate={rate} channels=2\n"
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
