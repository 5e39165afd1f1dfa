#!/usr/bin/env python3
"""`httpd` output benchmark, Tonearm and Debian's MPD side by side (a line of `make bench`).

What a server costs to stream what it plays to listeners over HTTP (issue 19), as phones and
browsers listen. Each server plays the playback benchmark's song (Tests/Bench/playback_bench.py:
pink noise under a slow chirp, 44.1 kHz stereo 16-bit FLAC, made once with the `ffmpeg` CLI
and cached in the work folder; 90 s or longer) through one `httpd` output on 127.0.0.1 and
nothing else. For every workload each server is started afresh, one at a time, and `play` is
sent before the listeners connect (MPD opens the port at the first play). The listeners are
Python sockets in threads that send `GET / HTTP/1.1` and read continuously.

- cpu_per_minute: the server's CPU time (utime + stime from /proc/PID/stat, the whole process:
  decoding the FLAC, encoding, serving) over `--seconds` with the listeners connected and
  reading, scaled to a minute; `--warmup` seconds after they connect are left out. The
  workloads: `encoder "lame"` with `bitrate "128"` (MP3 at 128 kbit/s) and 1 listener, the
  same with 20; `encoder "opus"` with `bitrate "128000"` (MPD's Opus bitrate is in bit/s) and 1;
  `encoder "vorbis"` with `quality "5"` and 1.
- rss: VmRSS from /proc/PID/status of the MP3 server with its 20 listeners reading, at the end
  of the CPU measure, and of the same server `--warmup` seconds into `play` before any listener
  connected: the difference is what the listeners cost, apart from the whole server.

An encoder a server does not have (an older Tonearm given with --baseline-tonearm had no `opus`
or `vorbis`) is reported as "not supported" in that row: the server leaves the output out and
says so in its log, or refuses to start with a message that says it is not supported.

The ratio column is MPD's figure divided by Tonearm's: above 1 Tonearm uses less CPU or memory.
With --baseline-tonearm an older Tonearm is measured too, between the two, and two columns more
give its figure and new / old (below 1 the new build uses less).
"""
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import baseline  # noqa: E402
from playback_bench import cpu_seconds, log, make_music  # noqa: E402
from support.library import wait_for_scan  # noqa: E402
from support.servers import MPDServer, TonearmServer, free_port  # noqa: E402

# name → (the encoder's options in the `audio_output` block, listeners, what the table calls it)
WORKLOADS = {
    "lame-1": ('encoder "lame"\n bitrate "128"', 1, "MP3 128 kbit/s, 1 listener"),
    "lame-20": ('encoder "lame"\n bitrate "128"', 20, "MP3 128 kbit/s, 20 listeners"),
    "opus-1": ('encoder "opus"\n bitrate "128000"', 1, "Opus 128 kbit/s, 1 listener"),
    "vorbis-1": ('encoder "vorbis"\n quality "5"', 1, "Vorbis quality 5, 1 listener"),
}
SONG = "minute.flac"  # make_music's name for the long song, whatever its length


def httpd_output(port: int, options: str) -> str:
    return ('audio_output {\n type "httpd"\n name "stream"\n bind_to_address "127.0.0.1"\n'
            f' port "{port}"\n {options}\n}}\n')


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


class Reader:
    """A listener that sends the request and reads until the server closes, counting bytes."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: httpd_bench\r\n\r\n")
        self.received = 0
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            while chunk := self.sock.recv(65536):
                self.received += len(chunk)
        except OSError:
            pass
        self.closed = True

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def not_supported(server, error: str = "") -> str | None:
    """The server's message that it does not support the encoder, or None."""
    log_file = server.workdir / "log"
    text = error + server.log_text() + (log_file.read_text(errors="replace") if log_file.exists() else "")
    lines = [line for line in text.splitlines() if "not supported" in line or "No such encoder" in line]
    return lines[0].split("] ", 1)[-1].strip() if lines else None


def bench(kind: str, binary: str, base: Path, music: Path, workload: str, seconds: float,
          warmup: float) -> dict | None:
    """One workload on a fresh server; None when the server does not have the encoder."""
    options, listeners, _ = WORKLOADS[workload]
    workdir = base / f"{kind}-{workload}"
    shutil.rmtree(workdir, ignore_errors=True)
    port = free_port()
    server = (MPDServer if kind == "mpd" else TonearmServer)(
        workdir, binary=binary, music_dir=music, output=httpd_output(port, options))
    try:
        server.start()
    except RuntimeError as error:
        if reason := not_supported(server, str(error)):
            log(f"  {kind}: {reason}")
            return None
        raise
    readers = []
    try:
        with server.connect() as c:
            wait_for_scan(c)
            if "outputname: stream" not in c.command("outputs"):
                reason = not_supported(server)
                if reason is None:
                    raise RuntimeError(f"{kind} left the httpd output out:\n{server.log_text()}")
                log(f"  {kind}: {reason}")
                return None
            c.command(f'add "{SONG}"')
            c.command("play")
        pid = server.process.pid
        time.sleep(warmup)
        rss_alone = rss_kib(pid)
        readers = [Reader(port) for _ in range(listeners)]
        time.sleep(warmup)
        received = [r.received for r in readers]
        before, start = cpu_seconds(pid), time.monotonic()
        time.sleep(seconds)
        used, wall = cpu_seconds(pid) - before, time.monotonic() - start
        rss = rss_kib(pid)
        with server.connect() as c:
            if "state: play" not in c.command("status"):
                raise RuntimeError(f"{kind} stopped playing")
        got = [r.received - was for r, was in zip(readers, received)]
        if any(r.closed for r in readers) or min(got) == 0:
            raise RuntimeError(f"{kind}: a listener was closed or got nothing while timed: {got} bytes")
        log(f"  {kind}: {used:.2f} s of CPU in {wall:.1f} s; RSS {rss_alone} KiB alone, {rss} KiB with "
            f"{listeners} listener(s), each of which read {min(got) * 8 / wall / 1000:.0f}–"
            f"{max(got) * 8 / wall / 1000:.0f} kbit/s")
        return {"cpu_per_minute": used * 60 / wall, "rss": rss / 1024, "rss_alone": rss_alone / 1024}
    finally:
        for reader in readers:
            reader.close()
        server.stop()


def main():
    parser = baseline.parser(__doc__)
    parser.add_argument("--seconds", type=float, default=30, help="seconds of streaming timed for CPU")
    parser.add_argument("--warmup", type=float, default=5,
                        help="seconds after play before the listeners connect, and after they connect")
    parser.add_argument("--work", default="/tmp/tonearm-bench-httpd")
    args = parser.parse_args()
    old_binary = baseline.binary(parser, args)
    base = Path(args.work)
    # The song outlasts the warm-ups and the timed seconds, with room for a slow start.
    music = make_music(base, max(90, int(2 * args.warmup + args.seconds + 20)))
    binaries = {"mpd": args.mpd, baseline.OLD: old_binary, "tonearm": args.tonearm}
    kinds = baseline.with_old(["mpd", "tonearm"], old_binary)
    results = {}
    for workload in WORKLOADS:
        for kind in kinds:
            log(f"{kind}: httpd output, {WORKLOADS[workload][2]}, {args.seconds:.0f} s timed …")
            results[(workload, kind)] = bench(kind, binaries[kind], base, music, workload, args.seconds,
                                              args.warmup)

    def row(title: str, workload: str, key: str, unit: str, form: str):
        def cell(kind):
            result = results[(workload, kind)]
            return "not supported" if result is None else f"{form.format(result[key])} {unit}"

        def value(kind):
            result = results[(workload, kind)]
            return result[key] if result else None
        mpd, new = value("mpd"), value("tonearm")
        cells = [title, cell("mpd"), cell("tonearm"), baseline.ratio(mpd, new)]
        if old_binary:
            cells += [cell(baseline.OLD), baseline.ratio(new, value(baseline.OLD))]
        return cells

    rows = [row(f"CPU per minute, {WORKLOADS[w][2]}", w, "cpu_per_minute", "s", "{:.2f}") for w in WORKLOADS]
    rows.append(row("RSS, MP3 with 20 listeners reading", "lame-20", "rss", "MiB", "{:.1f}"))
    rows.append(row("RSS, the same server before they connected", "lame-20", "rss_alone", "MiB", "{:.1f}"))
    for result in (r for r in results.values() if r):
        result["listeners"] = result["rss"] - result["rss_alone"]
    rows.append(row("RSS the 20 listeners add", "lame-20", "listeners", "MiB", "{:.1f}"))
    header = ("httpd output on 127.0.0.1, playing FLAC", "MPD", "Tonearm", "MPD / Tonearm")
    baseline.print_table(header + (baseline.COLUMNS if old_binary else ()), rows)


if __name__ == "__main__":
    main()
