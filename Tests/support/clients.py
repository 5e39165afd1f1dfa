"""Run real MPD clients against a server under test: Debian's `mpc`, line by line or as a
long-running process (`idle`, `idleloop`, `subscribe`, `waitmessage`) whose output lines a
test reads with a generous timeout.
"""
import queue
import re
import subprocess
import threading

from support.processes import terminate

# mpc's status line shows elapsed/duration and a percentage; while a song plays they move on
# between the command and the print, so tests compare a placeholder where the clock runs.
RUNNING_TIME = re.compile(r"(\[playing\] #\d+/\d+ +)\d+:\d\d/(\d+:\d\d) \(\d+%\)")


def mpc(server, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    """Runs `mpc --host H --port P ARGS…` and returns it finished (stdout and stderr as text)."""
    return subprocess.run(["mpc", "--host", server.host, "--port", str(server.port), *args],
                          capture_output=True, text=True, timeout=timeout)


def mpc_out(server, *args: str) -> str:
    """mpc's stdout, asserting that it succeeded and wrote nothing to stderr."""
    result = mpc(server, *args)
    assert result.returncode == 0 and result.stderr == "", (args, result.returncode, result.stderr)
    return result.stdout


def mpc_error(server, *args: str) -> str:
    """mpc's stderr, asserting that it failed (exit status 1) and printed nothing else."""
    result = mpc(server, *args)
    assert result.returncode == 1 and result.stdout == "", (args, result.returncode, result.stdout)
    return result.stderr


def steady(text: str) -> str:
    """mpc output with the running clock of a playing song replaced by `?:??`."""
    return RUNNING_TIME.sub(r"\1?:??/\2", text)


class LineReader:
    """A long-running client process whose stdout lines arrive in a queue, read by a thread,
    so that a test can wait for the next line with a timeout instead of blocking forever."""

    def __init__(self, command: list[str]):
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    @classmethod
    def mpc(cls, server, *args: str) -> "LineReader":
        """mpc with ARGS, line-buffered: `mpc subscribe` leaves its output in stdio's buffer
        when stdout is a pipe."""
        return cls(["stdbuf", "-oL", "mpc", "--host", server.host, "--port", str(server.port), *args])

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self, timeout: float = 20) -> str | None:
        """The next stdout line; None once the process closed stdout. Raises AssertionError when
        nothing arrives within `timeout` seconds."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output line within {timeout} s") from None

    def lines_until(self, wanted: str, timeout: float = 20) -> list[str]:
        """The lines read up to and including `wanted`."""
        seen = []
        while True:
            line = self.next_line(timeout)
            assert line is not None, f"the process ended before printing {wanted!r}: {seen}"
            seen.append(line)
            if line == wanted:
                return seen

    def repeat_until_printed(self, change, wanted: str, attempts: int = 60):
        """Calls `change(attempt)` every half second until the process prints `wanted`: a
        client that idles misses a change made before its `idle` reached the server, and
        nothing tells a test when it got there."""
        for attempt in range(attempts):
            change(attempt)
            try:
                if self.lines.get(timeout=0.5) == wanted:
                    return
            except queue.Empty:
                continue
        raise AssertionError(f"the process never printed {wanted!r}")

    def wait(self, timeout: float = 20) -> int:
        return self.process.wait(timeout=timeout)

    def stop(self):
        terminate(self.process)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
