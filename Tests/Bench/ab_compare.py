#!/usr/bin/env python3
"""Two Tonearm builds side by side at the same moment: the old one and the new one run at once,
and every measurement alternates between them, so that drift of the machine (page cache, CPU
frequency, another job) falls on both alike.

`make bench BASELINE=…` runs MPD, the old build and the new one one after another; a sub-ms
query can then differ by 30 % between two runs of the same binary, and the server measured last
always pays for the drift. This script answers the narrower question "did the new build get
slower?":

  queries   both servers scan the same library (`library_gen.py`, cached), wait --settle seconds
            for their post-scan work, then run `library_bench.py`'s queries in --rounds rounds;
            each round runs every query --per-round times on each server, the order of the two
            servers swapped from round to round. Median per query and server.
  startup   then each server is stopped and started again on its database, in turn, --restarts
            times: from launch until `stats` answers with every song.
  playback  both servers play the same minute of FLAC to a `null` output at the same time
            (`playback_bench.py`'s music); CPU seconds of each process, --cpu-runs times.

The last column is new / old: below 1 the new build is faster.
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import library_bench as lb  # noqa: E402
import playback_bench as pb  # noqa: E402
import support.servers as servers  # noqa: E402
from library_gen import generate  # noqa: E402

NULL_OUTPUT = 'audio_output {\n type "null"\n name "null"\n}\n'


def compare_queries(binaries: dict, size: int, args) -> list[tuple]:
    music, plan = generate(size, Path(args.library_base), log=lb.log)
    running = {}
    try:
        for kind, binary in binaries.items():
            server = servers.TonearmServer(Path(tempfile.mkdtemp(prefix=f"tonearm-ab-{kind}-")), binary=binary,
                                           music_dir=music)
            server.start(timeout=60)
            running[kind] = server
            lb.wait_for_songs(server, size, args.scan_timeout, scanning=True)
            lb.log(f"{size:,} tracks: {kind} scanned")
        time.sleep(args.settle)
        clients = {kind: lb.Client(server.port, 60) for kind, server in running.items()}
        times: dict[tuple[str, str], list[float]] = {}
        queries = lb.queries(plan)
        for name, command, check in queries:
            for kind, client in clients.items():
                got, expected = check(client.lines(command))
                if got != expected:
                    raise lb.Failed(f"{kind}: `{command}`: {got:,} results, expected {expected:,}")
        for round_number in range(args.rounds):
            order = list(clients) if round_number % 2 == 0 else list(reversed(clients))
            for name, command, _ in queries:
                for kind in order:
                    for _ in range(args.per_round):
                        start = time.perf_counter()
                        clients[kind].request(command)
                        times.setdefault((name, kind), []).append(time.perf_counter() - start)
        for client in clients.values():
            client.close()
        rows = [(f"{size:,}", name, "ms, median", statistics.median(times[(name, "old")]) * 1000,
                 statistics.median(times[(name, "new")]) * 1000) for name, _, _ in queries]
        # Start-up on the existing database: each server stopped and started in turn.
        startup: dict[str, list[float]] = {kind: [] for kind in running}
        for restart in range(args.restarts):
            for kind in (list(running) if restart % 2 == 0 else list(reversed(running))):
                lb.stop(running[kind])
                start = time.monotonic()
                running[kind].start(timeout=60)
                startup[kind].append(lb.wait_for_songs(running[kind], size, 60, scanning=False) - start)
        rows.append((f"{size:,}", "startup on the existing database", "ms, median",
                     statistics.median(startup["old"]) * 1000, statistics.median(startup["new"]) * 1000))
        return rows
    finally:
        for server in running.values():
            lb.stop(server)


def compare_playback(binaries: dict, args) -> list[tuple]:
    base = Path(args.work)
    base.mkdir(parents=True, exist_ok=True)
    music = pb.make_music(base, 60)
    used = {kind: [] for kind in binaries}
    for run in range(args.cpu_runs):
        running = {}
        try:
            for kind, binary in binaries.items():
                running[kind] = pb.start("tonearm", binary, base / f"ab-{kind}-{run}", music, NULL_OUTPUT)
                running[kind][1].command('add "minute.flac"')
            before = {kind: pb.thread_cpu(server.process.pid) for kind, (server, _) in running.items()}
            for _, client in running.values():
                client.command("play")
            # Polled rather than waited for with `idle`, and both each time (a list, not a
            # generator that `any` cuts short): a connection silent while the other server's
            # song ends would meet `connection_timeout` (60 s).
            while any([client.command("status")["state"] != "stop" for _, client in running.values()]):
                time.sleep(1)
            for kind, (server, _) in running.items():
                used[kind].append(pb.cpu_between(before[kind], pb.thread_cpu(server.process.pid)))
            lb.log(f"playback {run + 1}/{args.cpu_runs}: old {used['old'][-1]:.3f} s, new {used['new'][-1]:.3f} s")
        finally:
            for server, client in running.values():
                client.close()
                server.stop()
    return [("", "CPU per minute of FLAC to a null output, both playing at once", "s, median",
             statistics.median(used["old"]), statistics.median(used["new"]))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tonearm", default=str(servers.REPO / ".build/release/tonearm"), help="the new build")
    parser.add_argument("--baseline-tonearm", required=True, help="the old build")
    parser.add_argument("--sizes", default="10000,100000", help="library sizes in tracks, comma-separated")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--per-round", type=int, default=5)
    parser.add_argument("--settle", type=float, default=10,
                        help="seconds to wait after both scans (checkpoints, memory given back)")
    parser.add_argument("--restarts", type=int, default=10, help="start-ups of each server, alternating")
    parser.add_argument("--cpu-runs", type=int, default=3)
    parser.add_argument("--scan-timeout", type=float, default=300)
    parser.add_argument("--library-base", default="/tmp")
    parser.add_argument("--work", default="/tmp/tonearm-ab-playback")
    args = parser.parse_args()
    binaries = {"old": args.baseline_tonearm, "new": args.tonearm}
    rows = []
    for size in (int(s.replace("_", "")) for s in args.sizes.split(",") if s):
        part = compare_queries(binaries, size, args)
        print_rows(part)
        rows += part
    if args.cpu_runs > 0:
        rows += compare_playback(binaries, args)
    print("| tracks | measure | unit | old | new | new / old (<1: new faster) |")
    print("|---|---|---|---|---|---|")
    for tracks, name, unit, old, new in rows:
        print(f"| {tracks} | {name} | {unit} | {old:.3f} | {new:.3f} | {new / old:.2f} |")
    return 0


def print_rows(rows):
    """The table so far, on stderr, so that a later failure does not lose it."""
    for tracks, name, unit, old, new in rows:
        lb.log(f"  {tracks} {name}: old {old:.3f}, new {new:.3f} {unit}, new / old {new / old:.2f}")


if __name__ == "__main__":
    sys.exit(main())
