"""Real MPD clients connect: python-mpd (Debian's python3-mpd) and mpc."""
import subprocess

import mpd
import pytest


def test_python_mpd_connects_and_lists_commands(tonearm):
    client = mpd.MPDClient()
    client.timeout = 10
    client.connect(tonearm.host, tonearm.port)
    assert client.mpd_version == "0.24.0"
    commands = client.commands()
    assert "ping" in commands and "idle" in commands
    client.ping()
    assert client.tagtypes()[:2] == ["Artist", "ArtistSort"]
    client.command_list_ok_begin()
    client.ping()
    client.tagtypes()
    results = client.command_list_end()
    assert len(results) == 2
    with pytest.raises(mpd.CommandError):
        client.password("wrong")
    client.close()
    client.disconnect()


def test_mpc_version(tonearm):
    result = subprocess.run(["mpc", "-h", tonearm.host, "-p", str(tonearm.port), "version"],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 0
    assert result.stdout.strip() == "mpd version: 0.24.0"


def test_mpc_reports_a_missing_command_cleanly(tonearm):
    # Tonearm has no storage plugins for mounts (MPD's nfs/smb), so `listmounts` is unknown.
    result = subprocess.run(["mpc", "-h", tonearm.host, "-p", str(tonearm.port), "mount"],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 1
    assert 'unknown command "listmounts"' in result.stderr
    with tonearm.connect() as c:
        assert c.command("ping") == ["OK"]


def test_mpc_stored_playlists(tonearm):
    def mpc(*args):
        return subprocess.run(["mpc", "-h", tonearm.host, "-p", str(tonearm.port), *args],
                              capture_output=True, text=True, timeout=20)
    result = mpc("load", "x")
    assert result.returncode == 1 and result.stderr == "MPD error: No such playlist\n"
    assert mpc("save", "x").returncode == 0
    assert mpc("lsplaylists").stdout == "x\n"
    assert mpc("rm", "x").returncode == 0
    assert mpc("lsplaylists").stdout == ""
