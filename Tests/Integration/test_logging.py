"""Logs where operators read them (issue 25): MPD's `log_level` names, `log_file` (a file that
SIGHUP reopens, or "syslog"), and the journal's priority prefixes when `JOURNAL_STREAM` says
standard error is the journal."""
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from support import audio
from support.playback import wait_elapsed, wait_status
from support.polling import poll
from support.servers import TonearmServer, free_port

# A pipe output without its command: an error at start, in MPD's words.
BROKEN_OUTPUT = 'audio_output {\n type "pipe"\n name "broken"\n}\n'
OUTPUTS = 'audio_output {\n type "null"\n name "null"\n}\n' + BROKEN_OUTPUT
# Lines written to a terminal or a file: `TIME LEVEL LABEL: [SOURCE] MESSAGE`.
STAMPED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} (\w+) tonearm:")
# An `info` line: MPD's words when a client sends a line longer than the input buffer.
TOO_LONG = "closing connection: Input buffer is full"


class QuietServer(TonearmServer):
    """Tonearm on a port chosen here, found by connecting: at `log_level "warning"`, or with a
    log file or syslog, standard error never says where it listens."""

    def start(self, timeout: float = 30):
        self.write_config()
        if self.music_dir.exists():
            self.music_dir.rmdir()  # a missing music folder: a warning at start
        self.port = free_port()
        self._launch([*self.wrapper, self.binary, "--config", str(self.config_path), "--port", str(self.port),
                      *self.args], env=self.env, journal=self.journal)

        def greets():
            if self.process.poll() is not None:
                raise RuntimeError(f"tonearm exited with {self.process.returncode}:\n{self.log_text()}")
            try:
                with self.connect() as c:
                    return True
            except OSError:
                return False

        poll("tonearm to listen", greets, timeout=timeout)
        return self


@pytest.fixture
def quiet(make_tonearm):
    """Starts `QuietServer`s on a missing music folder (a warning) with one output that cannot be
    set up (an error); stops them after the test."""
    return lambda extra_config="", **options: make_tonearm(extra_config, server_class=QuietServer, output=OUTPUTS,
                                                             **options)


def levels_logged(text: str) -> set[str]:
    return {match.group(1) for match in map(STAMPED.match, text.splitlines()) if match}


@pytest.mark.parametrize("name, shown", [
    ("error", {"error"}),
    ("warning", {"error", "warning"}),
    ("notice", {"error", "warning", "notice"}),
    ("default", {"error", "warning", "notice"}),  # MPD's name before 0.22
    ("info", {"error", "warning", "notice", "info"}),
    ("secure", {"error", "warning", "notice", "info"}),  # MPD's name before 0.22
    ("verbose", {"error", "warning", "notice", "info", "debug"}),
])
def test_log_level_keeps_what_is_at_or_above_it(quiet, name, shown):
    server = quiet(f'log_level "{name}"\n')
    with server.connect() as c:
        c.sock.sendall(b"x" * 100_000)
        assert c.expect_closed() is True
    with server.connect() as c:
        assert c.command("ping") == ["OK"]  # the overflow has been logged, if it is shown at all
    server.stop()
    text = server.log_text()
    assert levels_logged(text) == shown, text
    assert (TOO_LONG in text) == ("info" in shown)
    assert ('audio output "broken": No "command" parameter specified' in text)
    assert ("Failed to access" in text) == ("warning" in shown)


def test_verbose_flag_is_log_level_verbose(quiet):
    server = quiet('log_level "error"\n', args=["--verbose"])
    with server.connect() as c:
        c.command("ping")
    server.stop()
    assert "debug" in levels_logged(server.log_text())


def test_each_line_carries_its_priority_when_standard_error_is_the_journal(quiet):
    server = quiet('log_level "info"\n', journal=True)
    with server.connect() as c:
        c.sock.sendall(b"x" * 100_000)
        assert c.expect_closed() is True
    poll("the info line", lambda: TOO_LONG in server.log_text())
    lines = server.log_text().splitlines()
    # sd-daemon(3)'s prefixes, which the journal strips and files as each entry's priority;
    # the journal stamps the time itself.
    assert all(re.match(r"<[0-7]>", line) for line in lines), lines
    assert not any(STAMPED.search(line) for line in lines)
    by_text = {line[3:]: int(line[1]) for line in lines}
    assert any(p == 3 and 'audio output "broken"' in t for t, p in by_text.items()), lines
    assert any(p == 4 and t.startswith("[tonearm] Failed to access") for t, p in by_text.items()), lines
    assert any(p == 5 and t.startswith("[tonearm] configuration: ") for t, p in by_text.items()), lines
    assert any(p == 6 and t.startswith("client=") and TOO_LONG in t for t, p in by_text.items()), lines


def test_a_journal_stream_that_is_not_standard_error_is_ignored(quiet):
    """A child whose standard error was redirected keeps the variable: the lines stay stamped."""
    server = quiet(env={**os.environ, "JOURNAL_STREAM": "1:1"})
    server.stop()
    lines = server.log_text().splitlines()
    assert lines and all(STAMPED.match(line) for line in lines), lines


def test_log_file_appends_and_sighup_reopens_it(quiet, tmp_path):
    log = tmp_path / "tonearm.log"
    log.write_text("a line from before\n")
    server = quiet(f'log_file "{log}"\n')
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    poll("the summary in the file", lambda: "Failed to access" in log.read_text())
    assert log.read_text().startswith("a line from before\n")  # appended, not truncated
    assert server.log_text() == ""  # nothing on standard error
    assert levels_logged(log.read_text()) == {"error", "warning", "notice"}

    # logrotate's way: move the file, then SIGHUP; later lines go to a new file of that name.
    rotated = tmp_path / "tonearm.log.1"
    log.rename(rotated)
    server.process.send_signal(signal.SIGHUP)
    poll("the new file", log.exists)
    with server.connect() as c:
        job = c.command("update")[0].removeprefix("updating_db: ")
    poll("the update's summary in the new file", lambda: f"update job {job}:" in log.read_text())
    assert f"update job {job}:" not in rotated.read_text()
    assert server.process.poll() is None
    assert server.stop() == 0
    assert "server stopped" in log.read_text()


def test_sighup_without_a_log_file_does_not_stop_the_server(make_tonearm):
    server = make_tonearm()
    server.process.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    assert server.stop() == 0


@pytest.mark.parametrize("binary", ["tonearm", "mpd"])
def test_a_log_file_that_cannot_be_opened_stops_the_start(tmp_path, binary):
    """As MPD: the server does not start, and says which file, which line and why."""
    workdir = tmp_path / "server"
    workdir.mkdir()
    config = workdir / "test.conf"
    config.write_text(f'music_directory "{tmp_path}"\ndb_file "{workdir}/db"\nbind_to_address "127.0.0.1"\n'
                      f'port "{free_port()}"\nzeroconf_enabled "no"\nlog_file "{workdir}/no/such/folder/log"\n')
    if binary == "mpd":
        if not Path("/usr/bin/mpd").exists():
            pytest.skip("mpd is not installed")
        command = ["/usr/bin/mpd", "--no-daemon", str(config)]
    else:
        command = [TonearmServer(workdir).binary, "--config", str(config)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert f'failed to open log file "{workdir}/no/such/folder/log"' in result.stderr
    assert "No such file or directory" in result.stderr
    if binary == "tonearm":
        assert result.stderr.startswith(f"tonearm: {config}:6: ")


class SyslogDaemon:
    """A datagram socket that takes syslog's messages, as a syslog daemon's `/dev/log` does."""

    def __init__(self, path: Path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(str(path))
        self.socket.settimeout(0.2)
        self.messages: list[str] = []
        self.running = True
        self.thread = threading.Thread(target=self._receive, daemon=True)
        self.thread.start()

    def _receive(self):
        while self.running:
            try:
                self.messages.append(self.socket.recv(65536).decode("utf-8", "replace"))
            except socket.timeout:
                continue

    def close(self):
        self.running = False
        self.thread.join()
        self.socket.close()


def test_log_file_syslog_sends_each_line_with_its_priority(quiet, tmp_path):
    """syslog(3) writes to `/dev/log`, which this machine may not have: the server runs in a mount
    namespace of its own whose `/dev` holds the usual devices and a `log` that is this test's
    socket."""
    devices = tmp_path / "devices"
    devices.mkdir()
    daemon = SyslogDaemon(tmp_path / "syslog.socket")
    script = (f"mount --rbind /dev {devices} && mount -t tmpfs tmpfs /dev && "
              f"for name in null zero full random urandom; do touch /dev/$name; "
              f"mount --bind {devices}/$name /dev/$name; done && "
              f"ln -s /proc/self/fd /dev/fd && ln -s {tmp_path}/syslog.socket /dev/log && exec \"$@\"")
    try:
        server = quiet('log_file "syslog"\n',
                       wrapper=["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"])
        with server.connect() as c:
            assert c.command("ping") == ["OK"]
        poll("the summary in syslog", lambda: any("Failed to access" in m for m in daemon.messages))
        assert server.stop() == 0
        poll("the last line", lambda: any("server stopped" in m for m in daemon.messages))
    finally:
        daemon.close()
    assert server.log_text() == ""  # nothing on standard error
    # `<facility * 8 + priority>`, the facility `daemon` (3): error 27, warning 28, notice 29.
    found = {int(m[1:3]) for m in daemon.messages}
    assert found == {27, 28, 29}, daemon.messages
    assert any(re.match(r"<29>\w{3} [ \d]\d \d\d:\d\d:\d\d tonearm: \[tonearm\] configuration: ", m)
               for m in daemon.messages), daemon.messages
    assert any(m.startswith("<28>") and "Failed to access" in m for m in daemon.messages)
    assert any(m.startswith("<27>") and 'audio output "broken"' in m for m in daemon.messages)


def test_an_output_logs_its_first_opening_at_the_default_level_and_later_ones_at_info(make_tonearm, tmp_path):
    """The start-up summary names the outputs; whether each opened shows when playback starts."""
    music = tmp_path / "music"
    music.mkdir()
    audio.chirp(music / "48k.wav", rate=48000, seconds=30)
    audio.chirp(music / "44k.wav", rate=44100, seconds=30)
    first = 'audio output "null" (null) opened: 48000:16:2'
    again = 'audio output "null" (null) opened: 44100:16:2'  # a new format opens the device again
    for level in ("notice", "info"):
        server = make_tonearm(f'log_level "{level}"\n', music_dir=music)
        with server.connect() as c:
            wait_status(c, lambda s: "updating_db" not in s, what="the first scan to end")
            for song in ("48k.wav", "44k.wav"):
                c.command("clear")
                c.command(f"add {song}")
                c.command("play")
                wait_elapsed(c, 0.2)  # the output has played, so it opened
        server.stop()
        lines = server.log_text().splitlines()
        assert [line.split()[1] for line in lines if first in line] == ["notice"], lines
        assert [line.split()[1] for line in lines if again in line] == ([] if level == "notice" else ["info"]), lines
