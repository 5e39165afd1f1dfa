"""The tonearm command: options, configuration errors, signals."""
import signal
import subprocess

import pytest

from support.servers import REPO, TonearmServer


def run(server_binary, *args, timeout=30):
    return subprocess.run([server_binary, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def binary(tmp_path):
    return TonearmServer(tmp_path).binary


def without_dirty(version: str) -> str:
    return version.removesuffix(".dirty").removesuffix("+dirty")


def test_version(binary):
    """The version is git's (packaging/version.sh, the same the Debian package gets), for the
    commit the binary was built from; whether the work tree had changes then may differ now."""
    result = run(binary, "--version")
    assert result.returncode == 0
    expected = subprocess.run([str(REPO / "packaging/version.sh")], capture_output=True, text=True,
                              check=True).stdout.strip()
    first = result.stdout.splitlines()[0]
    assert first.startswith("tonearm ") and first.endswith(" (MPD protocol 0.24.0)")
    assert without_dirty(first.split()[1]) == without_dirty(expected)
    assert "FFmpeg: libavformat " in result.stdout and "ALSA: " in result.stdout


def test_help(binary):
    result = run(binary, "--help")
    assert result.returncode == 0
    for option in ("--config", "--port", "--verbose", "--version"):
        assert option in result.stdout


def test_bad_port_option(binary):
    result = run(binary, "--port", "70000")
    assert result.returncode != 0 and "--port" in result.stderr


@pytest.mark.parametrize("text, line, message", [
    ('port "6600"\nport 6600\n', 2, 'expected a quoted value after "port"'),
    ('\n\naudio_output {\n type "null"\n', 3, "is not closed"),
    ('max_connections "many"\n', 1, "is not a number"),
    ('password "nopermissions"\n', 1, "SECRET@permission"),
])
def test_malformed_config_exits_1_naming_file_and_line(binary, tmp_path, text, line, message):
    config = tmp_path / "bad.conf"
    config.write_text(text)
    result = run(binary, "--config", str(config), "--port", "0")
    assert result.returncode == 1
    assert f"tonearm: {config}:{line}: " in result.stderr
    assert message in result.stderr


def test_missing_config_file_exits_1(binary, tmp_path):
    result = run(binary, "--config", str(tmp_path / "nope.conf"))
    assert result.returncode == 1 and "cannot read configuration file" in result.stderr


def test_unknown_options_warn_once_each_and_the_server_runs(make_tonearm):
    # The curl input block is read (its options apply to streams); another input plugin's is not.
    server = make_tonearm('user "mpd"\nsome_new_option "1"\ninput {\n plugin "curl"\n}\ninput {\n plugin "qobuz"\n}\n')
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    log = server.log_text()
    assert log.count('unknown option "some_new_option"') == 1
    assert log.count('"user" has no effect') == 1
    assert log.count('"input" block has no effect') == 1  # the qobuz block's only


def test_debian_mpd_conf_loads(tmp_path, binary):
    """Debian's own /etc/mpd.conf (installed with the mpd package) loads with warnings only."""
    debian = "/etc/mpd.conf"
    try:
        text = open(debian).read()
    except OSError:
        pytest.skip("mpd is not installed")
    # Keep its every line, but listen on loopback only with a free port.
    text = text.replace('bind_to_address', '#bind_to_address') + '\nbind_to_address "127.0.0.1"\nzeroconf_enabled "no"\n'
    config = tmp_path / "mpd.conf"
    config.write_text(text)
    server = subprocess.Popen([binary, "--config", str(config), "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        for line in server.stderr:
            assert " error " not in line
            if "Listening on 127.0.0.1:" in line:
                break
        assert server.poll() is None
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_shut_down_cleanly(make_tonearm, sig):
    server = make_tonearm()
    held = server.connect()
    held.send("idle\n")
    assert server.stop(sig) == 0
    assert held.expect_closed() is True
    assert "server stopped" in server.log_text()


def test_port_zero_logs_the_address(make_tonearm):
    server = make_tonearm()
    assert server.port > 0
    assert f"Listening on 127.0.0.1:{server.port}" in server.log_text()


def test_verbose_logs_more(make_tonearm):
    quiet = make_tonearm()
    with quiet.connect() as c:
        c.command("ping")
    loud = make_tonearm(args=["--verbose"])
    with loud.connect() as c:
        c.command("ping")
        c.send("close\n")
        assert c.expect_closed() is True
    assert len(loud.log_text().splitlines()) > len(quiet.log_text().splitlines())
