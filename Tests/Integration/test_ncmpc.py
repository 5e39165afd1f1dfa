"""ncmpc (Debian's 0.47) in a detached tmux session (Tests/support/terminal.py) against Tonearm
and Debian's MPD, with its default key bindings: the queue screen shows what another client
queued, Enter plays it, P pauses, and its Outputs screen (8) toggles the output with Enter.
That screen is where issue 21 found an output disabled while paused leaving Tonearm playing
silence: resumed without an output, both servers stay paused with MPD's error, and play on once
the output is back."""
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.playback import LONG, fields, playing_file, status, wait_elapsed, wait_status  # noqa: E402
from support.terminal import Terminal  # noqa: E402


@pytest.fixture
def ncmpc(make_player_server, tmp_path):
    if shutil.which("ncmpc") is None:
        pytest.skip("ncmpc is missing: apt-get install ncmpc")
    server = make_player_server()
    home = tmp_path / "home"
    home.mkdir()
    term = Terminal(f"env HOME={home} TERM=screen ncmpc --no-colors -h {server.host} -p {server.port}", 100, 24)
    term.server = server
    try:
        yield term
    finally:
        term.close()


def status_bar(lines: list[str]) -> str:
    """ncmpc's last line: `Playing: …` or `[Paused] …`."""
    return next((line.rstrip() for line in reversed(lines) if line.strip()), "")


def test_ncmpc_plays_pauses_and_toggles_the_output_while_paused(ncmpc):
    server = ncmpc.server
    ncmpc.wait_for(lambda s: f"2:Queue on {server.host}:{server.port}" in s[0], "the queue screen, connected")
    with server.connect() as c:
        assert c.command(f'add "{LONG}"') == ["OK"]
    ncmpc.wait_for(lambda s: any(line.startswith("Gamma - Long") and line.rstrip().endswith("2:00") for line in s),
                   "the queued song on the queue screen")

    ncmpc.keys("Enter")
    with server.connect() as c:
        wait_elapsed(c, 0.5)
        assert playing_file(c) == LONG
        # P toggles what ncmpc last heard the state to be: let it hear it before each P.
        ncmpc.wait_for(lambda s: status_bar(s).startswith("Playing:"), "ncmpc to show the song playing")
        ncmpc.keys("P")
        paused = wait_status(c, lambda s: s["state"] == "pause", what="the pause")

        ncmpc.keys("8")
        ncmpc.wait_for(lambda s: any(line.rstrip() == "[X] null" for line in s), "the Outputs screen")
        ncmpc.keys("Enter")
        ncmpc.wait_for(lambda s: any(line.rstrip() == "[ ] null" for line in s), "the output disabled")
        assert fields(c.command("outputs"))["outputenabled"] == "0"

        # Resumed without an output: paused on the song with MPD's error (MPD's player thread
        # may show `play` for a moment before its main thread pauses).
        ncmpc.wait_for(lambda s: status_bar(s).startswith("[Paused]"), "ncmpc to show the pause")
        ncmpc.keys("P")
        stuck = wait_status(c, lambda s: s["state"] == "pause" and "error" in s, what="the error")
        assert stuck["error"] == "All audio outputs are disabled"

        ncmpc.keys("Enter")
        ncmpc.wait_for(lambda s: any(line.rstrip() == "[X] null" for line in s), "the output enabled")
        assert status(c)["state"] == "pause"
        ncmpc.wait_for(lambda s: status_bar(s).startswith("[Paused]"), "ncmpc to show the pause")
        ncmpc.keys("P")
        playing = wait_elapsed(c, float(paused["elapsed"]) + 0.5)
        assert playing["state"] == "play" and playing_file(c) == LONG
