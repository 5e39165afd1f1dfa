#!/usr/bin/env python3
"""Queue-edit benchmark: the edits of a long queue, Tonearm and Debian's MPD side by side.

For each size N (tracks; the generated library of `library_gen.py`, cached), every server is
started on the same library with `max_playlist_length "200000"`, scans it, and then keeps running
while the edits are timed: the servers take turns within each round (the order rotates from
round to round), so that drift (another process building, the CPU's clock) falls on all of them
alike. Each figure is the median wall time over the rounds, from sending the command to the last
byte of its `OK`, on one connection that re-arms TCP_QUICKACK after each read (see
`library_bench.py`). Before each round the queue holds the N songs of `add ""`.

  ping                        no edit: the round trip every command pays, for reference
  add ""                      the whole library, into an empty queue (one per round)
  add "" in random mode       the same with random on, Tonearm's in album shuffle (which
                              places each album's songs together; MPD's random has no albums)
  addid                       one song appended (then removed, untimed)
  move 0 N/2, moveid ID N/2   one song from the front to the middle
  delete 0, deleteid ID       the front song (put back, untimed, at the end)
  swap 0 N/2                  two songs
  prio                        one song's priority (alternating 1 and 0)
  shuffle                     the whole queue
  plchanges, plchangesposid   the changes since the version before one `swap`
  1,000 moves                 a command list of 1,000 seeded `move A B` (a client sorting)

The dispersion column is the spread of the new build's rounds (p90 / median): above ~1.5 the
machine was busy. Memory is VmRSS after the scan and with the N-song queue. Ratios: new / MPD,
below 1 Tonearm is faster; with --baseline-tonearm also the old build and new / old.
"""
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import baseline  # noqa: E402
import support.servers as servers  # noqa: E402
from library_bench import Client, Failed, log, rss_mib, value, wait_for_songs  # noqa: E402
from library_gen import generate  # noqa: E402

CONFIG = 'max_playlist_length "200000"\n'
MOVES_IN_LIST = 1000


def timed(client: Client, command: str) -> float:
    start = time.perf_counter()
    client.request(command)
    return time.perf_counter() - start


def version(client: Client) -> int:
    return int(value(client.lines("status"), "playlist"))


def first_id(client: Client) -> str:
    return value(client.lines("playlistinfo 0"), "Id")


def front_uri(client: Client) -> str:
    return value(client.lines("playlistinfo 0"), "file")


def changes_after_swap(command: str):
    """`command` (plchanges or plchangesposid) for the version before one swap."""
    def run(client: Client, size: int) -> float:
        before = version(client)
        client.request(f"swap 1 {size // 3}")
        return timed(client, f"{command} {before}")
    return run


def add_id(client: Client, size: int) -> float:
    uri = front_uri(client)
    start = time.perf_counter()
    answer = client.lines(f'addid "{uri}"')
    elapsed = time.perf_counter() - start
    client.request(f"deleteid {value(answer, 'Id')}")
    return elapsed


def put_back_front(action: str):
    """`delete 0` or `deleteid` of the front song, which is added back (untimed) at the end."""
    def run(client: Client, size: int) -> float:
        uri = front_uri(client)
        command = "delete 0" if action == "delete" else f"deleteid {first_id(client)}"
        elapsed = timed(client, command)
        client.request(f'add "{uri}"')
        return elapsed
    return run


def move_list(seed: int):
    def run(client: Client, size: int) -> float:
        rng = random.Random(seed)
        moves = "".join(f"move {rng.randrange(size)} {rng.randrange(size)}\n" for _ in range(MOVES_IN_LIST))
        return timed(client, "command_list_begin\n" + moves + "command_list_end")
    return run


def add_whole_library(client: Client, size: int) -> float:
    client.request("clear")
    elapsed = timed(client, 'add ""')
    if int(value(client.lines("status"), "playlistlength")) != size:
        raise Failed("add did not queue the whole library")
    return elapsed


def add_whole_library_shuffled(client: Client, size: int) -> float:
    client.request("random 1")
    if client.kind != "mpd":
        client.request("shufflemode albums")
    try:
        return add_whole_library(client, size)
    finally:
        if client.kind != "mpd":
            client.request("shufflemode songs")
        client.request("random 0")


priority_flip = {"value": 0}


def prio(client: Client, size: int) -> float:
    priority_flip["value"] ^= 1
    return timed(client, f"prio {priority_flip['value']} {size // 2}")


def operations(round_seed: int):
    """(name, run(client, size) -> seconds) in the order they run within a round."""
    return [
        ("ping (no edit: what any command costs)", lambda c, n: timed(c, "ping")),
        ('add "" (the whole library)', add_whole_library),
        ('add "" in random mode (Tonearm: album shuffle)', add_whole_library_shuffled),
        ("addid", add_id),
        ("move 0 N/2", lambda c, n: timed(c, f"move 0 {n // 2}")),
        ("moveid ID N/2", lambda c, n: timed(c, f"moveid {first_id(c)} {n // 2}")),
        ("delete 0", put_back_front("delete")),
        ("deleteid", put_back_front("deleteid")),
        ("swap 0 N/2", lambda c, n: timed(c, f"swap 0 {n // 2}")),
        ("prio P N/2", prio),
        ("shuffle", lambda c, n: timed(c, "shuffle")),
        ("plchanges after one swap", changes_after_swap("plchanges")),
        ("plchangesposid after one swap", changes_after_swap("plchangesposid")),
        (f"command list of {MOVES_IN_LIST:,} moves", move_list(round_seed)),
    ]


def start_servers(running: dict, kinds, binaries, music, size, work_base: Path, scan_timeout: float):
    """Starts every server of `kinds` into `running` (so that a failure still stops those
    started) and waits for their scans."""
    for kind in kinds:
        work = work_base / kind
        if kind == "mpd":
            server = servers.MPDServer(work, extra_config=CONFIG, music_dir=music)
        else:
            server = servers.TonearmServer(work, binary=binaries[kind], extra_config=CONFIG, music_dir=music)
        server.start(timeout=60)
        running[kind] = server
    for kind, server in running.items():
        wait_for_songs(server, size, scan_timeout, scanning=True)
        log(f"  {kind}: {size:,} songs in the database")


def bench_size(size, kinds, binaries, args) -> dict:
    """name -> kind -> list of seconds (or MiB for the memory rows)."""
    music, _ = generate(size, Path(args.library_base), log=log)
    work_base = Path(tempfile.mkdtemp(prefix=f"tonearm-queue-bench-{size}-"))
    results: dict = {}
    running = {}
    try:
        start_servers(running, kinds, binaries, music, size, work_base, args.scan_timeout)
        clients = {kind: Client(server.port, 120) for kind, server in running.items()}
        for kind, client in clients.items():
            client.kind = kind
        for kind, client in clients.items():
            client.request("clear")
            results.setdefault("resident memory, empty queue (MiB)", {})[kind] = [rss_mib(running[kind])]
            client.request('add ""')
            results.setdefault(f"resident memory, {size:,} queued (MiB)", {})[kind] = [rss_mib(running[kind])]
        for round_number in range(args.rounds):
            order = kinds[round_number % len(kinds):] + kinds[:round_number % len(kinds)]
            for name, run in operations(round_number):
                for kind in order:
                    results.setdefault(name, {}).setdefault(kind, []).append(run(clients[kind], size))
        for client in clients.values():
            client.close()
    finally:
        for server in running.values():
            try:
                server.stop(timeout=60)
            except Exception as error:  # noqa: BLE001 - stop() kills what does not stop
                log(f"  stop: {error}")
        shutil.rmtree(work_base, ignore_errors=True)
    return results


def row(size, name, figures, has_old):
    memory = name.startswith("resident memory")
    scale = 1 if memory else 1000

    def median(kind):
        return statistics.median(figures[kind]) * scale if kind in figures else None

    def show(number):
        return "–" if number is None else (f"{number:.1f}" if memory or number >= 10 else f"{number:.3f}")

    mpd, new = median("mpd"), median("tonearm")
    ratio = f"{new / mpd:.2f}" if mpd and new else "–"
    spread = "–"
    if not memory and "tonearm" in figures:
        ordered = sorted(figures["tonearm"])
        spread = f"{ordered[int(0.9 * (len(ordered) - 1))] / statistics.median(ordered):.2f}"
    cells = [f"{size:,}", name, "MiB" if memory else "ms", show(mpd), show(new), ratio, spread]
    if has_old:
        old = median(baseline.OLD)
        cells += [show(old), baseline.ratio(new, old)]
    return tuple(cells)


HEADER = ("queued", "operation", "unit", "MPD", "Tonearm", "Tonearm / MPD (<1: Tonearm faster)",
          "Tonearm p90 / median")


def main():
    parser = baseline.library_parser(__doc__, "queue (and library) sizes, comma-separated", scan_timeout=900,
                                     scan_help="seconds for the servers, scanning at once, to finish their first scans")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds of every operation")
    args = parser.parse_args()
    old_binary = baseline.binary(parser, args)
    baseline.current(parser, args)
    kinds = baseline.with_old(["mpd", "tonearm"], old_binary)
    binaries = {"tonearm": args.tonearm, baseline.OLD: old_binary}
    rows = []
    for size in [int(s.replace("_", "")) for s in args.sizes.split(",") if s]:
        log(f"{size:,} queued songs: {', '.join(kinds)}")
        results = bench_size(size, kinds, binaries, args)
        done = [row(size, name, figures, old_binary is not None) for name, figures in results.items()]
        for cells in done:  # a later size that fails leaves these in the log
            log("  " + " | ".join(cells))
        rows += done
    baseline.print_table(HEADER + (baseline.COLUMNS if old_binary else ()), rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
