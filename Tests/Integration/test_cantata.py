"""Cantata (Debian's 2.5), the Qt desktop client, under Xvfb with a private D-Bus session bus,
against Tonearm and Debian's MPD on the same copy of the fixture library.

Cantata starts on its Library page, albums as a grid of covers, and fetches each cover with
`albumart "FOLDER/" OFFSET` chunk by chunk (issue 21: Tonearm refused the folder's trailing
slash, so Cantata showed no cover at all). Its MPD log (`-d mpd`) holds every command it sent and
every answer, so the test checks that no ACK Tonearm gave is Tonearm's alone: MPD gives the same
code for the same command. A screenshot must show the covers: the library's covers are
replaced here by images of colours nothing else on the screen has, and the screenshot is
searched for them; the same search finds nothing when the covers are missing. Then another
client queues an album and pauses on its first song: Cantata follows over idle (`playlistinfo`,
`currentsong`, `sticker get … rating`) and shows the song with its cover in its toolbar.

Cantata reaches no further than 127.0.0.1: `-n` turns its network access off, cover fetching
from the internet is off in its configuration, its music folder setting names an empty folder
(so every cover comes from the server, not from disk), and its network log must show no
request for an http(s) address."""
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from support import processes
from support.desktop import Screenshot, VirtualScreen, count_colours
from support.library import copy, wait_for_scan
from support.servers import MPDServer, TonearmServer

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
# Each replaced cover: (file, colour of its solid part). The JPEG is larger than 8192 bytes, so
# Cantata reads it in several `albumart` chunks. MPD 0.23 does not serve folder.jpg; Tonearm does.
COVERS = {
    "jpeg": ("Björk/Debut/cover.jpg", (0x12, 0xB5, 0x4E)),
    "png": ("Sigur Rós/Ágætis byrjun/cover.png", (0xC8, 0x1E, 0x96)),
    "folder": ("坂本龍一/音楽図鑑/folder.jpg", (0xE0, 0x8A, 0x0B)),
}
COLOURS = {name: colour for name, (_, colour) in COVERS.items()}
# Pixels of a cover's colour that make it shown: in the album grid (a cover is about 110 × 80
# pixels), and in the toolbar's cover of the current song (about 50 × 40).
SHOWN = 500
SHOWN_SMALL = 300
TOOLBAR = (0, 0, 400, 56)  # x, y, width, height: above the album grid
WIDTH, HEIGHT = 1600, 600  # one row of album covers fits


def write_cover(path: Path, colour: tuple[int, int, int]):
    hex_colour = "0x%02X%02X%02X" % colour
    path.unlink(missing_ok=True)
    if path.suffix == ".png":
        args = ["-f", "lavfi", "-i", f"color=c={hex_colour}:s=64x64:d=1"]
    elif path.name == "cover.jpg":  # a solid top and a noisy bottom: about 48 KiB
        args = ["-filter_complex", f"color=c={hex_colour}:s=320x160:d=1[top];"
                "testsrc=s=320x80:d=1,noise=alls=80:allf=t[bottom];[top][bottom]vstack", "-q:v", "2"]
    else:
        args = ["-f", "lavfi", "-i", f"color=c={hex_colour}:s=96x96:d=1", "-q:v", "2"]
    subprocess.run(FFMPEG + args + ["-frames:v", "1", str(path)], check=True)


@pytest.fixture(scope="module")
def cantata_libraries(fixture_library, tmp_path_factory):
    """Two copies of the fixture library: `covers`, its covers replaced by coloured ones, and
    `bare`, without those cover files."""
    if shutil.which("cantata") is None or shutil.which("Xvfb") is None:
        pytest.skip("Cantata or Xvfb is missing: apt-get install cantata xvfb imagemagick dbus")
    root = tmp_path_factory.mktemp("cantata-music")
    covers = copy(fixture_library, root / "covers").root
    bare = copy(fixture_library, root / "bare").root
    for path, colour in COVERS.values():
        write_cover(covers / path, colour)
        (bare / path).unlink()
    assert (covers / COVERS["jpeg"][0]).stat().st_size > 8192
    return {"covers": covers, "bare": bare}


@dataclass
class Exchange:
    """One command Cantata sent on one connection, and the answer it read."""

    command: str
    answer: str


@dataclass
class CantataRun:
    log: str
    exchanges: list[Exchange] = field(default_factory=list)
    screenshot: Screenshot | None = None

    def acks(self) -> set[tuple[str, str, str]]:
        """(command, code, command name) of every ACK Cantata read."""
        found = set()
        for exchange in self.exchanges:
            for match in ACK.finditer(exchange.answer):
                found.add((exchange.command, match.group(1), match.group(2)))
        return found

    def albumart_answered(self, folder: str) -> bool:
        """Whether Cantata asked for the cover of `folder` and read all of it or an ACK."""
        for exchange in self.exchanges:
            command = ALBUMART.fullmatch(exchange.command)
            if command is None or command.group(1) != folder + "/":
                continue
            if exchange.answer.startswith("ACK "):
                return True
            size, chunk = SIZE.search(exchange.answer), BINARY.search(exchange.answer)
            if size and chunk and int(command.group(2)) + int(chunk.group(1)) >= int(size.group(1)):
                return True
        return False


# Cantata's MPD log lines (mpd-interface/mpdconnection.cpp): the socket, then what was sent or read,
# quoted as Qt's qDebug quotes a QByteArray.
SENT = re.compile(r' - MPDConnection 0x[0-9a-f]+ (0x[0-9a-f]+) sendCommand: "((?:[^"\\]|\\.|"")*)" ')
READ = re.compile(r' - MPDConnection 0x[0-9a-f]+ (0x[0-9a-f]+) Read: "((?:[^"\\]|\\.|"")*)" , socket state')
# Not anchored: the log keeps only both ends of an answer of 256 bytes or more.
ACK = re.compile(r"ACK \[(\d+)@\d+\] \{([^}]*)\}")
ALBUMART = re.compile(r'albumart "((?:[^"\\]|\\.)*)" (\d+)')
SIZE = re.compile(r"(?m)^size: (\d+)$")
BINARY = re.compile(r"(?m)^binary: (\d+)$")


def unquote(text: str) -> str:
    """The bytes qDebug printed as `text` (its escapes undone), as UTF-8 text."""
    out = bytearray()
    index = 0
    while index < len(text):
        char = text[index]
        if text.startswith('""', index):  # Qt ends a \x escape before a hex digit this way
            index += 2
        elif char == "\\":
            code = text[index + 1]
            if code == "x":
                end = index + 2
                while end < len(text) and text[end] in "0123456789abcdefABCDEF":
                    end += 1
                out.append(int(text[index + 2:end], 16))
                index = end
            else:
                out += {"n": b"\n", "r": b"\r", "t": b"\t"}.get(code, code.encode())
                index += 2
        else:
            out += char.encode()
            index += 1
    return out.decode("utf-8", "replace")


def parse_log(text: str) -> list[Exchange]:
    """Each command with the answer read next on its connection."""
    pending: dict[str, str] = {}
    exchanges = []
    for line in text.splitlines():
        if sent := SENT.search(line):
            pending[sent.group(1)] = unquote(sent.group(2))
        elif (read := READ.search(line)) and read.group(1) in pending:
            exchanges.append(Exchange(pending.pop(read.group(1)), unquote(read.group(2))))
    return exchanges


def cantata_config(home: Path, port: int) -> Path:
    """Cantata's own configuration: the server on 127.0.0.1 and its default partition (Cantata
    saves `partition=default` on its first exit), an empty music folder, no cover fetching
    from the internet, the Library page as a grid of albums beside no play queue."""
    config = home / ".config/cantata/cantata.conf"
    config.parent.mkdir(parents=True)
    (home / "no-music").mkdir()
    config.write_text(f"""[General]
version=2.5.0
fetchCovers=false
page=LibraryPage
hiddenPages=ContextPage
mainWindowPos=@Point(0 0)
mainWindowSize=@Size({WIDTH} {HEIGHT})

[Connection]
host=127.0.0.1
port={port}
partition=default
dir={home}/no-music/
autoUpdate=false

[LibraryPage]
grouping=album
album\\viewMode=icontop
album\\gridZoom=70
""")
    return config


class Cantata:
    """Cantata against `server` on a virtual screen of its own, with its MPD and network log in
    WORKDIR/cantata.log; `look` reads the log and takes a screenshot."""

    def __init__(self, server, workdir: Path):
        workdir.mkdir()
        self.workdir = workdir
        home = workdir / "home"
        runtime = workdir / "runtime"
        runtime.mkdir(mode=0o700)
        cantata_config(home, server.port)
        self.screen = VirtualScreen(WIDTH, HEIGHT, log=workdir / "xvfb.log")
        env = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
                   XDG_DATA_HOME=str(home / ".local/share"), XDG_RUNTIME_DIR=str(runtime),
                   DISPLAY=self.screen.display, QT_QPA_PLATFORM="xcb", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        self.log_path = workdir / "cantata.log"
        try:
            with open(self.log_path, "wb") as log:
                # Its own session: dbus-run-session, its bus and Cantata are stopped together.
                self.process = subprocess.Popen(
                    ["dbus-run-session", "--", "cantata", "-n", "-d", "mpd,network-access"], cwd=workdir, env=env,
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        except BaseException:
            self.screen.close()
            raise
        self.shots = 0

    def look(self) -> CantataRun:
        self.shots += 1
        shot = self.screen.screenshot(self.workdir / f"screen{self.shots % 2}.png")
        run = CantataRun(self.log_path.read_text(errors="replace"), screenshot=shot)
        run.exchanges = parse_log(run.log)
        return run

    def wait_for(self, what: str, done, timeout: float = 90) -> CantataRun:
        """Looks until `done(run)` holds and the screen has settled (two screenshots alike);
        returns that run, its screenshot kept as WORKDIR/NAME.png (NAME: `what`, dashed)."""
        deadline = time.monotonic() + timeout
        previous = None
        while True:
            run = self.look()
            if done(run) and previous is not None and previous.rgb == run.screenshot.rgb:
                kept = self.workdir / (what.replace(" ", "-").replace("'", "") + ".png")
                shutil.copy(run.screenshot.path, kept)
                run.screenshot.path = kept
                return run
            if self.process.poll() is not None:
                raise AssertionError(f"Cantata exited with {self.process.returncode}; its log:\n{run.log[-3000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout} s for {what}; see {self.workdir}")
            previous = run.screenshot
            time.sleep(0.5)

    def close(self):
        processes.terminate(self.process, group=True)
        self.screen.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def started(kind, music: Path, workdir: Path):
    server = (TonearmServer if kind == "tonearm" else MPDServer)(workdir, music_dir=music)
    server.start()
    with server.connect() as c:
        wait_for_scan(c)
    return server


def covers_answered(run: CantataRun) -> bool:
    return all(run.albumart_answered(str(Path(path).parent)) for path, _ in COVERS.values())


def shown(shot: Screenshot, *names: str, region=None) -> bool:
    """Whether the covers `names` are on the screen (in `region`: x, y, width, height)."""
    counts = count_colours(shot, {name: COLOURS[name] for name in names}, region=region)
    return all(count >= (SHOWN if region is None else SHOWN_SMALL) for count in counts.values())


def the_covers(expected: tuple[str, ...]):
    """A `wait_for` check: Cantata asked for the three covers and read the answers, and the
    `expected` covers show, or 20 s have passed since the answers without them."""
    answered = []

    def done(run: CantataRun) -> bool:
        if not covers_answered(run):
            return False
        if not answered:
            answered.append(time.monotonic())
        return shown(run.screenshot, *expected) or time.monotonic() > answered[0] + 20

    return done


def exercise(cantata: Cantata, server) -> tuple[CantataRun, CantataRun]:
    """What the test does with Cantata on each server: it waits for the album grid's covers;
    then another client queues Debut and pauses its first song, and Cantata, following over
    idle, shows that song with its cover in the toolbar. Returns the run at each point."""
    covers = cantata.wait_for("the album covers", the_covers(("jpeg", "png")))
    with server.connect() as c:
        assert c.command('add "Björk/Debut"') == ["OK"]
        assert c.command("play 0") == ["OK"]
        assert c.command("pause 1") == ["OK"]
    paused = cantata.wait_for("the paused song's cover", lambda run: shown(run.screenshot, "jpeg", region=TOOLBAR))
    return covers, paused


@pytest.fixture(scope="module")
def mpd_runs(cantata_libraries, tmp_path_factory):
    """`exercise` with Debian's MPD on the library with covers."""
    workdir = tmp_path_factory.mktemp("cantata-mpd")
    server = started("mpd", cantata_libraries["covers"], workdir / "mpd")
    try:
        with Cantata(server, workdir / "cantata") as cantata:
            return exercise(cantata, server)
    finally:
        server.stop()


def no_internet(run: CantataRun):
    requests = [line for line in run.log.splitlines() if "NetworkAccessManager" in line and "http" in line]
    assert requests == [], "Cantata asked for http(s) addresses"


def test_cantata_shows_tonearms_covers_and_meets_no_ack_mpd_does_not_give(cantata_libraries, mpd_runs, tmp_path):
    server = started("tonearm", cantata_libraries["covers"], tmp_path / "tonearm")
    try:
        with Cantata(server, tmp_path / "cantata") as cantata:
            covers, paused = exercise(cantata, server)
    finally:
        server.stop()
    where = f"Cantata's log and screenshots: {tmp_path}/cantata"
    tonearms_own = paused.acks() - mpd_runs[1].acks()
    assert tonearms_own == set(), f"ACKs only Tonearm gave; {where}"
    assert {("albumart", "50"), ("sticker", "50")} <= {(name, code) for _, code, name in paused.acks()}, \
        "albums without a cover and songs without a rating get ACK 50 from both"
    counts = count_colours(covers.screenshot, COLOURS)
    assert all(count >= SHOWN for count in counts.values()), f"covers on the screen: {counts}; {where}"
    # Every cover came over the protocol, the JPEG in more than one chunk.
    assert sum(e.command.startswith('albumart "Björk/Debut/"') and "binary: " in e.answer
               for e in covers.exchanges) > 1
    no_internet(paused)


def test_cantata_shows_mpds_covers_but_not_folder_jpg(mpd_runs):
    covers, paused = mpd_runs
    counts = count_colours(covers.screenshot, COLOURS)
    assert counts["jpeg"] >= SHOWN and counts["png"] >= SHOWN, counts
    # MPD 0.23 looks for cover.* only; Tonearm serves folder.jpg too (docs/clients.md).
    assert counts["folder"] == 0, counts
    no_internet(paused)


def test_the_cover_check_fails_without_covers(cantata_libraries, tmp_path):
    server = started("tonearm", cantata_libraries["bare"], tmp_path / "tonearm")
    try:
        with Cantata(server, tmp_path / "cantata") as cantata:
            run = cantata.wait_for("the album covers", the_covers(()))
    finally:
        server.stop()
    counts = count_colours(run.screenshot, COLOURS)
    assert counts == {"jpeg": 0, "png": 0, "folder": 0}, counts
    assert not any(shown(run.screenshot, name) for name in COLOURS)
