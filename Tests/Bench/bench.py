#!/usr/bin/env python3
"""Side-by-side benchmark of Tonearm and Debian's MPD on loopback (`make bench`).

Both servers get the same configuration shape (loopback, null output, same empty music folder)
and the same workloads from this process. Each workload runs several times and the median
counts; the table gives each server's figure and MPD's time divided by Tonearm's (above 1 means
Tonearm is faster). Resident memory is read from /proc after the runs. With --baseline-tonearm an
older Tonearm runs too (between MPD and the current one), and two columns more give its figure
and the new build's time (or memory) divided by the old one's: below 1 the new is faster.

Workloads of the foundation (connection level):
  ping_roundtrips          one connection, N sequential `ping` round trips
  status_roundtrips        the same with `status` (a song paused: every line MPD prints)
  currentsong_roundtrips   the same with `currentsong` (the paused song's block)
  playlistinfo_roundtrips  the same with `playlistinfo` of the 10-song queue
  connect_greet            N connections: connect, read the greeting, `close`
  command_list             one `command_list_ok_begin` of N `ping`s, answered as one response
  concurrent_ping          C connections at once, each doing M `ping` round trips

Every server is started first and keeps running; each run measures every workload on every
server in turn, the order rotating from run to run, so that a busy machine weighs on each alike.
The servers share a music folder of 10 songs (the first ten of the generated library of
`library_gen.py`, cached under --library-base); the queue holds them, the fourth one paused.
"""
import argparse
import contextlib
import os
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import baseline  # noqa: E402
from library_gen import generate  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402


def connect(port):
    # A server that stops answering fails the run instead of hanging it.
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    f = s.makefile("rb")
    greeting = f.readline()
    assert greeting.startswith(b"OK MPD "), greeting
    return s, f


def ping_roundtrips(port, n):
    s, f = connect(port)
    start = time.perf_counter()
    for _ in range(n):
        s.sendall(b"ping\n")
        if f.readline() != b"OK\n":
            raise RuntimeError("bad ping answer")
    elapsed = time.perf_counter() - start
    s.close()
    return elapsed


def command_roundtrips(port, n, command):
    """N sequential round trips of `command`, each read up to its final `OK`."""
    s, _ = connect(port)
    request, answer = command + b"\n", bytearray()
    start = time.perf_counter()
    for _ in range(n):
        s.sendall(request)
        while not answer.endswith(b"OK\n"):
            chunk = s.recv(65536)
            if not chunk or chunk.startswith(b"ACK"):
                raise RuntimeError(f"bad {command!r} answer: {chunk!r}")
            answer += chunk
        answer.clear()
    elapsed = time.perf_counter() - start
    s.close()
    return elapsed


def prepare_queue(port, songs):
    """Waits for the scan of the `songs` songs, then queues them all and pauses the fourth."""
    deadline = time.monotonic() + 60
    s, f = connect(port)

    def request(command):
        s.sendall(command + b"\n")
        lines = []
        while (line := f.readline()) != b"OK\n":
            if not line or line.startswith(b"ACK"):
                raise RuntimeError(f"{command!r}: {line!r}")
            lines.append(line)
        return lines

    while not (b"updating_db" not in b"".join(request(b"status"))
               and f"songs: {songs}\n".encode() in request(b"stats")):
        if time.monotonic() > deadline:
            raise RuntimeError("the scan did not finish")
        time.sleep(0.1)
    for command in (b"clear", b'add ""', b"play 3", b"pause 1"):
        request(command)
    s.close()


def connect_greet(port, n):
    start = time.perf_counter()
    for _ in range(n):
        s, f = connect(port)
        s.sendall(b"close\n")
        f.read()
        s.close()
    return time.perf_counter() - start


def command_list(port, n):
    s, f = connect(port)
    request = b"command_list_ok_begin\n" + b"ping\n" * n + b"command_list_end\n"
    start = time.perf_counter()
    # Sent from a thread: the answers arrive while the request is still going out, and a
    # client that only writes would fill both socket buffers and stall.
    sender = threading.Thread(target=s.sendall, args=(request,))
    sender.start()
    for _ in range(n):
        if f.readline() != b"list_OK\n":
            raise RuntimeError("bad list answer")
    if f.readline() != b"OK\n":
        raise RuntimeError("bad list end")
    sender.join()
    elapsed = time.perf_counter() - start
    s.close()
    return elapsed


def concurrent_ping(port, clients, each):
    errors = []
    barrier = threading.Barrier(clients + 1)
    # Connected one after another, each greeted before the next connects: 50 connections at
    # once overflow MPD's listen backlog of 5, and a handshake the kernel dropped from the full
    # accept queue left a client waiting for its greeting for good (seen once in 2026-11-26's
    # interleaved runs). The round trips after the barrier are what is timed.
    connections = [connect(port) for _ in range(clients)]

    def worker(s, f):
        try:
            barrier.wait()
            for _ in range(each):
                s.sendall(b"ping\n")
                if f.readline() != b"OK\n":
                    raise RuntimeError("bad ping answer")
            s.close()
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=connection) for connection in connections]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(f"{len(errors)} clients failed: {errors[0]}")
    return time.perf_counter() - start


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


QUEUED_SONGS = 10

WORKLOADS = [
    ("ping_roundtrips", "round trips/s", lambda port, scale: ping_roundtrips(port, 20000 * scale), 20000),
    ("status_roundtrips", "round trips/s",
     lambda port, scale: command_roundtrips(port, 10000 * scale, b"status"), 10000),
    ("currentsong_roundtrips", "round trips/s",
     lambda port, scale: command_roundtrips(port, 10000 * scale, b"currentsong"), 10000),
    (f"playlistinfo_roundtrips ({QUEUED_SONGS} songs)", "round trips/s",
     lambda port, scale: command_roundtrips(port, 10000 * scale, b"playlistinfo"), 10000),
    ("connect_greet", "connections/s", lambda port, scale: connect_greet(port, 2000 * scale), 2000),
    ("command_list", "commands/s", lambda port, scale: command_list(port, 20000 * scale), 20000),
    ("concurrent_ping", "round trips/s", lambda port, scale: concurrent_ping(port, 50, 400 * scale), 50 * 400),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tonearm", required=True, help="the tonearm binary (a release build)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--library-base", default="/tmp",
                        help="where the generated library whose first songs are queued is cached")
    baseline.add_option(parser)
    args = parser.parse_args()
    old_binary = baseline.binary(parser, args)

    library, _ = generate(1000, Path(args.library_base))
    with tempfile.TemporaryDirectory(prefix="tonearm-bench-") as work, contextlib.ExitStack() as stack:
        work = Path(work)
        music = work / "music"
        music.mkdir()
        for index, song in enumerate(sorted(library.glob("*/*/*.mp3"))[:QUEUED_SONGS]):
            shutil.copy(song, music / f"{index:02d}.mp3")
        results = {}

        def tonearm(name, binary):
            return name, lambda: TonearmServer(work / name, binary=binary, music_dir=music,
                                               extra_config='max_connections "200"\n')
        servers = []
        for name, make in (("mpd", lambda: MPDServer(work / "mpd", music_dir=music, extra_config='max_connections "200"\n')),
                           *([tonearm(baseline.OLD, old_binary)] if old_binary else []),
                           tonearm("tonearm", args.tonearm)):
            (work / name).mkdir()
            server = stack.enter_context(make())
            prepare_queue(server.port, QUEUED_SONGS)
            ping_roundtrips(server.port, 2000)  # warm up
            servers.append((name, server))
        times = {}
        for run in range(args.runs):
            turn = run % len(servers)
            for workload, _, measure, _ in WORKLOADS:
                for name, server in servers[turn:] + servers[:turn]:
                    times.setdefault((name, workload), []).append(measure(server.port, args.scale))
        for name, server in servers:
            for workload, _, _, _ in WORKLOADS:
                results[(name, workload)] = statistics.median(times[(name, workload)])
            results[(name, "rss")] = rss_kib(server.process.pid)
        print(f"load average after the runs: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")

    def versus_old(workload, show):
        """The old Tonearm's cells: its figure, as `show` gives it, and new / old."""
        if not old_binary:
            return ""
        old, new = results[(baseline.OLD, workload)], results[("tonearm", workload)]
        return f" {show(old)} | {baseline.ratio(new, old)} |"

    print(f"| workload | unit | MPD | Tonearm | MPD time / Tonearm time |"
          + ("".join(f" {c} |" for c in baseline.COLUMNS) if old_binary else ""))
    print(f"|---|---|---|---|---|" + ("---|---|" if old_binary else ""))
    for workload, unit, _, count in WORKLOADS:
        mpd, tonearm = results[("mpd", workload)], results[("tonearm", workload)]
        total = count * args.scale
        print(f"| {workload} | {unit} | {total / mpd:,.0f} | {total / tonearm:,.0f} | {mpd / tonearm:.2f} |"
              + versus_old(workload, lambda seconds: f"{total / seconds:,.0f}"))
    mpd, tonearm = results[("mpd", "rss")], results[("tonearm", "rss")]
    print(f"| resident memory after the runs | MiB | {mpd / 1024:.1f} | {tonearm / 1024:.1f} | {mpd / tonearm:.2f} |"
          + versus_old("rss", lambda kib: f"{kib / 1024:.1f}"))


if __name__ == "__main__":
    main()
