#!/usr/bin/env python3
"""Radio benchmark, Tonearm and Debian's MPD side by side (a line of `make bench`).

A real Icecast station on 127.0.0.1 (Tests/support/radio.py: Debian's `icecast2`, fed by
`ffmpeg -re` with a 128 kbit/s MP3 at 44.1 kHz), played by one server at a time to a `null`
output (paced in real time), each server started afresh:

- tune_in: from sending `play` to the first `status` whose `elapsed` is above 0, polled every
  10 ms: the connection, FFmpeg's (or MPD's) probe of the stream and the first chunk heard.
  Median of `--runs` tunes (`stop` between them).
- cpu_per_minute: the server's CPU time (utime + stime from /proc/PID/stat) over `--seconds`
  of the station playing, scaled to a minute; the first seconds after tuning in are left out.

The last column is MPD's figure divided by Tonearm's: above 1 Tonearm tunes in sooner or uses
less CPU. With --baseline-tonearm an older Tonearm is measured too, between the two.
"""
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import baseline  # noqa: E402
from support.radio import Icecast  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def log(message):
    print(message, file=sys.stderr, flush=True)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def status(c) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in c.command("status") if ": " in line)


def tune_in(c) -> float:
    """Seconds from `play` to the first status with elapsed above 0."""
    start = time.monotonic()
    c.command("play")
    while float(status(c).get("elapsed", 0)) <= 0:
        if time.monotonic() - start > 30:
            raise RuntimeError("the station did not start in 30 s")
        time.sleep(0.01)
    return time.monotonic() - start


def bench(kind: str, binary: str, base: Path, url: str, runs: int, seconds: float) -> dict:
    workdir = base / kind
    shutil.rmtree(workdir, ignore_errors=True)
    server = (MPDServer if kind == "mpd" else TonearmServer)(workdir, binary=binary)
    server.start()
    try:
        with server.connect() as c:
            c.command(f'add "{url}"')
            tunes = []
            for _ in range(runs):
                tunes.append(tune_in(c))
                c.command("stop")
            tune = tune_in(c)
        # No client while the CPU is timed (and none idles past the connection timeout).
        time.sleep(3)
        before = cpu_seconds(server.process.pid)
        time.sleep(seconds)
        used = cpu_seconds(server.process.pid) - before
        with server.connect() as c:
            if status(c)["state"] != "play":
                raise RuntimeError(f"{kind} stopped playing the station")
        log(f"  {kind}: tune-in {', '.join(f'{t * 1000:.0f}' for t in tunes + [tune])} ms; "
            f"{used:.2f} s of CPU in {seconds:.0f} s")
        return {"tune_in": statistics.median(tunes), "cpu_per_minute": used * 60 / seconds}
    finally:
        server.stop()


def main():
    parser = baseline.parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="tunes per server (median)")
    parser.add_argument("--seconds", type=float, default=60, help="seconds of the station timed for CPU")
    parser.add_argument("--work", default="/tmp/tonearm-bench-radio")
    args = parser.parse_args()
    old_binary = baseline.binary(parser, args)
    base = Path(args.work)
    binaries = {"mpd": args.mpd, baseline.OLD: old_binary, "tonearm": args.tonearm}
    kinds = baseline.with_old(["mpd", "tonearm"], old_binary)
    with Icecast() as station:
        results = {}
        for kind in kinds:
            log(f"{kind}: tuning in to the station {args.runs} times, then {args.seconds:.0f} s of it …")
            results[kind] = bench(kind, binaries[kind], base, station.url(), args.runs, args.seconds)
    print("| radio (Icecast, MP3 128 kbit/s, null output) | MPD | Tonearm | MPD / Tonearm |")
    print("|---|---|---|---|")
    mpd, tonearm = results["mpd"], results["tonearm"]
    print(f"| tune-in: `play` → elapsed above 0 (median) | {mpd['tune_in'] * 1000:.0f} ms | "
          f"{tonearm['tune_in'] * 1000:.0f} ms | {mpd['tune_in'] / tonearm['tune_in']:.2f} |")
    print(f"| CPU per minute of the station | {mpd['cpu_per_minute']:.3f} s | {tonearm['cpu_per_minute']:.3f} s | "
          f"{mpd['cpu_per_minute'] / tonearm['cpu_per_minute']:.2f} |")
    if old_binary:
        old = results[baseline.OLD]
        print(f"\nOlder build: tune-in {old['tune_in'] * 1000:.0f} ms, CPU per minute {old['cpu_per_minute']:.3f} s")


if __name__ == "__main__":
    main()
