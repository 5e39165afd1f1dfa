#!/usr/bin/env python3
"""Library benchmark: Tonearm and Debian's MPD side by side on the SAME generated library.

For each size (tracks), the library (see `library_gen.py`: copies of one short MP3, each with
its own ID3v2.4 tag, `AlbumArtist/Album/NN - Title.mp3`; with --format flac, copies of one
short FLAC stream, each with its own Vorbis comments) is generated once and cached. Then each
server, in turn, on loopback:

  full scan        start with no database file (both scan on their first start); time from
                   launch until `status` has no `updating_db` AND `stats` reports every song
  queries          each repeated --repeat times on one connection after one untimed run whose
                   answer is checked against the generator: median and p90 wall time, from
                   sending the command to the last byte of `OK`. The client re-arms
                   TCP_QUICKACK after each read: with delayed ACKs, an answer of more than one
                   segment stalls ~40 ms on MPD's Nagle, hiding the servers' own time
                   (--delayed-ack measures it that way)
  startup          stop, start again on the existing database: launch until `stats` answers
                   with every song (median of --restarts)
  memory           VmRSS from /proc after the scan, after the queries, after the restart
  database         size of the database file(s)
  output-bound     the bytes one server answered to the broad `search` (Tonearm's; MPD's with
  limit            --only mpd), sent prebuilt in one write by a minimal loopback server in its own
                   process (`prebuilt_server.py`), timed with the same client and --repeat: the
                   time the client needs only to read that answer. Tonearm / limit beside it
  rescan           once every server has been through the steps above, all are started again
                   on their databases and take turns: `rescan` of the unchanged library, timed
                   from sending it until `status` has no `updating_db` (MPD has saved its
                   database by then); median of --rescans rounds. Interleaved, so that a load
                   arriving meanwhile falls on every server alike

The ratio column is MPD / Tonearm: above 1 Tonearm is faster (or smaller). A Tonearm step that
fails (ACK, wrong answer, crash, scan not done within --scan-timeout) is reported and the run
goes on. With --baseline-tonearm an older Tonearm runs too, between MPD and the current one, on
the same library; two columns more give its figure and new / old: below 1 the new build is
faster (or smaller).
"""
import argparse
import math
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import baseline  # noqa: E402
import prebuilt_server  # noqa: E402
import support.servers as servers  # noqa: E402
from library_gen import NARROW_SEARCH, SEARCH_SUBSTRING, generate  # noqa: E402


class _FineTime:
    """servers.py polls for a listening server with 20–50 ms sleeps; startup times are measured
    here in milliseconds, so its module gets 2 ms naps instead."""
    monotonic = staticmethod(time.monotonic)

    @staticmethod
    def sleep(seconds):
        time.sleep(min(seconds, 0.002))


servers.time = _FineTime


class Failed(Exception):
    pass


def log(message):
    print(message, file=sys.stderr, flush=True)


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Client:
    """One raw connection; `request` returns the whole answer and raises Failed on ACK."""
    quickack = True
    #: Which server this connection talks to, for benchmarks that send server-specific commands.
    kind = "tonearm"

    def __init__(self, port: int, timeout: float):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        greeting = b""
        while not greeting.endswith(b"\n"):
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Failed("closed before the greeting")
            greeting += chunk

    def request(self, command: str) -> bytes:
        self.sock.sendall(command.encode() + b"\n")
        answer = bytearray()
        while True:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise Failed(f"connection closed during `{command}`")
            answer += chunk
            if self.quickack:  # see `--delayed-ack`
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            if answer.endswith(b"\n"):
                last = answer[answer.rfind(b"\n", 0, len(answer) - 1) + 1:]
                if last == b"OK\n":
                    return bytes(answer)
                if last.startswith(b"ACK "):
                    raise Failed(f"`{command}`: {last.decode(errors='replace').strip()}")

    def lines(self, command: str) -> list[str]:
        return self.request(command).decode("utf-8", "replace").splitlines()

    def close(self):
        self.sock.close()


def value(lines, key):
    return next((line.split(": ", 1)[1] for line in lines if line.startswith(key + ": ")), None)


def rss_mib(server) -> float:
    if server.process.poll() is not None:
        raise Failed(f"the server exited with {server.process.returncode}")
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise Failed("no VmRSS")


def wait_for_songs(server, expected: int, timeout: float, scanning: bool) -> float:
    """Seconds from now until `stats` reports `expected` songs (and, with `scanning`, `status` has
    no `updating_db`); raises Failed on timeout or exit."""
    deadline = time.monotonic() + timeout
    client, last = None, "no answer"
    try:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise Failed(f"exited with {server.process.returncode}: {server.log_text()[-500:]}")
            try:
                client = client or Client(server.port, 10)
                # `stats` only once the update is over: MPD recounts its whole database for it
                # (under the database lock) whenever the database changed, which would slow the scan
                if scanning and value(client.lines("status"), "updating_db") is not None:
                    last = "updating_db"
                else:
                    songs = value(client.lines("stats"), "songs")
                    last = f"songs: {songs}"
                    if songs == str(expected):
                        return time.monotonic()
            except (OSError, Failed) as error:
                last = str(error)
                client = None
            time.sleep(0.02 if scanning else 0.002)
        raise Failed(f"not done within {timeout:.0f} s ({last})")
    finally:
        if client:
            client.close()


def queries(plan):
    """(name, command, check) with check(answer lines) -> (got, expected)."""
    artist = plan.query_artist
    titles = plan.count(lambda t: SEARCH_SUBSTRING in t.title.lower())
    narrow = plan.count(lambda t: NARROW_SEARCH in t.title.lower())
    by_artist = plan.count(lambda t: t.artist == artist)
    albums = len({(t.albumartist, t.album) for t in plan.tracks})
    artists = len({t.artist for t in plan.tracks})
    # An album artist as `query_artist` is an artist: the album view of most clients asks for
    # their albums, then for one album's songs.
    per_albumartist: dict[str, int] = {}
    for t in plan.tracks:
        per_albumartist[t.albumartist] = per_albumartist.get(t.albumartist, 0) + 1
    ranked = sorted(per_albumartist, key=lambda name: (per_albumartist[name], name))
    albumartist = ranked[int(len(ranked) * 0.75)]
    by_albumartist = per_albumartist[albumartist]
    their_albums = len({t.album for t in plan.tracks if t.albumartist == albumartist})
    # MPDroid's first track of each album on an artist's screen (`getFirstTrack`); the files'
    # `1/12` is track 1 on both servers, once per disc.
    their_album = min(t.album for t in plan.tracks if t.albumartist == albumartist)
    first_tracks = plan.count(lambda t: t.albumartist == albumartist and t.album == their_album
                              and t.track.split("/")[0] == "1")

    def lines_with(prefix, expected):
        return lambda lines: (sum(1 for line in lines if line.startswith(prefix)), expected)

    return [
        (f"search title {quote(SEARCH_SUBSTRING)} ({titles:,} songs)", f"search title {quote(SEARCH_SUBSTRING)}",
         lines_with("file: ", titles)),
        (f"search title {quote(NARROW_SEARCH)} ({narrow:,} songs)", f"search title {quote(NARROW_SEARCH)}",
         lines_with("file: ", narrow)),
        (f"find artist (exact, {by_artist:,} songs)", f"find artist {quote(artist)}", lines_with("file: ", by_artist)),
        (f"list album group albumartist ({albums:,})", "list album group albumartist", lines_with("Album: ", albums)),
        (f"list album albumartist (one album artist, {their_albums:,} albums)", f"list album albumartist {quote(albumartist)}",
         lines_with("Album: ", their_albums)),
        (f"find albumartist (exact, {by_albumartist:,} songs)", f"find albumartist {quote(albumartist)}",
         lines_with("file: ", by_albumartist)),
        (f"find albumartist album track 1 (one album's first track, {first_tracks:,} songs)",
         f"find albumartist {quote(albumartist)} album {quote(their_album)} track \"1\"",
         lines_with("file: ", first_tracks)),
        ("count artist (one artist)", f"count artist {quote(artist)}",
         lambda lines: (int(value(lines, "songs") or -1), by_artist)),
        (f"count group artist ({artists:,} artists)", "count group artist", lines_with("Artist: ", artists)),
    ]


#: The key under which `run_queries` keeps the answer to the first query (the broad `search`),
#: for the output-bound limit; not a row of the table.
ANSWER = "answer to the broad search"
#: The row of the output-bound limit, printed after the broad `search`.
LIMIT = "output-bound limit (prebuilt bytes)"


def run_queries(server, plan, repeat: int, results: dict, errors: list):
    client = None
    for index, (name, command, check) in enumerate(queries(plan)):
        try:
            client = client or Client(server.port, 60)
            answer = client.request(command)
            got, expected = check(answer.decode("utf-8", "replace").splitlines())
            if got != expected:
                raise Failed(f"`{command}`: {got:,} results, expected {expected:,}")
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                client.request(command)
                times.append(time.perf_counter() - start)
            results[name] = ("query", times)
            if index == 0:
                results[ANSWER] = ("answer", (command, answer))
        except (Failed, OSError, ValueError) as error:
            errors.append(f"{name}: {error}")
            results[name] = ("error", None)
            if client:
                client.close()  # it may be closed or mid-answer: the next query starts afresh
            client = None
    if client:
        client.close()


def stop(server):
    try:
        server.stop(timeout=60)
    except Exception as error:  # noqa: BLE001 - a server that will not stop is killed by stop()
        log(f"  stop: {error}")


def timed_rescan(server, size: int, timeout: float) -> float:
    """Seconds from sending `rescan` until the job is over, with every song still there."""
    client = Client(server.port, 60)
    try:
        start = time.monotonic()
        if not client.lines("rescan")[0].startswith("updating_db: "):
            raise Failed("rescan was not queued")
        while value(client.lines("status"), "updating_db") is not None:
            if time.monotonic() - start > timeout:
                raise Failed(f"rescan not done within {timeout:.0f} s")
            time.sleep(0.005)
        elapsed = time.monotonic() - start
        songs = value(client.lines("stats"), "songs")
        if songs != str(size):
            raise Failed(f"{songs} songs after the rescan, expected {size:,}")
        return elapsed
    finally:
        client.close()


def bench_rescans(started: dict, size: int, args) -> dict:
    """`rescan` of the unchanged library on each server in `started` (kind -> a stopped server
    with its database), the servers taking turns: kind -> ("rescan", times) or ("error", None)."""
    results, running = {}, {}
    try:
        for kind, server in started.items():
            try:
                server.start(timeout=60)
                wait_for_songs(server, size, 60, scanning=False)
                running[kind] = server
            except (Failed, OSError, RuntimeError) as error:
                log(f"  {kind}: rescan: {error}")
                results[kind] = ("error", None)
        times = {kind: [] for kind in running}
        for turn in range(args.rescans):
            for kind, server in running.items():
                if kind in results:
                    continue
                try:
                    times[kind].append(timed_rescan(server, size, args.scan_timeout))
                    log(f"  {kind}: rescan {turn + 1}: {times[kind][-1]:.2f} s")
                except (Failed, OSError) as error:
                    log(f"  {kind}: rescan: {error}")
                    results[kind] = ("error", None)
        for kind in running:
            results.setdefault(kind, ("rescan", times[kind]))
    finally:
        for server in running.values():
            stop(server)
    return results


def bench_server(kind, make, size, plan, args) -> tuple[dict, list, object]:
    """Every figure of one server on one library: name -> (kind, value); the errors; and the
    server, stopped, on its database."""
    results, errors = {}, []
    server, step = make(), "full scan"
    try:
        start = time.monotonic()
        server.start(timeout=60)
        done = wait_for_songs(server, size, args.scan_timeout, scanning=True)
        results[step] = ("scan", done - start)
        log(f"  {kind}: scanned {size:,} songs in {done - start:.2f} s")
        step = "resident memory after the scan"
        results[step] = ("mib", rss_mib(server))
        step = "queries"
        run_queries(server, plan, args.repeat, results, errors)
        step = "resident memory after the queries"
        results[step] = ("mib", rss_mib(server))
    except (Failed, OSError, RuntimeError) as error:
        errors.append(f"{step}: {error}")
        results.setdefault(step, ("error", None))
        log(f"  {kind}: {errors[-1]}")
    finally:
        stop(server)
    db = sum(p.stat().st_size for p in server.workdir.glob("database*") if p.is_file())
    if db:
        results["database file size"] = ("mib", db / 2**20)
    if results.get("full scan", ("error",))[0] == "scan":
        times = []
        try:
            for _ in range(args.restarts):
                start = time.monotonic()
                server.start(timeout=60)
                times.append(wait_for_songs(server, size, 60, scanning=False) - start)
                rss = rss_mib(server)
                stop(server)
            results["startup on the existing database"] = ("startup", times)
            results["resident memory after the restart"] = ("mib", rss)
        except (Failed, OSError, RuntimeError) as error:
            errors.append(f"startup on the existing database: {error}")
            results["startup on the existing database"] = ("error", None)
            stop(server)
    return results, errors, server


def cell(entry) -> str:
    if entry is None:
        return "–"
    kind, v = entry
    if kind == "error":
        return "failed"
    if kind == "scan":
        return f"{v:.2f} s"
    if kind == "rescan":
        return f"{statistics.median(v):.2f} s (of {len(v)})"
    if kind == "mib":
        return f"{v:.1f}" if v >= 10 else f"{v:.2f}"
    ordered = sorted(v)
    p90 = ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]
    return f"{statistics.median(v) * 1000:.2f} (p90 {p90 * 1000:.2f})"


def number(entry):
    if entry is None or entry[0] == "error":
        return None
    return entry[1] if entry[0] in ("scan", "mib") else statistics.median(entry[1])


RESCAN = "rescan, nothing changed (median)"


def unit(name: str) -> str:
    if name in ("full scan", RESCAN):
        return "s"
    if name.startswith(("resident memory", "database")):
        return "MiB"
    return "ms, median (p90)"


def bench_limit(per: dict, repeat: int):
    """The output-bound limit of the broad `search` (see the module's documentation), from the
    answer Tonearm gave (MPD's when Tonearm did not run): ("query", times), ("error", None) or
    None when no server answered it."""
    kind = next((k for k in ("tonearm", "mpd") if ANSWER in per[k]), None)
    if kind is None:
        return None
    command, answer = per[kind][ANSWER][1]
    try:
        times, cpu = prebuilt_server.measure(answer, command, repeat, Client)
    except (Failed, OSError, RuntimeError, ValueError) as error:
        log(f"  output-bound limit: {error}")
        return ("error", None)
    # The server's own share, to show it is not what the limit measures.
    log(f"  output-bound limit: {len(answer):,} bytes of {kind}'s answer, median "
        f"{statistics.median(times) * 1000:.2f} ms; the prebuilt server's CPU per answer: median "
        f"{statistics.median(cpu) * 1000:.2f} ms, max {max(cpu) * 1000:.2f} ms")
    return ("query", times)


def rows(size, plan, mpd, tonearm, old=None, limit=None):
    """The table's rows of one size; with `old` (the baseline's figures) two cells more each;
    with `limit` (``bench_limit``'s entry) the output-bound limit after the broad `search`."""
    search = queries(plan)[0][0]
    order = ["full scan", "resident memory after the scan", "queries", search,
             *([LIMIT] if limit is not None else []), *(q[0] for q in queries(plan)[1:]),
             "resident memory after the queries", "database file size", "startup on the existing database",
             "resident memory after the restart", RESCAN]
    out = []
    for name in [n for n in order if n in mpd or n in tonearm or n in (old or {}) or n == LIMIT]:
        m, t = mpd.get(name), tonearm.get(name)
        a, b = number(m), number(t)
        ratio = f"{a / b:.2f}" if a and b else "–"
        label = name
        if name == LIMIT:
            # One figure, the limit's, in the Tonearm column; each server's time over it beside.
            m, t = None, limit
            over = [(who, number(e.get(search))) for who, e in
                    [("Tonearm", tonearm), *([("old Tonearm", old)] if old is not None else []), ("MPD", mpd)]]
            ratio = ", ".join(f"{who} / limit {v / number(limit):.2f}" for who, v in over
                              if v and number(limit)) or "–"
        if name == "full scan":
            named = [("MPD", m), *([("old Tonearm", old.get(name))] if old is not None else []), ("Tonearm", t)]
            rates = [f"{who} {size / number(e):,.0f}" if number(e) else f"{who} –" for who, e in named]
            label = f"full scan (files/s: {', '.join(rates)})"
        versus_old = ((cell(old.get(name)), baseline.ratio(b, number(old.get(name)))) if old is not None
                      and name != LIMIT else ("–", "–") if old is not None else ())
        tracks = f"{size:,}" + (" FLAC" if plan.tracks[0].path.endswith(".flac") else "")
        out.append((tracks, label, unit(name), cell(m), cell(t), ratio, *versus_old))
    return out


HEADER = ("tracks", "measure", "unit", "MPD", "Tonearm", "MPD / Tonearm (>1: Tonearm faster/smaller)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tonearm", default=str(servers.REPO / ".build/release/tonearm"),
                        help="the tonearm binary (a release build)")
    parser.add_argument("--sizes", default="10000,100000", help="library sizes in tracks, comma-separated")
    parser.add_argument("--only", choices=("mpd", "tonearm", "both"), default="both")
    parser.add_argument("--repeat", type=int, default=20, help="timed runs of each query")
    parser.add_argument("--restarts", type=int, default=3, help="timed restarts on the existing database")
    parser.add_argument("--scan-timeout", type=float, default=300)
    parser.add_argument("--rescans", type=int, default=3,
                        help="timed rescans of the unchanged library, the servers taking turns (0: none)")
    parser.add_argument("--format", choices=("mp3", "flac"), default="mp3",
                        help="the generated files: MP3 with ID3v2.4 tags, or FLAC with Vorbis comments")
    parser.add_argument("--library-base", default="/tmp",
                        help="where generated libraries are cached (tonearm-bench-library-N inside)")
    parser.add_argument("--delayed-ack", action="store_true",
                        help="leave the client's delayed ACKs on (see docs/benchmarks.md: answers "
                             "of more than one segment then wait ~40 ms for MPD's Nagle)")
    baseline.add_option(parser)
    args = parser.parse_args()
    old_binary = baseline.binary(parser, args)
    Client.quickack = not args.delayed_ack
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s]
    kinds = baseline.with_old(["mpd", "tonearm"] if args.only == "both" else [args.only], old_binary)
    if "tonearm" in kinds and not Path(args.tonearm).exists():
        parser.error(f"{args.tonearm} does not exist (build it, or --only mpd)")

    all_rows, all_errors = [], []
    for size in sizes:
        music, plan = generate(size, Path(args.library_base), log=log, kind=args.format)
        per = {"mpd": {}, baseline.OLD: {}, "tonearm": {}}
        works, scanned = [], {}
        try:
            for kind in kinds:
                work = Path(tempfile.mkdtemp(prefix=f"tonearm-library-bench-{kind}-"))
                works.append(work)
                if kind == "mpd":
                    def make(work=work):
                        return servers.MPDServer(work, music_dir=music)
                else:
                    def make(work=work, binary=old_binary if kind == baseline.OLD else args.tonearm):
                        return servers.TonearmServer(work, binary=binary, music_dir=music)
                log(f"{size:,} tracks, {kind}:")
                per[kind], errors, server = bench_server(kind, make, size, plan, args)
                all_errors += [f"{kind}, {size:,} tracks: {e}" for e in errors]
                if per[kind].get("full scan", ("error",))[0] == "scan":
                    scanned[kind] = server
            if args.rescans > 0 and scanned:
                log(f"{size:,} tracks, rescans, the servers taking turns:")
                for kind, entry in bench_rescans(scanned, size, args).items():
                    per[kind][RESCAN] = entry
                    if entry[0] == "error":
                        all_errors.append(f"{kind}, {size:,} tracks: rescan failed")
        finally:
            for work in works:
                shutil.rmtree(work, ignore_errors=True)
        log(f"{size:,} tracks, the output-bound limit:")
        limit = bench_limit(per, args.repeat)
        if limit is not None and limit[0] == "error":
            all_errors.append(f"output-bound limit, {size:,} tracks: failed")
        all_rows += rows(size, plan, per["mpd"], per["tonearm"],
                         per[baseline.OLD] if baseline.OLD in kinds else None, limit)
    baseline.print_table(HEADER + (baseline.COLUMNS if baseline.OLD in kinds else ()), all_rows)
    if all_errors:
        print("\nFailures:")
        for error in all_errors:
            print(f"- {error}")
    return 1 if any(e.startswith("mpd") for e in all_errors) else 0


if __name__ == "__main__":
    sys.exit(main())
