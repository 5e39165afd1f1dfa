"""Start `tonearm` the way systemd does for a socket-activated service.

systemd opens the listening sockets, forks, and in the child moves them to descriptors 3, 4, …,
sets `LISTEN_FDS` to their number and `LISTEN_PID` to the child's own pid (known only after the
fork), optionally `LISTEN_FDNAMES`, then execs the service. `ActivatedProcess` does exactly
that with `os.fork` and `os.execve`, and collects the server's standard error like
`support.servers` does.
"""
import fcntl
import os
import signal
import threading
import time


class ActivatedProcess:
    """`binary args…` with `descriptors` passed as fds 3…; `listen_pid` overrides the pid put in
    `LISTEN_PID` (to pass the sockets to "another process"); `env` adds variables."""

    def __init__(self, binary: str, args: list[str], descriptors: list[int], cwd,
                 listen_pid: int | None = None, names: list[str] | None = None,
                 env: dict[str, str] | None = None):
        self._lines: list[str] = []
        self._lock = threading.Lock()
        self.returncode: int | None = None
        read_end, write_end = os.pipe()
        environment = dict(os.environ, **(env or {}))
        if descriptors:
            environment["LISTEN_FDS"] = str(len(descriptors))
        if names is not None:
            environment["LISTEN_FDNAMES"] = ":".join(names)
        self.pid = os.fork()
        if self.pid == 0:  # the child: only plain system calls until exec
            try:
                os.chdir(cwd)
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(write_end, 2)
                # Out of the way first, so that moving one to 3+i cannot overwrite another.
                high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in descriptors]
                for index, fd in enumerate(high):
                    os.dup2(fd, 3 + index)  # dup2 clears close-on-exec on the copy
                os.closerange(3 + len(descriptors), 4096)
                environment["LISTEN_PID"] = str(listen_pid or os.getpid())
                os.execve(binary, [binary, *args], environment)
            finally:
                os._exit(127)
        os.close(write_end)
        self._reader = os.fdopen(read_end, "rb")
        threading.Thread(target=self._collect, daemon=True).start()

    def _collect(self):
        for raw in self._reader:
            with self._lock:
                self._lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def log_text(self) -> str:
        with self._lock:
            return "\n".join(self._lines)

    def wait_for_log(self, text: str, timeout: float = 30) -> bool:
        """True once `text` appears in the log; False if the process exits or time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_text():
                return True
            if self.poll() is not None:
                time.sleep(0.1)  # let the reader catch up with the last lines
                return text in self.log_text()
            time.sleep(0.02)
        return False

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"tonearm (pid {self.pid}) did not exit:\n{self.log_text()}")
            time.sleep(0.02)
        return self.returncode

    def stop(self, timeout: float = 20) -> int:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGTERM)
            try:
                return self.wait(timeout)
            except TimeoutError:
                os.kill(self.pid, signal.SIGKILL)
                self.wait()
                raise
        return self.returncode
