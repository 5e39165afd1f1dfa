"""Seeded random sequences of queue edits, applied to Tonearm and to Debian's MPD side by side.

Each step sends the same command to both servers (add, add at a position, addid, move of a
song or a range, moveid, delete of a song or a range, deleteid, swap, swapid, prio, prioid,
shuffle of a range or of everything, random on and off, clear) and then compares what a client
sees: the answer, `playlistinfo` (file, Pos, Id, Prio), how far the queue version moved,
`plchangesposid` and `plchanges` since the version before the step and since a few steps back,
and whether an idling client heard `playlist`.

`shuffle` is random on both sides: after one, the shuffled part is compared as a multiset (the
rest exactly), the changed positions as a set, and then MPD's queue is put into Tonearm's order
with `moveid` (untimed, not compared) and the version history starts afresh from there. Random
mode only reorders the play order, which no listing shows, so everything else stays exact with
it on. Nothing plays: the current song is never set, which is what makes the answers
deterministic.
"""
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.playback import URIS, brief, status  # noqa: E402

MAXIMUM = 40
STEPS = 150
HISTORY = 4  # plchanges since each of the last HISTORY versions


@pytest.fixture
def both(short_library, tmp_path):
    """Tonearm and MPD on the short-track library, with a small `max_playlist_length`."""
    from conftest import _start_scanned, _stop_running
    started = []
    config = f'max_playlist_length "{MAXIMUM}"\n'
    try:
        yield {kind: _start_scanned(kind, tmp_path, started, extra_config=config, music_dir=short_library)
               for kind in ("tonearm", "mpd")}
    finally:
        _stop_running(started)


def quoted(uri: str) -> str:
    return f'"{uri}"'


def next_command(rng: random.Random, length: int, ids: list[int]) -> str:
    """A random edit for a queue of `length` entries with these ids (positions may be past the
    end now and then, so that refusals are compared too)."""
    def position(extra=0):
        return rng.randrange(length + extra + (1 if rng.random() < 0.05 else 0)) if length + extra else 0

    def a_range():
        start = position()
        return f"{start}:{rng.randint(start, length)}" if length else "0:1"

    def an_id():
        return rng.choice(ids) if ids and rng.random() < 0.95 else 9999

    def a_move_range():
        start = position()
        end = min(length, start + rng.randint(1, 4))
        return f"{start}:{end} {rng.randrange(max(1, length - (end - start) + 1))}"

    def uri():
        return quoted(rng.choice(URIS))

    def priority():
        return rng.choice((0, 1, 5, 255))

    # name: (weight, command)
    edits = {
        "add": (6, lambda: f"add {uri()}"),
        "add at": (3, lambda: f"add {uri()} {position(1)}"),
        "addid": (4, lambda: f"addid {uri()} {position(1)}" if rng.random() < 0.7 else f"addid {uri()}"),
        "add all": (1, lambda: 'add ""'),
        "move": (5, lambda: f"move {position()} {position()}"),
        "move range": (3, lambda: f"move {a_move_range()}"),
        "moveid": (4, lambda: f"moveid {an_id()} {position()}"),
        "delete": (3, lambda: f"delete {position()}"),
        "delete range": (2, lambda: f"delete {a_range()}"),
        "deleteid": (3, lambda: f"deleteid {an_id()}"),
        "swap": (3, lambda: f"swap {position()} {position()}"),
        "swapid": (3, lambda: f"swapid {an_id()} {an_id()}"),
        "prio": (3, lambda: f"prio {priority()} {a_range()}"),
        "prioid": (3, lambda: f"prioid {priority()} {an_id()}"),
        "shuffle range": (2, lambda: f"shuffle {a_range()}"),
        "shuffle": (1, lambda: "shuffle"),
        "random": (2, lambda: f"random {rng.randint(0, 1)}"),
        "clear": (1, lambda: "clear"),
    }
    name = rng.choices(list(edits), [weight for weight, _ in edits.values()])[0]
    return edits[name][1]()


def listing(c) -> list[str]:
    return brief(c.command("playlistinfo"))


def blocks(lines: list[str]) -> list[tuple[str, ...]]:
    """`brief` lines cut into one tuple per entry (each starts with `file:`)."""
    out: list[list[str]] = []
    for line in lines:
        if line.startswith("file: "):
            out.append([])
        if out and line != "OK":
            out[-1].append(line)
    return [tuple(block) for block in out]


def without_pos(block: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(line for line in block if not line.startswith("Pos: "))


def changed_positions(c, since: int) -> list[str]:
    return [line for line in c.command(f"plchangesposid {since}") if line.startswith("cpos: ")]


def shuffled_range(command: str, length: int) -> range:
    if command == "shuffle":
        return range(0, length)
    start, _, end = command.split()[1].partition(":")
    return range(int(start), min(length, int(end)) if end else length)


def idle_reply(watcher, changed: bool) -> list[str]:
    """What the client idling on `playlist` hears. MPD raises idle events from its event loop,
    after the command's answer: a change is waited for; without one, `noidle` after a moment."""
    if not changed and watcher.nothing_within(0.1):
        watcher.send("noidle\n")
    return watcher.read_response(timeout=10)


def realign(mpd, tonearm_ids: list[str]):
    """Puts MPD's entries into Tonearm's order by id (ids match: both number them alike)."""
    for position, song_id in enumerate(tonearm_ids):
        assert mpd.command(f"moveid {song_id} {position}") == ["OK"]


@pytest.mark.parametrize("seed", range(1, 7))
def test_random_edit_sequences_match_mpd(both, seed):
    rng = random.Random(seed)
    connections = {kind: server.connect() for kind, server in both.items()}
    watchers = {kind: server.connect() for kind, server in both.items()}
    try:
        history = {kind: [int(status(c)["playlist"])] for kind, c in connections.items()}
        for step in range(STEPS):
            before = listing(connections["tonearm"])
            ids = [int(line[4:]) for line in before if line.startswith("Id: ")]
            command = next_command(rng, len(blocks(before)), ids)
            where = f"seed {seed}, step {step}: {command}"
            for watcher in watchers.values():
                watcher.send("idle playlist\n")
            answers = {kind: c.command(command) for kind, c in connections.items()}
            assert answers["tonearm"] == answers["mpd"], where
            versions = {kind: int(status(c)["playlist"]) for kind, c in connections.items()}
            moved = {kind: versions[kind] - history[kind][-1] for kind in connections}
            assert moved["tonearm"] == moved["mpd"], where
            for kind, watcher in watchers.items():
                expected = ["changed: playlist", "OK"] if moved[kind] > 0 else ["OK"]
                assert idle_reply(watcher, moved[kind] > 0) == expected, f"{where} ({kind}: idle playlist)"
            after = {kind: listing(c) for kind, c in connections.items()}
            shuffled = command.startswith("shuffle") and answers["mpd"] == ["OK"]
            if shuffled:
                part = shuffled_range(command, len(blocks(after["mpd"])))
                tonearm, mpd = blocks(after["tonearm"]), blocks(after["mpd"])
                outside = [i for i in range(len(mpd)) if i not in part]
                assert [tonearm[i] for i in outside] == [mpd[i] for i in outside], where
                assert sorted(without_pos(tonearm[i]) for i in part) == sorted(
                    without_pos(mpd[i]) for i in part), where
                assert sorted(changed_positions(connections["tonearm"], history["tonearm"][-1])) == sorted(
                    changed_positions(connections["mpd"], history["mpd"][-1])), where
                realign(connections["mpd"], [line[4:] for line in after["tonearm"] if line.startswith("Id: ")])
                watchers["mpd"].send("idle playlist\n")  # what the realigning raised, out of the way
                idle_reply(watchers["mpd"], int(status(connections["mpd"])["playlist"]) != versions["mpd"])
                assert listing(connections["mpd"]) == after["tonearm"], where
                history = {kind: [int(status(c)["playlist"])] for kind, c in connections.items()}
                continue
            assert after["tonearm"] == after["mpd"], where
            for back in range(1, min(HISTORY, len(history["mpd"])) + 1):
                since = {kind: history[kind][-back] for kind in connections}
                assert changed_positions(connections["tonearm"], since["tonearm"]) == changed_positions(
                    connections["mpd"], since["mpd"]), f"{where} (plchangesposid, {back} back)"
                assert brief(connections["tonearm"].command(f"plchanges {since['tonearm']}")) == brief(
                    connections["mpd"].command(f"plchanges {since['mpd']}")), f"{where} (plchanges, {back} back)"
            for kind in connections:
                history[kind].append(versions[kind])
    finally:
        for c in [*connections.values(), *watchers.values()]:
            c.close()
