#!/usr/bin/env python3
"""Bounded soak (`make soak`): many concurrent clients against Tonearm, then against Debian's
MPD, on the same generated library, on loopback, for a fixed time.

Each server gets a generated library (Tests/Bench/library_gen.py: 1 s MP3s), a queue of all of
it playing on the null output with repeat on (so the current song changes every second), and
`max_connections` raised above the client count. Then CLIENTS asyncio clients (300) run for
SECONDS (60), each picking, after a random pause of up to 200 ms, one of:

  idle     `idle player playlist database`, until a change wakes it (a song ends every
           second) or 3 s pass and `noidle` ends it; its figure is the time until the answer
  status   `status`
  search   `search title WORD` (a case-insensitive substring over the library)
  list     `command_list_ok_begin` of `status`, `currentsong`, `playlistinfo 0:5`, `stats`

while another connection keeps a `rescan` running (a new one as soon as the last ends).

A protocol error is an ACK, a line that is not `Key: value` (or `list_OK` in the list), a
wrong number of `list_OK`s or an `idle` answer without a `changed:` line before its OK
(outside `noidle`). A dropped client is one whose connection closes, resets or stays silent for
30 s. Tonearm must have neither: the script exits 1 otherwise. It prints per server and command
kind the commands done and the median and p99 latency (send to final line), then the server's
VmRSS and VmHWM before and after, and the table for docs/benchmarks.md with MPD's figure
divided by Tonearm's (above 1: Tonearm is faster or smaller).
"""
import argparse
import asyncio
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from library_gen import generate  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

KINDS = ("idle", "status", "search", "list")
PAIR = re.compile(rb"^[A-Za-z_][A-Za-z0-9_\-]*: ")
SILENCE = 30.0  # seconds without an answer after which a client counts as dropped
LIST = [b"command_list_ok_begin", b"status", b"currentsong", b"playlistinfo 0:5", b"stats", b"command_list_end"]


def log(message: str):
    print(message, file=sys.stderr, flush=True)


class Dropped(Exception):
    """The connection closed, reset or went silent."""


class Tally:
    """What all clients of one run saw."""

    def __init__(self):
        self.latencies = {kind: [] for kind in KINDS}
        self.errors: list[str] = []
        self.dropped: list[str] = []


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    async def line(self) -> bytes:
        try:
            line = await asyncio.wait_for(self.reader.readline(), SILENCE)
        except (asyncio.TimeoutError, ConnectionError) as error:
            raise Dropped(repr(error)) from None
        if not line.endswith(b"\n"):
            raise Dropped("closed")
        return line[:-1]

    async def response(self) -> list[bytes]:
        lines = []
        while True:
            line = await self.line()
            lines.append(line)
            if line == b"OK" or line.startswith(b"ACK "):
                return lines

    async def send(self, *lines: bytes):
        self.writer.write(b"".join(line + b"\n" for line in lines))
        try:
            await self.writer.drain()
        except ConnectionError as error:
            raise Dropped(repr(error)) from None


def problem(kind: str, lines: list[bytes], woken: bool) -> str | None:
    """Why an answer is not what the protocol promises, or None."""
    *body, last = lines
    if last != b"OK":
        return f"{kind}: {last[:200]!r}"
    for line in body:
        if not (PAIR.match(line) or (kind == "list" and line == b"list_OK")):
            return f"{kind}: malformed line {line[:200]!r}"
    if kind == "list" and body.count(b"list_OK") != len(LIST) - 2:
        return f"list: {body.count(b'list_OK')} list_OK lines"
    if kind == "idle" and woken and not any(line.startswith(b"changed: ") for line in body):
        return "idle: woken without a changed: line"
    return None


async def one_client(number: int, port: int, deadline: float, words: list[str], tally: Tally):
    rng = random.Random(number)
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), SILENCE)
    except (OSError, asyncio.TimeoutError) as error:
        tally.dropped.append(f"client {number}: connect: {error!r}")
        return
    client = Client(reader, writer)
    kind = "the greeting"
    try:
        greeting = await client.line()
        if not greeting.startswith(b"OK MPD "):
            tally.errors.append(f"greeting {greeting[:100]!r}")
            return
        while time.monotonic() < deadline:
            await asyncio.sleep(rng.uniform(0, 0.2))
            kind = rng.choice(KINDS)
            woken = True
            start = time.perf_counter()
            if kind == "idle":
                # `noidle` after 3 s unless a change came first. A `noidle` that crosses the
                # answer on the wire is ignored by both servers (no idle to end, no answer).
                await client.send(b"idle player playlist database")
                fired = []
                timer = asyncio.get_running_loop().call_later(
                    3, lambda: (fired.append(True), client.writer.write(b"noidle\n")))
                lines = await client.response()
                timer.cancel()
                woken = not fired
            elif kind == "status":
                await client.send(b"status")
                lines = await client.response()
            elif kind == "search":
                await client.send(b'search title "' + rng.choice(words).encode() + b'"')
                lines = await client.response()
            else:
                await client.send(*LIST)
                lines = await client.response()
            elapsed = time.perf_counter() - start
            why = problem(kind, lines, woken)
            if why:
                tally.errors.append(f"client {number}: {why}")
            else:
                tally.latencies[kind].append(elapsed)
        await client.send(b"close")
    except Dropped as error:
        tally.dropped.append(f"client {number}: {error} during {kind}")
    finally:
        writer.close()


async def rescans(port: int, deadline: float, tally: Tally) -> int:
    """Keeps a rescan running until the deadline; returns how many were started."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    client = Client(reader, writer)
    await client.line()
    started = 0
    try:
        while time.monotonic() < deadline:
            await client.send(b"status")
            status = await client.response()
            if not any(line.startswith(b"updating_db: ") for line in status):
                await client.send(b"rescan")
                answer = await client.response()
                if answer[-1] != b"OK":
                    tally.errors.append(f"rescan: {answer[-1][:200]!r}")
                started += 1
            await asyncio.sleep(0.5)
    except Dropped as error:
        tally.dropped.append(f"rescan connection: {error}")
    finally:
        writer.close()
    return started


async def soak(port: int, clients: int, seconds: float, words: list[str]) -> tuple[Tally, int]:
    tally = Tally()
    deadline = time.monotonic() + seconds
    results = await asyncio.gather(rescans(port, deadline, tally),
                                   *(one_client(n, port, deadline, words, tally) for n in range(clients)))
    return tally, results[0]


def memory_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(rest.split()[0])
    return fields


def prepare(server, songs: int, timeout: float = 600):
    """Waits for the first scan, then fills the queue and plays it with repeat on."""
    from support.library import wait_for_scan
    with server.connect() as c:
        wait_for_scan(c, timeout=timeout)
        count = next(line for line in c.command("stats") if line.startswith("songs: "))
        if count != f"songs: {songs}":
            raise SystemExit(f"the server scanned {count}, expected {songs}")
        for line in ['add ""', "repeat 1", "play 0"]:
            answer = c.command(line)
            if answer[-1:] != ["OK"]:
                raise SystemExit(f"{line}: {answer}")


def run(kind: str, make, music: Path, songs: int, args, words: list[str]) -> dict:
    config = f'max_connections "{args.clients + 50}"\n'
    with tempfile.TemporaryDirectory(prefix=f"soak-{kind}-") as work:
        server = make(Path(work), music, config)
        server.start()
        try:
            prepare(server, songs)
            before = memory_kib(server.process.pid)
            log(f"{kind}: {args.clients} clients for {args.seconds:g} s …")
            tally, rescans_started = asyncio.run(soak(server.port, args.clients, args.seconds, words))
            if server.process.poll() is not None:
                tally.dropped.append(f"the server exited with {server.process.returncode}")
                after = {"VmRSS": 0, "VmHWM": 0}
            else:
                after = memory_kib(server.process.pid)
        finally:
            if server.process.poll() is None:
                server.stop()
    return {"tally": tally, "before": before, "after": after, "rescans": rescans_started}


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(kind: str, result: dict):
    tally = result["tally"]
    print(f"\n{kind}: {len(tally.errors)} protocol errors, {len(tally.dropped)} dropped clients, "
          f"{result['rescans']} rescans started")
    for message in (tally.errors + tally.dropped)[:20]:
        print("  ", message)
    for name in KINDS:
        values = tally.latencies[name]
        if values:
            print(f"  {name:7} {len(values):7} done  p50 {percentile(values, 0.5) * 1000:8.2f} ms  "
                  f"p99 {percentile(values, 0.99) * 1000:8.2f} ms")
    print(f"  memory before: {result['before']}  after: {result['after']}")


def table(mpd: dict, tonearm: dict):
    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}" if b else "–"

    print("\n| measure | MPD | Tonearm | MPD / Tonearm |\n|---|---|---|---|")
    for name in KINDS:
        m, t = mpd["tally"].latencies[name], tonearm["tally"].latencies[name]
        print(f"| {name} done | {len(m):,} | {len(t):,} | {ratio(len(m), len(t))} |")
        for label, fraction in (("p50", 0.5), ("p99", 0.99)):
            a, b = percentile(m, fraction) * 1000, percentile(t, fraction) * 1000
            print(f"| {name} {label} (ms) | {a:.2f} | {b:.2f} | {ratio(a, b)} |")
    for label, source in (("VmRSS at start", ("before", "VmRSS")), ("VmRSS at end", ("after", "VmRSS")),
                          ("VmHWM at end", ("after", "VmHWM"))):
        a, b = mpd[source[0]][source[1]] / 1024, tonearm[source[0]][source[1]] / 1024
        print(f"| {label} (MiB) | {a:.1f} | {b:.1f} | {ratio(a, b)} |")
    for label, key in (("protocol errors", "errors"), ("dropped clients", "dropped")):
        print(f"| {label} | {len(getattr(mpd['tally'], key))} | {len(getattr(tonearm['tally'], key))} | |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tonearm", default=None, help="the tonearm binary (a release build)")
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--songs", type=int, default=2000, help="size of the generated library")
    parser.add_argument("--library-base", default="/tmp")
    parser.add_argument("--only", choices=["tonearm", "mpd", "both"], default="both")
    args = parser.parse_args()

    music, the_plan = generate(args.songs, Path(args.library_base), log=log)
    words = sorted({word for track in the_plan.tracks for word in track.title.split()})[:50]
    tonearm = mpd = None
    if args.only != "mpd":
        tonearm = run("tonearm", lambda work, music, config: TonearmServer(
            work, binary=args.tonearm, music_dir=music, extra_config=config), music, args.songs, args, words)
        report("Tonearm", tonearm)
    if args.only != "tonearm":
        mpd = run("mpd", lambda work, music, config: MPDServer(work, music_dir=music, extra_config=config),
                  music, args.songs, args, words)
        report("MPD", mpd)
    if tonearm and mpd:
        table(mpd, tonearm)
    failed = tonearm and (tonearm["tally"].errors or tonearm["tally"].dropped)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
