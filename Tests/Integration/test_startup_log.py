"""What the log says at start (issue 25): a few lines at the default level naming the
configuration, the music folder, the files and the outputs, and a warning with advice when the
music folder is missing, not a folder, unreadable or empty."""
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from support.servers import REPO, Connection, MPDServer, TonearmServer

# What every music-folder warning offers besides fixing the folder.
OVERRIDE = "--music-directory PATH"


def _server(tmp_path, music: Path, create=True, **options) -> TonearmServer:
    """A server on `music`, started by `with`; without `create`, the folder is missing."""
    server = TonearmServer(tmp_path / "tonearm", music_dir=music, **options)
    if not create:
        music.rmdir()  # the server class makes the folder; these tests need it gone
    return server


def _lines_before_listening(server) -> list[str]:
    lines = server.log_text().splitlines()
    end = next(i for i, line in enumerate(lines) if "Listening on" in line)
    return lines[:end]


def _music_line(server) -> str:
    matches = [line for line in server.log_text().splitlines()
               if "music directory" in line or "Failed to access" in line or "directory:" in line]
    assert len(matches) == 1, server.log_text()
    return matches[0]


def test_the_summary_at_the_default_level(tmp_path):
    music = tmp_path / "music"
    music.mkdir()
    (music / "song.flac").write_bytes(b"not audio, but an entry")
    outputs = ('audio_output {\n type "null"\n name "quiet"\n enabled "no"\n}\n'
               'audio_output {\n type "null"\n name "null"\n}\n'
               'audio_output {\n type "pipe"\n name "broken"\n}\n')
    with _server(tmp_path, music, output=outputs) as server:
        workdir = server.workdir
        before = _lines_before_listening(server)
        # The output that cannot be set up is an error of its own and left out of the list.
        errors = [line for line in before if " error " in line]
        assert len(errors) == 1 and 'audio output "broken": No "command" parameter specified' in errors[0]
        # The summary's own lines: the first scan's summary (the update queue's, labelled
        # [MediaLibrary]) may come before `Listening` too, depending on how fast it ends.
        summary = [line for line in before if line not in errors and "[tonearm]" in line]
        # Nothing below notice: the default level shows every one of them.
        assert all(" notice " in line for line in summary), summary
        text = "\n".join(summary)
        assert f"configuration: {server.config_path}" in text
        assert f"music directory: {music}" in text
        assert (f"database: {workdir}/database.sqlite; state file: {workdir}/state; "
                f"sticker file: {workdir}/stickers.sqlite") in text
        assert 'audio outputs: "quiet" (null, disabled), "null" (null)' in text
        assert 'Zeroconf: off (zeroconf_enabled "no")' in text
        assert len(summary) == 5  # a few lines, not a dump of the configuration


def test_a_missing_music_directory_is_a_warning_in_mpds_words_with_advice(tmp_path):
    music = tmp_path / "nonexistent"
    with _server(tmp_path, music, create=False) as server:
        line = _music_line(server)
        assert " warning " in line
        assert f"Failed to access {music}: No such file or directory" in line
        assert "create that folder" in line
        assert f"set music_directory in {server.config_path}" in line and OVERRIDE in line
        with server.connect() as c:  # the server runs on, with an empty library
            assert c.command("lsinfo") == ["OK"]


def test_mpd_words_a_missing_music_directory_the_same_way(tmp_path):
    if not Path("/usr/bin/mpd").exists():
        pytest.skip("mpd is not installed")
    music = tmp_path / "nonexistent"
    server = MPDServer(tmp_path / "mpd", music_dir=music)
    music.rmdir()
    with server:
        pass
    assert f"Failed to access {music}: No such file or directory" in (server.workdir / "log").read_text()


def test_an_empty_music_directory_is_a_warning(tmp_path):
    music = tmp_path / "music"
    music.mkdir()
    with _server(tmp_path, music) as server:
        line = _music_line(server)
        assert " warning " in line
        assert f"music directory {music} is empty" in line
        assert "copy or link your music into it" in line and OVERRIDE in line


def test_a_file_instead_of_a_folder_is_a_warning(tmp_path):
    music = tmp_path / "music"
    server = TonearmServer(tmp_path / "tonearm", music_dir=music)
    music.rmdir()
    music.write_text("not a folder")
    with server:
        line = _music_line(server)
        assert " warning " in line and f"Not a directory: {music}" in line and OVERRIDE in line
        assert "make it a folder that holds your music" in line


def _without_permission_override() -> list[str]:
    """The command prefix under which chmod 000 keeps a folder out of reach. Root reads every
    folder whatever its mode (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), and the tests run as root
    here; `setpriv` drops those two capabilities, so root meets the permission bits as any
    user does."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: chmod 000 does not stop root")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def test_an_unreadable_music_directory_is_a_warning(tmp_path):
    music = tmp_path / "music"
    music.mkdir()
    (music / "song.flac").write_bytes(b"x")
    wrapper = _without_permission_override()
    music.chmod(0)
    try:
        probe = subprocess.run([*wrapper, "ls", str(music)], capture_output=True)
        if probe.returncode == 0:
            pytest.skip("chmod 000 does not stop reading here (capabilities could not be dropped)")
        with _server(tmp_path, music, wrapper=wrapper) as server:
            line = _music_line(server)
            assert " warning " in line
            # MPD's words: the folder cannot be entered, which is checked before reading.
            assert f'No permission to traverse ("execute") directory: {music}' in line
            assert "read and enter it (chmod a+rX)" in line and OVERRIDE in line
    finally:
        music.chmod(0o755)


def test_music_directory_option_overrides_the_file_and_is_named_in_the_advice(tmp_path):
    configured = tmp_path / "configured"
    configured.mkdir()
    (configured / "a.flac").write_bytes(b"x")
    with _server(tmp_path, configured, args=["--music-directory", "elsewhere"]) as server:
        line = _music_line(server)
        # Relative to the directory tonearm started in (the server's work directory).
        assert f"Failed to access {server.workdir}/elsewhere: No such file or directory" in line
        assert "give --music-directory a folder that holds your music" in line
        assert str(configured) not in server.log_text()


def test_music_directory_option_serves_that_folder(tmp_path):
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    (chosen / "a.flac").write_bytes(b"x")
    socket_path = tmp_path / "tonearm.sock"
    with _server(tmp_path, tmp_path / "music", args=["--music-directory", str(chosen)],
                extra_config=f'bind_to_address "{socket_path}"\n') as server:
        assert f"music directory: {chosen}" in server.log_text()
        # `config` (local clients only) shows the folder the server serves.
        with Connection.connect_unix(socket_path) as local:
            assert local.command("config")[0] == f"music_directory: {chosen}"


def test_music_directory_option_expands_the_home_directory(tmp_path):
    """`make run MUSIC=…` quotes the value, so the shell does not expand `~`: tonearm does."""
    home = tmp_path / "home"
    (home / "songs").mkdir(parents=True)
    (home / "songs" / "a.flac").write_bytes(b"x")
    server = TonearmServer(tmp_path / "tonearm", args=["--music-directory", "~/songs"],
                           wrapper=["env", f"HOME={home}"])
    with server:
        assert f"music directory: {home}/songs" in server.log_text()


def test_empty_music_directory_option_is_refused(tmp_path):
    binary = TonearmServer(tmp_path / "t").binary
    result = subprocess.run([binary, "--music-directory", ""], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "--music-directory" in result.stderr


def test_make_run_without_a_music_folder_says_how_to_point_tonearm_at_music(tmp_path):
    """`make run` on a machine without ~/Music: the repository's example configuration (every
    line commented out) and a home without a music folder."""
    binary = TonearmServer(tmp_path / "t").binary
    home = tmp_path / "home"
    home.mkdir()
    environment = {key: value for key, value in os.environ.items() if not key.startswith("XDG_")}
    environment["HOME"] = str(home)
    process = subprocess.Popen(
        [binary, "--config", "conf/tonearm.conf", "--port", "0"], cwd=REPO, env=environment,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in process.stderr:
            lines.append(line)
            if "Listening on" in line:
                break
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)
    text = "".join(lines)
    assert "configuration: conf/tonearm.conf" in text
    assert (f"Failed to access {home}/Music: No such file or directory; the library stays empty: "
            "create that folder and put your music in it, or set music_directory in conf/tonearm.conf "
            "(or start tonearm with --music-directory PATH)") in text
