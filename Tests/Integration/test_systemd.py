"""Running under systemd: socket activation (sd_listen_fds) and readiness (sd_notify).

The sockets are handed over as systemd hands them (support/activation.py: fork, move them to fd
3…, `LISTEN_FDS`, `LISTEN_PID` = the child's pid, exec). MPD's behaviour is the reference:
passed sockets replace every `bind_to_address`, a `LISTEN_PID` that is not the server's is
ignored, and a passed descriptor that is not a socket stops the server with status 1 (Debian's
mpd 0.23: `Failed to get socket address: Socket operation on non-socket`). The tests marked
`KINDS` make the same assertions of Debian's mpd, launched the same way.
"""
import os
import socket
import time
import uuid

import pytest

from support import audio
from support.activation import ActivatedProcess
from support.library import wait_for_scan
from support.servers import Connection, free_port

BINARY = os.environ.get("TONEARM_BIN")
MPD = "/usr/bin/mpd"


def config(workdir, extra="") -> str:
    """A private configuration that binds 127.0.0.1 on a port no test uses, so that binding it
    shows up as a listening socket the activated server must not open."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "music").mkdir(exist_ok=True)
    path = workdir / "tonearm.conf"
    path.write_text(
        f'music_directory "{workdir}/music"\n'
        f'db_file "{workdir}/database.sqlite"\n'
        f'state_file "{workdir}/state"\n'
        'bind_to_address "127.0.0.1"\n'
        f'port "{free_port()}"\n'
        'zeroconf_enabled "no"\n'
        + (extra or audio.null_output()))
    return str(path)


def configured_port(path) -> int:
    for line in open(path):
        if line.startswith("port "):
            return int(line.split('"')[1])
    raise AssertionError("no port in the configuration")


def serving(connect, timeout: float = 30) -> bool:
    """True once `connect()` reaches a server that greets and answers `ping` (polled)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with connect() as c:
                return c.greeting.startswith("OK MPD ") and c.command("ping") == ["OK"]
        except OSError:
            time.sleep(0.05)
    return False


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.fixture
def launch(tmp_path):
    """Starts activated servers; stops them after the test."""
    started = []

    def start(descriptors, extra_config="", kind="tonearm", **options):
        """`kind` "mpd" runs Debian's MPD on the same configuration, in the foreground."""
        workdir = tmp_path / f"activated{len(started)}"
        if kind == "mpd":
            path = config(workdir, f'log_file "{workdir}/log"\n' + (extra_config or audio.null_output()))
            process = ActivatedProcess(MPD, ["--no-daemon", "--stderr", path], descriptors, cwd=workdir, **options)
        else:
            path = config(workdir, extra_config)
            process = ActivatedProcess(BINARY, ["--config", path], descriptors, cwd=workdir, **options)
        process.kind = kind
        process.config_path = path
        process.workdir = workdir
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


def tcp_listener() -> socket.socket:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    return listener


KINDS = pytest.mark.parametrize("kind", ["tonearm", "mpd"])


@KINDS
def test_a_passed_tcp_socket_is_served_and_nothing_else_is_bound(launch, kind):
    listener = tcp_listener()
    port = listener.getsockname()[1]
    server = launch([listener.fileno()], names=["tonearm.socket"], kind=kind)
    listener.close()  # the server holds its own copy now, as after systemd's fork
    assert serving(lambda: Connection.connect("127.0.0.1", port)), server.log_text()
    with Connection.connect("127.0.0.1", port) as c:
        # A TCP client is not local, whatever socket it came through.
        assert c.command("config") == ["ACK [4@0] {config} Command only permitted to local clients"]
    assert refused(configured_port(server.config_path))
    assert server.stop() == 0
    if kind == "tonearm":
        assert f"Listening on 127.0.0.1:{port} (socket activation, fd 3 (tonearm.socket))" in server.log_text()


@KINDS
def test_a_passed_unix_socket_is_local_and_stays_for_systemd(launch, tmp_path, kind):
    path = tmp_path / "activated.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen()
    server = launch([listener.fileno()], kind=kind)
    listener.close()
    assert serving(lambda: Connection.connect_unix(path)), server.log_text()
    with Connection.connect_unix(path) as c:
        assert c.command("config")[-1] == "OK"
    assert refused(configured_port(server.config_path))
    assert server.stop() == 0
    # The socket file is the socket unit's: the server leaves it for the next activation.
    assert path.is_socket()


@KINDS
def test_a_passed_abstract_socket_is_served(launch, kind):
    """`ListenStream=@name`: a Unix socket without a file; its clients are local too."""
    name = f"\0tonearm-test-{uuid.uuid4().hex}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(name)
    listener.listen()
    server = launch([listener.fileno()], kind=kind)
    listener.close()
    assert serving(lambda: Connection.connect_unix(name)), server.log_text()
    with Connection.connect_unix(name) as c:
        assert c.command("config")[-1] == "OK"
    if kind == "tonearm":
        assert "Listening on an abstract Unix socket (socket activation, fd 3)" in server.log_text()


def test_two_passed_sockets_are_both_served(launch, tmp_path):
    tcp = tcp_listener()
    path = tmp_path / "second.sock"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(path))
    unix.listen()
    server = launch([tcp.fileno(), unix.fileno()], names=["tcp", "unix"])
    port = tcp.getsockname()[1]
    tcp.close()
    unix.close()
    assert server.wait_for_log("(socket activation, fd 4 (unix))"), server.log_text()
    with Connection.connect("127.0.0.1", port) as c, Connection.connect_unix(path) as local:
        assert c.command("ping") == ["OK"] and local.command("ping") == ["OK"]


@KINDS
def test_sockets_for_another_process_are_ignored(launch, kind):
    listener = tcp_listener()
    server = launch([listener.fileno()], listen_pid=1, kind=kind)
    port = configured_port(server.config_path)
    assert serving(lambda: Connection.connect("127.0.0.1", port)), server.log_text()
    assert "socket activation" not in server.log_text()


@KINDS
def test_a_passed_file_that_is_not_a_socket_is_refused(launch, tmp_path, kind):
    regular = open(tmp_path / "not-a-socket", "w")
    server = launch([regular.fileno()], kind=kind)
    assert server.wait() == 1
    assert refused(configured_port(server.config_path))
    message = {"tonearm": "socket activation passed fd 3, which is not a socket",
               "mpd": "Failed to get socket address: Socket operation on non-socket"}[kind]
    assert message in server.log_text()


def test_a_passed_socket_that_is_not_listening_is_refused(launch):
    # MPD spins on `accept() failed: Invalid argument` here; refusing to start says why.
    unlistened = socket.socket()
    unlistened.bind(("127.0.0.1", 0))
    server = launch([unlistened.fileno()])
    assert server.wait() == 1
    assert "socket activation passed fd 3, which is not listening" in server.log_text()


def test_the_variables_do_not_reach_pipe_outputs(launch, tmp_path):
    """A pipe output's command runs with the server's environment: without LISTEN_* and
    NOTIFY_SOCKET, and with no descriptor but standard input, output and error (as with MPD),
    so that it can neither take the server's sockets nor speak for it."""
    seen = tmp_path / "environment"
    descriptors = tmp_path / "descriptors"
    output = ('audio_output {\n type "pipe"\n name "env"\n'
              f' command "ls -l /proc/$$/fd/ > {descriptors}; env > {seen}.part; mv {seen}.part {seen};'
              ' cat > /dev/null"\n}\n')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    listener = tcp_listener()
    port = listener.getsockname()[1]
    server = launch([listener.fileno()], output, env={"NOTIFY_SOCKET": str(tmp_path / "notify")})
    listener.close()
    audio.chirp(server.workdir / "music" / "song.wav", seconds=1)
    assert server.wait_for_log("Listening on"), server.log_text()
    with Connection.connect("127.0.0.1", port) as c:
        assert c.command("update")[-1] == "OK"
        wait_for_scan(c)
        assert c.command("add song.wav") == ["OK"]
        assert c.command("play") == ["OK"]
        audio.read_settled(seen)
    variables = dict(line.split("=", 1) for line in seen.read_text().splitlines() if "=" in line)
    assert not {"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET"} & variables.keys()
    assert "PATH" in variables  # the rest of the environment is passed on
    listing = descriptors.read_text()
    # Nor any other socket: the listener and the client connections stay the server's.
    assert " 0 -> pipe:" in listing and " 3 -> " not in listing and "socket:" not in listing, listing


# sd_notify

def notify_socket(tmp_path, abstract: bool):
    """A datagram socket to receive the notifications, and the NOTIFY_SOCKET value naming it."""
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if abstract:
        name = f"tonearm-test-{uuid.uuid4().hex}"
        receiver.bind("\0" + name)
        address = "@" + name
    else:
        address = str(tmp_path / "notify")
        receiver.bind(address)
    receiver.settimeout(60)
    return receiver, address


@pytest.mark.parametrize("abstract", [False, True], ids=["path", "abstract"])
def test_ready_once_serving_with_the_state_restored_and_stopping_on_sigterm(
        make_tonearm, monkeypatch, tmp_path, abstract):
    receiver, address = notify_socket(tmp_path, abstract)
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    workdir = tmp_path / "tonearm0"  # make_tonearm's first server
    workdir.mkdir()
    (workdir / "state").write_text("sw_volume: 100\nstate: stop\nrandom: 1\nrepeat: 1\n")
    server = make_tonearm()
    assert receiver.recv(4096) == b"READY=1"
    # READY came after listening, so a client is served at once, and sees the restored state.
    with server.connect() as c:
        status = c.command("status")
        assert "random: 1" in status and "repeat: 1" in status
    server.process.send_signal(15)
    assert receiver.recv(4096) == b"STOPPING=1"
    assert server.wait_exit() == 0


def test_kill_sends_stopping(make_tonearm, monkeypatch, tmp_path):
    receiver, address = notify_socket(tmp_path, abstract=False)
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    server = make_tonearm()
    assert receiver.recv(4096) == b"READY=1"
    with server.connect() as c:
        c.send("kill\n")
        assert receiver.recv(4096) == b"STOPPING=1"
    assert server.wait_exit() == 0


def test_an_unusable_notify_socket_is_only_a_warning(make_tonearm, monkeypatch, tmp_path):
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens-here"))
    server = make_tonearm()
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    assert "cannot notify systemd (READY=1)" in server.log_text()
