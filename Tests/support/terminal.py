"""A terminal program (ncmpcpp, ncmpc) in a detached tmux session: keys go in with
`tmux send-keys`, the screen comes out with `tmux capture-pane`, and tests poll it with generous
timeouts. tmux runs on a private socket and is killed at the end, whatever happens."""
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


class Terminal:
    """`command` in a WIDTH×HEIGHT tmux session on a private tmux server."""

    def __init__(self, command: str, width: int = 120, height: int = 40):
        # A socket path must fit in 108 bytes; pytest's directories can be long.
        self.socket_dir = Path(tempfile.mkdtemp(prefix="tonearm-tmux-"))
        self.socket = self.socket_dir / "sock"
        self.tmux("new-session", "-d", "-s", "program", "-x", str(width), "-y", str(height), command)

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", str(self.socket), *args], check=True, capture_output=True,
                              text=True, timeout=30).stdout

    def keys(self, *keys: str):
        self.tmux("send-keys", "-t", "program", *keys)

    def screen(self, escapes: bool = False) -> list[str]:
        """The visible lines, with the attributes' escape sequences if `escapes`."""
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "program").split("\n")

    def wait_for(self, predicate, what: str, timeout: float = 30, escapes: bool = False) -> list[str]:
        """Polls the screen until `predicate(lines)` holds; returns those lines."""
        deadline = time.monotonic() + timeout
        while True:
            lines = self.screen(escapes)
            if predicate(lines):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout} s for {what}; the screen:\n" + "\n".join(lines))
            time.sleep(0.1)

    def close(self):
        subprocess.run(["tmux", "-S", str(self.socket), "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(self.socket_dir, ignore_errors=True)


def ncmpcpp(server, home: Path) -> Terminal:
    """ncmpcpp (Debian's 0.9) in a Terminal, with a fresh HOME at `home` whose config names the
    server's host and port. `server` is kept on the terminal as `term.server`."""
    config = home / ".config" / "ncmpcpp"
    config.mkdir(parents=True)
    config.joinpath("config").write_text(f'mpd_host = "{server.host}"\nmpd_port = "{server.port}"\n')
    term = Terminal(f"env HOME={home} XDG_CONFIG_HOME={home / '.config'} TERM=screen ncmpcpp")
    term.server = server
    return term
