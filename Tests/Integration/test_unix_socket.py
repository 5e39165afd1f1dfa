"""`bind_to_address "/path"`: the Unix socket, its file, and its clients.

As MPD: the socket file gets mode 0666 (any local user may connect; permissions still apply),
and its clients are local (`config`, `file://` URIs, `local_permissions`). Unlike MPD, which
unlinks whatever is at the path, Tonearm removes only a stale socket (one nothing listens on),
never another kind of file and never the socket of a server that is running.
"""
import socket
import stat

import pytest

from support import audio
from support.library import wait_for_scan
from support.servers import Connection


def unix_config(path) -> str:
    return f'bind_to_address "{path}"\n'


def lines_of(failure) -> list[str]:
    """The lines of a failed start's log (`tonearm exited with N:` and the server's standard error)."""
    return str(failure.value).splitlines()


def test_the_socket_file_is_mode_0666_and_goes_away_on_stop(make_tonearm, tmp_path):
    path = tmp_path / "tonearm.sock"
    server = make_tonearm(unix_config(path))
    assert stat.S_ISSOCK(path.lstat().st_mode)
    assert stat.S_IMODE(path.lstat().st_mode) == 0o666
    with Connection.connect_unix(path) as c:
        assert c.greeting.startswith("OK MPD ")
        assert c.command("ping") == ["OK"]
    assert server.stop() == 0
    assert not path.exists()


def test_unix_socket_mode_sets_the_mode(make_tonearm, tmp_path):
    path = tmp_path / "tonearm.sock"
    make_tonearm(unix_config(path) + 'unix_socket_mode "0660"\n')
    assert stat.S_IMODE(path.lstat().st_mode) == 0o660
    with Connection.connect_unix(path) as c:  # the owner still connects
        assert c.command("ping") == ["OK"]


def test_a_stale_socket_file_is_replaced(make_tonearm, tmp_path):
    path = tmp_path / "tonearm.sock"
    crashed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    crashed.bind(str(path))
    crashed.close()  # what a killed server leaves: the file, and nobody listening
    make_tonearm(unix_config(path))
    with Connection.connect_unix(path) as c:
        assert c.command("ping") == ["OK"]


def test_a_file_that_is_not_a_socket_is_left_alone(make_tonearm, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a socket\n")
    with pytest.raises(RuntimeError) as failure:
        make_tonearm(unix_config(path))
    assert "tonearm exited with 1" in str(failure.value)
    assert f"tonearm: {path} exists and is not a socket; not removing it" in lines_of(failure)
    assert path.read_text() == "not a socket\n"


def test_the_socket_of_a_running_server_is_not_taken(make_tonearm, tmp_path):
    path = tmp_path / "tonearm.sock"
    first = make_tonearm(unix_config(path))
    with pytest.raises(RuntimeError) as failure:
        make_tonearm(unix_config(path))
    assert "tonearm exited with 1" in str(failure.value)
    # A whole line: the server's other threads may still be logging as it gives up.
    assert f"tonearm: {path} is in use: another server is listening on it" in lines_of(failure)
    with Connection.connect_unix(path) as c:
        assert c.command("ping") == ["OK"]
    assert first.process.poll() is None


def test_a_server_that_cannot_listen_logs_no_other_error(make_tonearm, tmp_path):
    """Giving up stops the parts already running (the smart playlists' first look among them);
    their being stopped is not an error of theirs to log."""
    path = tmp_path / "tonearm.sock"
    make_tonearm(unix_config(path))
    with pytest.raises(RuntimeError) as failure:
        make_tonearm(unix_config(path) + 'default_smart_playlists "yes"\n')
    errors = [line for line in lines_of(failure) if " error tonearm: " in line]
    assert errors == []
    assert f"tonearm: {path} is in use: another server is listening on it" in lines_of(failure)


def test_unix_clients_are_local_and_tcp_clients_are_not(make_tonearm, tmp_path):
    """As Debian's MPD 0.23 answers: a file:// URI (or an absolute path) of a song in the music
    folder is added for a Unix-socket client, and `Access denied` over TCP."""
    path = tmp_path / "tonearm.sock"
    server = make_tonearm(unix_config(path))
    song = audio.chirp(server.music_dir / "song.wav", seconds=1)
    with Connection.connect_unix(path) as local:
        assert local.command("update")[-1] == "OK"
        wait_for_scan(local)
        assert local.command("config")[:2] == [f"music_directory: {server.music_dir}",
                                               f"playlist_directory: {server.workdir}/playlists"]
        assert local.command(f'add "file://{song}"') == ["OK"]
        assert local.command(f'add "{song}"') == ["OK"]
        assert [line for line in local.command("playlistinfo") if line.startswith("file:")] == [
            "file: song.wav", "file: song.wav"]
    with server.connect() as tcp:
        assert tcp.command("config") == ["ACK [4@0] {config} Command only permitted to local clients"]
        assert tcp.command(f'add "file://{song}"') == ["ACK [4@0] {add} Access denied"]
        assert tcp.command(f'add "{song}"') == ["ACK [4@0] {add} Access denied"]


def test_local_permissions_apply_to_the_socket(make_tonearm, tmp_path):
    path = tmp_path / "tonearm.sock"
    server = make_tonearm(unix_config(path) + 'password "secret@read,add,control,admin"\n'
                          'local_permissions "read"\n')
    with Connection.connect_unix(path) as local:
        assert local.command("status")[-1] == "OK"
        assert local.command("clear") == ["ACK [4@0] {clear} you don't have permission for \"clear\""]
    with server.connect() as tcp:
        assert tcp.command("status") == ["ACK [4@0] {status} you don't have permission for \"status\""]
