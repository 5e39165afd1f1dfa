"""`mpc idleloop` the way scripts use it (`mpc idleloop | while read event; do …`): a process
whose stdout lines are the names of changed subsystems, while another client plays, changes the
volume and the modes, edits the queue and updates the database. Against Tonearm and MPD.

Each step is closed by a marker: the other client subscribes to (or leaves) a channel, which
raises `subscription`, an event no step causes. The server handles that client's commands in
order, so the lines idleloop prints before the marker's `subscription` are the step's events.
MPD may print an event twice (two `player` on play, MPD #1636); the test compares sets.
"""
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.clients import LineReader  # noqa: E402
from support.library import uris, wait_for_scan  # noqa: E402
from support.playback import A1, LONG, SOFTWARE_MIXER, wait_state, wait_status  # noqa: E402

SYNC = "sticker"  # what the first handshake raises; no step does


class IdleScript:
    """An `mpc idleloop [SUBSYSTEMS]` process and a second connection that makes the changes."""

    def __init__(self, server, *subsystems: str):
        self.server = server
        self.loop = LineReader.mpc(server, "idleloop", *subsystems)
        self.client = server.connect()
        self.subscribed = False

    def handshake(self):
        """Waits until idleloop idles: a change made before its first `idle` reaches the server
        is not printed, so sticker changes are repeated until one is."""
        self.loop.repeat_until_printed(
            lambda attempt: self.client.command(f'sticker set song "{A1}" sync {attempt}'), SYNC)

    def events(self, *commands: str, settle=None) -> set[str]:
        """Runs COMMANDS (each must succeed), then `settle(client)` if given, then the marker;
        returns the set of names idleloop printed for them (late handshake lines left out)."""
        for command in commands:
            assert self.client.command(command)[-1] == "OK", command
        if settle:
            settle(self.client)
        self.subscribed = not self.subscribed
        marker = "subscribe" if self.subscribed else "unsubscribe"
        assert self.client.command(f"{marker} marker") == ["OK"]
        return set(self.loop.lines_until("subscription")[:-1]) - {SYNC}

    def close(self):
        self.loop.stop()
        self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def test_idleloop_prints_each_change(make_player_server):
    server = make_player_server(output=SOFTWARE_MIXER)
    with IdleScript(server) as script:
        script.handshake()
        assert script.events(f'add "{LONG}"', 'add "Album A"') == {"playlist"}
        assert script.events("setvol 50") == {"mixer"}
        # Before playing: MPD may raise a late `player` after its decoder started.
        assert script.events("random 1", "repeat 1", "single 1", "consume 1") == {"options"}

        def decoding(c):  # MPD's second `player` comes once the decoder runs
            wait_status(c, lambda s: s.get("state") == "play" and "audio" in s, what="the decoder to start")
        assert script.events("play 0", settle=decoding) == {"player"}
        assert script.events("pause 1", settle=lambda c: wait_state(c, "pause")) == {"player"}
        assert script.events("delete 3") == {"playlist"}
        assert script.events("stop", settle=lambda c: wait_state(c, "stop")) == {"player"}

        # A new file, then `update`: `update` when the job starts, `database` and `update`
        # again when it ends with a changed database.
        shutil.copy(server.music_dir / A1, server.music_dir / "new.flac")
        assert script.events("update", settle=wait_for_scan) == {"update", "database"}
        assert "new.flac" in uris(script.client.command("lsinfo"))
        assert script.events("save mine") == {"stored_playlist"}
        assert script.loop.process.poll() is None


def test_idleloop_prints_only_the_subsystems_asked_for(make_player_server):
    server = make_player_server(output=SOFTWARE_MIXER)
    with LineReader.mpc(server, "idleloop", "mixer") as loop, server.connect() as c:
        loop.repeat_until_printed(lambda attempt: c.command(f"setvol {40 + attempt % 2}"), "mixer")
        for command in ("random 1", f'add "{LONG}"', "play 0", "stop", "setvol 20"):
            assert c.command(command) == ["OK"], command
        # The other changes are not printed, and the loop goes on: the next line is the volume.
        assert loop.next_line() == "mixer"
        assert loop.process.poll() is None
