"""Start Tonearm or Debian's MPD on loopback with a private configuration, and talk raw MPD.

Used by the integration tests, the conformance runner and the benchmark. Servers listen on
127.0.0.1 (or a Unix socket in the work directory) only.
"""
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
LISTENING = re.compile(r"Listening on 127\.0\.0\.1:(\d+)$")
# The one audio output both servers get unless a test passes its own `output` block: MPD's null
# output (paced in real time) named "null", without a mixer.
NULL_OUTPUT = 'audio_output {\n type "null"\n name "null"\n}\n'


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Server:
    """What both servers share: a process, its collected log, and a clean stop."""

    host = "127.0.0.1"
    port: int
    process: subprocess.Popen

    def __init__(self, workdir: Path, extra_config: str = "", music_dir: Path | None = None,
                 output: str | None = None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.music_dir = Path(music_dir) if music_dir else self.workdir / "music"
        self.music_dir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "playlists").mkdir(exist_ok=True)
        self.extra_config = extra_config
        self.output = output or NULL_OUTPUT
        self.config_path = self.workdir / f"{type(self).__name__.lower()}.conf"
        self._lines: list[str] = []
        self._lock = threading.Lock()

    def common_config(self) -> str:
        return (
            f'music_directory "{self.music_dir}"\n'
            f'playlist_directory "{self.workdir}/playlists"\n'
            'zeroconf_enabled "no"\n'
            + self.output
        )

    def _launch(self, command: list[str], env: dict[str, str] | None = None, journal: bool = False):
        """Starts `command` with its standard error collected. With `journal`, `JOURNAL_STREAM`
        names that stream, as systemd sets it when standard error is the journal."""
        with self._lock:
            self._lines = []
        reader, writer = os.pipe()
        if journal:
            status = os.fstat(writer)
            env = {**(env or os.environ), "JOURNAL_STREAM": f"{status.st_dev}:{status.st_ino}"}
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=writer, cwd=self.workdir, env=env)
        finally:
            os.close(writer)
        self._collector = threading.Thread(target=self._collect, args=(os.fdopen(reader, "rb"),), daemon=True)
        self._collector.start()

    def _collect(self, stream):
        with stream:
            for raw in stream:
                with self._lock:
                    self._lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def log_text(self) -> str:
        with self._lock:
            return "\n".join(self._lines)

    def wait_exit(self, timeout: float = 20) -> int:
        return self.process.wait(timeout=timeout)

    def stop(self, sig=signal.SIGTERM, timeout: float = 20) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                return self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise
        return self.process.returncode

    def connect(self) -> "Connection":
        return Connection.connect(self.host, self.port)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.stop()


class TonearmServer(_Server):
    """The built `tonearm` binary, started with `--port 0` on 127.0.0.1."""

    def __init__(self, workdir: Path, binary: str | None = None, extra_config: str = "",
                 args=(), music_dir: Path | None = None, bind: str = 'bind_to_address "127.0.0.1"\n',
                 output: str | None = None, wrapper=(), env: dict[str, str] | None = None, journal: bool = False,
                 log_file: Path | None = None):
        super().__init__(workdir, extra_config, music_dir, output)
        self.binary = str(Path(binary or os.environ.get("TONEARM_BIN") or REPO / ".build/debug/tonearm").resolve())
        self.args = list(args)
        # A command the binary runs under, such as `setpriv` to drop capabilities.
        self.wrapper = list(wrapper)
        # The environment (None: this one's), and whether standard error poses as the journal.
        self.env = env
        self.journal = journal
        # Where the configuration's `log_file` sends the log, read for the port instead of stderr.
        self.log_file = log_file
        self.bind = bind
        self.unix_socket = None

    def write_config(self):
        self.config_path.write_text(
            self.bind + self.common_config()
            + f'db_file "{self.workdir}/database.sqlite"\n'
            + f'state_file "{self.workdir}/state"\n'
            + f'sticker_file "{self.workdir}/stickers.sqlite"\n'
            # The default smart playlists would show in every listing that MPD's leaves empty;
            # test_smart_playlists.py turns them on (a later line wins).
            + 'default_smart_playlists "no"\n'
            + self.extra_config)

    def start(self, timeout: float = 30):
        self.write_config()
        self._launch([*self.wrapper, self.binary, "--config", str(self.config_path), "--port", "0", *self.args],
                     env=self.env, journal=self.journal)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log_file is not None:
                lines = self.log_file.read_text().splitlines() if self.log_file.exists() else []
            else:
                with self._lock:
                    lines = list(self._lines)
            ports = [int(m.group(1)) for m in map(LISTENING.search, lines) if m]
            if ports:
                self.port = ports[0]
                return self
            if self.process.poll() is not None:
                self._collector.join(timeout=5)  # the log, to its end
                raise RuntimeError(f"tonearm exited with {self.process.returncode}:\n{self.log_text()}")
            time.sleep(0.02)
        self.process.kill()
        raise RuntimeError(f"tonearm did not start listening:\n{self.log_text()}")


class MPDServer(_Server):
    """Debian's `mpd` on a free loopback port, in the foreground, with a null output."""

    def __init__(self, workdir: Path, extra_config: str = "", music_dir: Path | None = None,
                 binary: str = "/usr/bin/mpd", output: str | None = None, env: dict[str, str] | None = None):
        super().__init__(workdir, extra_config, music_dir, output)
        self.binary = binary
        # The environment (None: this one's), e.g. PULSE_SERVER for an ALSA output on a sound server.
        self.env = env

    def start(self, timeout: float = 30):
        if not Path(self.binary).exists():
            raise RuntimeError(f"{self.binary} is missing: apt-get install mpd")
        self.port = free_port()
        self.config_path.write_text(
            'bind_to_address "127.0.0.1"\n' + f'port "{self.port}"\n' + self.common_config()
            + f'db_file "{self.workdir}/database"\n'
            + f'state_file "{self.workdir}/state"\n'
            + f'sticker_file "{self.workdir}/sticker.sql"\n'
            + f'log_file "{self.workdir}/log"\n'
            + self.extra_config)
        self._launch([self.binary, "--no-daemon", str(self.config_path)], env=self.env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mpd exited with {self.process.returncode}:\n{self.log_text()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=1) as s:
                    if s.makefile("rb").readline().startswith(b"OK MPD"):
                        return self
            except OSError:
                time.sleep(0.05)
        self.process.kill()
        raise RuntimeError("mpd did not start listening")


class StillOpen(AssertionError):
    """The peer did not close the connection in time (`Connection.expect_closed`)."""

    def __init__(self, received: bytes, timeout: float):
        super().__init__(f"the connection is still open after {timeout} s; received {received[:200]!r}")
        self.received = received


class Connection:
    """A raw MPD client connection: send bytes, read lines, notice a close."""

    def __init__(self, sock: socket.socket, timeout: float = 10):
        self.sock = sock
        self.sock.settimeout(timeout)
        self.buffer = b""
        self.greeting = self.read_line()

    @classmethod
    def connect(cls, host: str, port: int, timeout: float = 10) -> "Connection":
        sock = socket.create_connection((host, port), timeout=timeout)
        return cls(sock, timeout)

    @classmethod
    def connect_unix(cls, path: str, timeout: float = 10) -> "Connection":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(str(path))
        return cls(sock, timeout)

    def send(self, data):
        self.sock.sendall(data.encode() if isinstance(data, str) else data)

    def _fill(self, timeout: float | None) -> bool:
        """Reads more bytes; False when the peer closed."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        chunk = self.sock.recv(65536)
        if not chunk:
            return False
        self.buffer += chunk
        return True

    def read_line(self, timeout: float | None = None) -> str | None:
        """The next line without its newline, or None when the peer closed first."""
        while b"\n" not in self.buffer:
            if not self._fill(timeout):
                return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def read_response(self, timeout: float | None = None) -> list[str]:
        """Lines up to and including `OK` or `ACK …`; ends early (without it) on a close."""
        lines = []
        while True:
            line = self.read_line(timeout)
            if line is None:
                return lines
            lines.append(line)
            if line == "OK" or line.startswith("ACK "):
                return lines

    def command(self, line, timeout: float | None = None) -> list[str]:
        self.send((line if isinstance(line, bytes) else line.encode()) + b"\n")
        return self.read_response(timeout)

    def expect_closed(self, timeout: float = 10):
        """True when the peer closes without sending anything more; the bytes it sent first
        when it closes after sending some. Raises StillOpen, with whatever arrived, when
        `timeout` passes and the connection is still open."""
        received = self.buffer
        self.buffer = b""
        deadline = time.monotonic() + timeout
        try:
            while (left := deadline - time.monotonic()) > 0:
                self.sock.settimeout(left)
                chunk = self.sock.recv(65536)
                if not chunk:
                    return received or True
                received += chunk
        except socket.timeout:
            pass
        except ConnectionResetError:
            return received or True
        raise StillOpen(received, timeout)

    def nothing_within(self, seconds: float) -> bool:
        """True when no byte arrives (and the connection stays open) for `seconds`."""
        if self.buffer:
            return False
        self.sock.settimeout(seconds)
        try:
            self.sock.recv(1, socket.MSG_PEEK)
        except socket.timeout:
            return True
        return False

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
