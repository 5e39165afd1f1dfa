#!/usr/bin/env python3
"""The state file with a long queue, Tonearm and Debian's MPD side by side (issue 27; a line of
`make bench`).

Each server, one at a time, is started on the generated library of `library_gen.py` (cached)
with `max_playlist_length "200000"` and `state_file_interval "1"` (both servers then write the
state file about a second after a change), scans it, and queues all of it with `add ""`. Then:

- write: a probe connection sends `ping` back to back for `--window` seconds and keeps every
  round trip; a second connection sends `swap 0 1` a second into the window (MPD schedules a
  write on a change to the queue, not to `repeat`), so the state file is written while the
  probe runs. The figures are the probe's longest round trip
  and its 99th percentile in that window, next to the same figures of a window with no change
  (the "quiet" rows): a writer that holds up the clients shows as a long round trip. That the
  file was written in the window is checked (its modification time).
- read back at start: the server is stopped (SIGTERM: both write the state file as they exit)
  and started again on the same database and state file; the time from starting the process to
  the first `status` with the whole queue (`playlistlength` N), polled every 5 ms, median of
  `--restarts`. MPD's start is seen through the test harness's connect loop, which retries every
  50 ms while the port is closed, so its figure may be up to 50 ms late.

Ratios are Tonearm / MPD: below 1 Tonearm is faster. With --baseline-tonearm an older Tonearm
is measured too (two more columns: its figure and new / old).
"""
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import baseline  # noqa: E402
import support.servers as servers  # noqa: E402
from library_bench import Client, Failed, log, value, wait_for_songs  # noqa: E402
from library_gen import generate  # noqa: E402

CONFIG = 'max_playlist_length "200000"\nstate_file_interval "1"\n'


def make_server(kind: str, binaries: dict, work: Path, music: Path):
    if kind == "mpd":
        return servers.MPDServer(work, extra_config=CONFIG, music_dir=music, binary=binaries.get("mpd", "/usr/bin/mpd"))
    return servers.TonearmServer(work, binary=binaries[kind], extra_config=CONFIG, music_dir=music)


def probe(port: int, seconds: float, change: Client | None, edit: str) -> list[float]:
    """`ping` round trips for `seconds`; with `change`, `edit` is sent on it after a second."""
    client = Client(port, 60)
    trips: list[float] = []
    if change is not None:
        timer = threading.Timer(1.0, lambda: change.request(edit))
        timer.start()
    end = time.perf_counter() + seconds
    while (start := time.perf_counter()) < end:
        client.request("ping")
        trips.append(time.perf_counter() - start)
    if change is not None:
        timer.join()
    client.close()
    return trips


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.99 * (len(ordered) - 1))]


def restart_time(server, size: int) -> float:
    """Seconds from starting the process until `status` shows the whole queue."""
    server.stop(timeout=120)
    started = time.perf_counter()
    server.start(timeout=120)
    deadline = started + 120
    while time.perf_counter() < deadline:
        try:
            client = Client(server.port, 60)
        except OSError:
            time.sleep(0.005)
            continue
        try:
            while time.perf_counter() < deadline:
                if value(client.lines("status"), "playlistlength") == str(size):
                    return time.perf_counter() - started
                time.sleep(0.005)
        finally:
            client.close()
    raise Failed("the queue did not come back within 120 s")


def bench_server(kind: str, binaries: dict, music: Path, size: int, args) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"tonearm-state-bench-{kind}-"))
    server = make_server(kind, binaries, work, music)
    figures: dict = {}
    try:
        server.start(timeout=60)
        wait_for_songs(server, size, args.scan_timeout, scanning=True)
        change = Client(server.port, 120)
        change.request("clear")
        change.request('add ""')
        time.sleep(3)  # the add's own state write is over
        state = work / "state"
        for _ in range(args.rounds):
            quiet = probe(server.port, args.window, None, "")
            before = state.stat().st_mtime_ns if state.exists() else 0
            busy = probe(server.port, args.window, change, "swap 0 1")
            if not state.exists() or state.stat().st_mtime_ns == before:
                raise Failed(f"{kind}: the state file was not written during the window")
            for name, trips in (("quiet", quiet), ("write", busy)):
                figures.setdefault(f"longest ping, {name}", []).append(max(trips))
                figures.setdefault(f"p99 ping, {name}", []).append(p99(trips))
        figures["state file size"] = [state.stat().st_size / (1 << 20)]
        change.close()
        for _ in range(args.restarts):
            figures.setdefault("restart until the queue is back", []).append(restart_time(server, size))
    finally:
        try:
            server.stop(timeout=120)
        except Exception as error:  # noqa: BLE001 - stop() kills what does not stop
            log(f"  stop: {error}")
        shutil.rmtree(work, ignore_errors=True)
    return figures


ROWS = ["longest ping, quiet", "longest ping, write", "p99 ping, quiet", "p99 ping, write",
        "restart until the queue is back", "state file size"]


def main():
    parser = baseline.parser(__doc__)
    parser.add_argument("--size", type=int, default=100000, help="library and queue size")
    parser.add_argument("--rounds", type=int, default=5, help="quiet and write windows per server")
    parser.add_argument("--window", type=float, default=3, help="seconds of pings per window")
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--scan-timeout", type=float, default=900)
    parser.add_argument("--library-base", default="/tmp",
                        help="where generated libraries are cached (tonearm-bench-library-N inside)")
    args = parser.parse_args()
    old = baseline.binary(parser, args)
    binaries = {"tonearm": args.tonearm, baseline.OLD: old, "mpd": args.mpd}
    music, _ = generate(args.size, Path(args.library_base), log=log)
    results = {}
    for kind in baseline.with_old(["mpd", "tonearm"], old):
        log(f"{kind}: {args.size:,} songs queued …")
        results[kind] = bench_server(kind, binaries, music, args.size, args)
    has_old = baseline.OLD in results
    header = ["queued", "measure", "unit", "MPD", "Tonearm", "Tonearm / MPD (<1: Tonearm faster)"]
    if has_old:
        header += list(baseline.COLUMNS)
    rows = []
    for name in ROWS:
        unit, scale = ("MiB", 1) if name == "state file size" else (
            ("s", 1) if name.startswith("restart") else ("ms", 1000))

        def median(kind):
            return statistics.median(results[kind][name]) * scale if kind in results else None

        mpd, new = median("mpd"), median("tonearm")
        cells = [f"{args.size:,}", name, unit, f"{mpd:.3g}", f"{new:.3g}", f"{new / mpd:.2f}"]
        if has_old:
            cells += [f"{median(baseline.OLD):.3g}", baseline.ratio(new, median(baseline.OLD))]
        rows.append(cells)
    baseline.print_table(header, rows)


if __name__ == "__main__":
    main()
