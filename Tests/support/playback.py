"""Short generated tracks for queue and player tests, and helpers to watch a playing server.

`short_tracks(root)` writes a tiny library of tagged tracks of TRACK_SECONDS each (plus one long
track) with the `ffmpeg` CLI, so that song transitions happen within seconds: MPD's `null`
output (and Tonearm's) paces in real time, elapsed advances, and a song ends at its duration.
Content is deterministic (bit-exact encoders, fixed mtimes), like Tests/support/library.py.

Layout (URIs relative to the music folder), and the queue order of `add /`:

    Album A/01 One.flac      Title One,   Artist Alpha, Album Album A, Track 1   (FLAC)
    Album A/02 Two.flac      Title Two,   Artist Alpha, Album Album A, Track 2   (FLAC)
    Album A/03 Three.mp3     Title Three, Artist Alpha, Album Album A, Track 3   (MP3, ID3v2.4)
    Album B/01 Four.flac     Title Four,  Artist Beta,  Album Album B, Track 1   (FLAC)
    Album B/02 Five.mp3      Title Five,  Artist Beta,  Album Album B, Track 2   (MP3)
    Album B/03 Six.flac      Title Six,   Artist Beta,  Album Album B, Track 3   (FLAC)
    Long/long.flac           Title Long,  Artist Gamma, Album Long,    Track 1   (LONG_SECONDS)

Tests never assert timing: they wait for states with generous timeouts and, to hurry a song to
its end, seek close to it.
"""
import os
import subprocess
import time
from pathlib import Path

VERSION = "1"
MARKER = ".short-tracks"
BASE_TIME = 1_600_000_000
TRACK_SECONDS = 2
LONG_SECONDS = 120
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags:a", "+bitexact"]

TRACKS = [  # (uri, title, artist, album, track, seconds)
    ("Album A/01 One.flac", "One", "Alpha", "Album A", "1", TRACK_SECONDS),
    ("Album A/02 Two.flac", "Two", "Alpha", "Album A", "2", TRACK_SECONDS),
    ("Album A/03 Three.mp3", "Three", "Alpha", "Album A", "3", TRACK_SECONDS),
    ("Album B/01 Four.flac", "Four", "Beta", "Album B", "1", TRACK_SECONDS),
    ("Album B/02 Five.mp3", "Five", "Beta", "Album B", "2", TRACK_SECONDS),
    ("Album B/03 Six.flac", "Six", "Beta", "Album B", "3", TRACK_SECONDS),
    ("Long/long.flac", "Long", "Gamma", "Long", "1", LONG_SECONDS),
]
URIS = [t[0] for t in TRACKS]  # the order `add /` puts them in
A1, A2, A3, B1, B2, B3, LONG = URIS
# The null output with a software mixer, for `make_player_server(output=...)`: volume commands work.
SOFTWARE_MIXER = 'audio_output {\n type "null"\n name "null"\n mixer_type "software"\n}\n'


def _encode(path: Path, title, artist, album, track, seconds):
    path.parent.mkdir(parents=True, exist_ok=True)
    codec = (["-c:a", "flac"] if path.suffix == ".flac"
             else ["-c:a", "libmp3lame", "-b:a", "16k", "-id3v2_version", "4", "-write_xing", "0", "-f", "mp3"])
    tags = [a for k, v in (("title", title), ("artist", artist), ("album", album), ("track", track))
            for a in ("-metadata", f"{k}={v}")]
    subprocess.run(FFMPEG + ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=8000:duration={seconds}",
                             "-ac", "1", "-ar", "8000", *codec, *tags, *BITEXACT, str(path)], check=True)


def short_tracks(root: Path) -> Path:
    """Writes the short-track library into `root` (once; a marker next to it keeps a finished
    one) and returns `root`."""
    root = Path(root)
    marker = root.parent / (root.name + MARKER)
    if marker.exists() and marker.read_text() == VERSION:
        return root
    root.mkdir(parents=True, exist_ok=True)
    for index, (uri, *tags) in enumerate(TRACKS):
        _encode(root / uri, *tags)
        os.utime(root / uri, (BASE_TIME + index * 86400,) * 2)
    for directory in [p for p in root.rglob("*") if p.is_dir()] + [root]:
        os.utime(directory, (BASE_TIME,) * 2)
    marker.write_text(VERSION)
    return root


# Helpers for tests on a server playing this library.

def fields(lines: list[str]) -> dict[str, str]:
    """`key: value` lines (without the final OK) as a dict; the last value of a key wins."""
    assert lines and lines[-1] == "OK", lines
    return dict(line.split(": ", 1) for line in lines[:-1])


def keys(lines: list[str]) -> list[str]:
    return [line.split(":", 1)[0] for line in lines if line != "OK"]


def status(c) -> dict[str, str]:
    return fields(c.command("status"))


def wait_status(c, predicate, timeout: float = 20, what: str = "a status") -> dict[str, str]:
    """Polls `status` until `predicate(status)` holds; returns that status. A generous timeout,
    never a timing assertion."""
    deadline = time.monotonic() + timeout
    while True:
        current = status(c)
        if predicate(current):
            return current
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}; last status: {current}")
        time.sleep(0.05)


def wait_state(c, state: str, timeout: float = 20) -> dict[str, str]:
    return wait_status(c, lambda s: s["state"] == state, timeout, f"state {state}")


def wait_elapsed(c, seconds: float, timeout: float = 20) -> dict[str, str]:
    """Waits until the player is playing with elapsed ≥ seconds (the output really runs)."""
    return wait_status(c, lambda s: s["state"] == "play" and float(s.get("elapsed", 0)) >= seconds,
                       timeout, f"elapsed ≥ {seconds}")


def playing_file(c) -> str | None:
    for line in c.command("currentsong"):
        if line.startswith("file: "):
            return line.removeprefix("file: ")
    return None


def queue_uris(c) -> list[str]:
    return [line.removeprefix("file: ") for line in c.command("playlistinfo") if line.startswith("file: ")]


def idle(c, subsystems: str = "", timeout: float = 20) -> list[str]:
    """Sends `idle [subsystems]` and returns its `changed:` names (the reply must end with OK)."""
    reply = c.command(f"idle {subsystems}".strip(), timeout=timeout)
    assert reply and reply[-1] == "OK", reply
    return [line.removeprefix("changed: ") for line in reply[:-1]]


def pending_events(c, subsystems: str = "") -> list[str]:
    """The events already pending for `c`: `idle` answers at once when one is pending; else
    `noidle` ends it with a bare OK. Consumes them (as a client's next idle would)."""
    c.send(f"idle {subsystems}".strip() + "\n")
    if c.nothing_within(0.3):
        c.send("noidle\n")
    reply = c.read_response(timeout=10)
    assert reply and reply[-1] == "OK", reply
    return [line.removeprefix("changed: ") for line in reply[:-1]]


def brief(lines: list[str]) -> list[str]:
    """A queue listing reduced to what the queue itself decides: file, Range, Pos, Id and Prio
    lines and the final OK/ACK (tags and formats are the library's business)."""
    return [line for line in lines
            if line.startswith(("file: ", "Range: ", "Pos: ", "Id: ", "Prio: ", "ACK ")) or line == "OK"]


def entries(*items) -> list[str]:
    """The `brief` lines of queue entries given as (uri, id) or (uri, id, prio), positions from 0."""
    lines = []
    for pos, (uri, song_id, *prio) in enumerate(items):
        lines += [f"file: {uri}", f"Pos: {pos}", f"Id: {song_id}"] + ([f"Prio: {prio[0]}"] if prio else [])
    return lines + ["OK"]


def listing(*uris: str) -> list[str]:
    """What the legacy `playlist` command prints for a queue of these URIs."""
    return [f"{pos}:file: {uri}" for pos, uri in enumerate(uris)] + ["OK"]


def seek_when_decoding(c, seconds: float):
    """`seekcur` once the player really decodes the song: MPD answers a seek sent right after
    `play` with `ACK [5@0] {seekcur} Decoder is dead` when its decoder thread has not started
    yet (a race seen on a loaded machine)."""
    wait_status(c, lambda s: s.get("state") == "play" and "audio" in s, what="the decoder to start")
    return c.command(f"seekcur {seconds}")
