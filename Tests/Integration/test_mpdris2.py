"""mpDris2 (Debian's 0.9), the MPRIS bridge that gives desktops' media keys and sound menus an
MPD: on a private D-Bus session bus, against Tonearm and Debian's MPD alike. The desktop side is
played by `dbus-send`: it reads what mpDris2 says plays (`PlaybackStatus`, `Metadata`) and
presses the keys (`Play`, `Pause`, `Next`, `PlayPause`), whose effect is read back from the server.
"""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.playback import A1, A2, LONG, fields, playing_file, status, wait_state, wait_status  # noqa: E402
from support.processes import terminate  # noqa: E402

PLAYER = "org.mpris.MediaPlayer2.Player"
NAME = "org.mpris.MediaPlayer2.mpd"


class SessionBus:
    """A D-Bus session bus of the test's own, and `dbus-send` on it."""

    def __init__(self, folder: Path):
        self.process = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.process.stdout.readline().strip()
        assert self.address.startswith("unix:"), self.address
        self.env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.address, "HOME": str(folder),
                    "XDG_CONFIG_HOME": str(folder / "config"), "XDG_CACHE_HOME": str(folder / "cache")}

    def send(self, *args: str, reply: bool = True) -> str:
        command = ["dbus-send", "--session", "--dest=" + NAME, *(["--print-reply"] if reply else []),
                   "/org/mpris/MediaPlayer2", *args]
        result = subprocess.run(command, capture_output=True, text=True, timeout=30, env=self.env)
        assert result.returncode == 0, (args, result.stderr)
        return result.stdout

    def press(self, method: str):
        self.send(f"{PLAYER}.{method}")

    def property(self, name: str) -> str:
        return self.send("org.freedesktop.DBus.Properties.Get", f"string:{PLAYER}", f"string:{name}")

    def has_name(self) -> bool:
        result = subprocess.run(
            ["dbus-send", "--session", "--dest=org.freedesktop.DBus", "--print-reply", "/org/freedesktop/DBus",
             "org.freedesktop.DBus.ListNames"], capture_output=True, text=True, timeout=30, env=self.env)
        return f'"{NAME}"' in result.stdout

    def close(self):
        terminate(self.process)


def metadata(bus: SessionBus) -> dict[str, str]:
    """The string entries of `Metadata` (`xesam:title`, `xesam:album`, `xesam:url`, …); list
    entries (`xesam:artist`) give their first string."""
    text = bus.property("Metadata")
    entries = {}
    for key, value in re.findall(r'string "([a-z]+:[A-Za-z]+)"\s+variant\s+(?:array \[\s+)?string "([^"]*)"', text):
        entries.setdefault(key, value)
    return entries


def playback_status(bus: SessionBus) -> str:
    return re.search(r'variant\s+string "(\w+)"', bus.property("PlaybackStatus")).group(1)


def wait_bus(predicate, what: str, timeout: float = 20):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)


@pytest.fixture
def desktop(make_player_server, tmp_path):
    if shutil.which("mpDris2") is None:
        pytest.skip("mpDris2 is missing: apt-get install mpdris2")
    server = make_player_server()
    bus = SessionBus(tmp_path / "desktop")
    bridge = subprocess.Popen(["mpDris2", "--host", server.host, "--port", str(server.port)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=open(tmp_path / "mpdris2.log", "w"), env=bus.env)
    try:
        wait_bus(bus.has_name, "mpDris2 on the bus")
        yield server, bus
    finally:
        terminate(bridge)
        bus.close()


def test_media_keys_play_pause_and_skip(desktop):
    server, bus = desktop
    with server.connect() as c:
        # A two-minute song first, so that nothing ends by itself before the keys are pressed; repeat
        # on, so that the two-second songs after it cannot end the queue while the bus is read.
        for uri in (LONG, A1, A2):
            assert c.command(f'add "{uri}"') == ["OK"]
        assert c.command("repeat 1") == ["OK"]
        bus.press("Play")
        wait_state(c, "play")
        assert playing_file(c) == LONG
        wait_bus(lambda: playback_status(bus) == "Playing", "PlaybackStatus Playing")
        wait_bus(lambda: metadata(bus).get("xesam:title") == fields(c.command("currentsong"))["Title"],
                 "the playing song's title")
        song = metadata(bus)
        current = fields(c.command("currentsong"))
        assert song["xesam:artist"] == current["Artist"] and song["xesam:album"] == current["Album"]
        bus.press("Pause")
        wait_state(c, "pause")
        wait_bus(lambda: playback_status(bus) == "Paused", "PlaybackStatus Paused")
        bus.press("PlayPause")
        wait_state(c, "play")
        bus.press("Next")
        skipped = wait_status(c, lambda s: s.get("song") == "1", what="the second song")
        # The song id of that same status, not a later `currentsong`: A1 lasts two seconds, and on a
        # loaded machine A2 may already play when the next command is read.
        assert fields(c.command(f"playlistid {skipped['songid']}"))["file"] == A1
        wait_bus(lambda: metadata(bus).get("xesam:title") == fields(c.command("currentsong"))["Title"],
                 "the next song's title")
        assert status(c)["state"] == "play"
