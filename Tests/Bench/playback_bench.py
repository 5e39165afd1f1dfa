#!/usr/bin/env python3
"""Playback benchmark, Tonearm and Debian's MPD side by side (the third line of `make bench`).

Both servers play the same files, made once with the `ffmpeg` CLI and cached in the work
folder: a minute of 44.1 kHz stereo 16-bit FLAC (pink noise under a slow chirp, so FLAC
compresses it about as much as music: ~1,100 kbit/s) and a 5 s one, and the 5 s one again as
MP3 (LAME, 192 kbit/s), Opus (128 kbit/s, in Ogg) and 24-bit WAV, the formats whose decoders
give another sample format than the database names (MPD's names: MP3 24-bit, Opus 16-bit).

- cpu_per_minute: one server at a time with a `null` output (`sync`, paced in real time, MPD's
  default), playing the minute; the server's CPU time (the sum over its threads of
  /proc/PID/task/TID/schedstat, in nanoseconds; utime + stime from /proc/PID/stat, in 10 ms
  ticks, is logged beside it) from `play` until the player stops, as a percentage of one core
  (median of `--cpu-runs` plays, each server started afresh). The client
  waits in `idle player` meanwhile, so it adds nothing to the server's work. `idle` is the same
  measure over a few seconds before `play`, with nothing playing.
- cpu_per_minute through a sound server: the same minute through a private PulseAudio with a
  null sink (Tests/support/pulse.py, its clock paces the playback), once with the `pulse`
  output (libpulse) and once with the `alsa` output on ALSA's `pulse` device; only the
  server's CPU is counted, not PulseAudio's.
- first_byte_pipe: a `pipe` output (`command "cat > FIFO"`, spawned by the server on open) and a
  stopped player with the 5 s song queued; the time from sending `play` to the first PCM byte
  read from the FIFO, median of `--runs` runs after one warm-up run (`stop` between runs);
  once for each of the 5 s files (`--first-byte-files`).
- first_byte_fifo: the same with a `fifo` output writing the FIFO itself (paced, as Snapcast
  reads it), the FLAC file only. The FIFO is created beforehand (MPD makes it when it starts, Tonearm on the first
  open).

The last column is MPD's figure divided by Tonearm's: above 1 Tonearm uses less CPU or answers
sooner. With --baseline-tonearm an older Tonearm plays too, after MPD and before the current one;
two columns more give its figure and new / old: below 1 the new build uses less CPU or answers
sooner.
"""
import os
import select
import shutil
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import baseline  # noqa: E402
from support.library import wait_for_scan  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
VERSION = "2"
TICKS = os.sysconf("SC_CLK_TCK")


def log(message):
    print(message, file=sys.stderr, flush=True)


def make_music(base: Path, seconds: int) -> Path:
    """The music folder (cached: a marker names the version and the length)."""
    import subprocess
    music = base / "music"
    marker = base / "complete"
    if marker.exists() and marker.read_text() == f"{VERSION} {seconds}":
        return music
    music.mkdir(parents=True, exist_ok=True)
    for name, length in (("minute.flac", seconds), ("short.flac", 5)):
        subprocess.run(FFMPEG + [
            "-f", "lavfi", "-i", f"anoisesrc=color=pink:amplitude=0.25:seed=7:sample_rate=44100:duration={length}",
            "-f", "lavfi", "-i", f"aevalsrc=0.3*sin(2*PI*(220*t+2*t*t))|0.3*sin(2*PI*(330*t+3*t*t)):s=44100:d={length}",
            "-filter_complex", "[0][1]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c0+c3[out]", "-map", "[out]",
            "-c:a", "flac", "-sample_fmt", "s16", str(music / name)], check=True)
    for name, codec in (("short.mp3", ["-c:a", "libmp3lame", "-b:a", "192k"]),
                        ("short.opus", ["-c:a", "libopus", "-b:a", "128k"]),
                        ("short24.wav", ["-c:a", "pcm_s24le"])):
        subprocess.run(FFMPEG + ["-i", str(music / "short.flac"), *codec, str(music / name)], check=True)
    marker.write_text(f"{VERSION} {seconds}")
    return music


def cpu_seconds(pid: int) -> float:
    """utime + stime of the whole process (every thread, also those that ended), in seconds;
    counted in clock ticks (10 ms)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def thread_cpu(pid: int) -> dict[int, int]:
    """Nanoseconds on the CPU by thread (/proc/PID/task/TID/schedstat): precise where the
    ticks are coarse."""
    times = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            times[int(task.name)] = int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return times


def cpu_between(before: dict[int, int], after: dict[int, int]) -> float:
    """Seconds on the CPU between two `thread_cpu` readings (a thread that ended between them
    is missed; the servers' audio and network threads live as long as the process)."""
    return sum(ns - before.get(tid, 0) for tid, ns in after.items()) / 1e9


class Client:
    """A raw MPD connection for the benchmark: commands and idle."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")
        assert self.file.readline().startswith(b"OK MPD")

    def send(self, command: str):
        self.sock.sendall(command.encode() + b"\n")

    def response(self) -> list[str]:
        lines = []
        while True:
            line = self.file.readline().decode().rstrip("\n")
            if not line:
                raise RuntimeError("connection closed")
            if line == "OK":
                return lines
            if line.startswith("ACK"):
                raise RuntimeError(line)
            lines.append(line)

    def command(self, command: str) -> dict[str, str]:
        self.send(command)
        return dict(line.split(": ", 1) for line in self.response() if ": " in line)

    def close(self):
        self.sock.close()


def start(kind: str, binary: str, workdir: Path, music: Path, output: str):
    """Starts a server in a fresh work folder (a state file left from an earlier run would
    restore its queue, and MPD would resume playing it)."""
    shutil.rmtree(workdir, ignore_errors=True)
    cls = MPDServer if kind == "mpd" else TonearmServer
    server = cls(workdir, binary=binary, music_dir=music, output=output)
    server.start()
    with server.connect() as connection:
        wait_for_scan(connection)
    return server, Client(server.port)


NULL_OUTPUT = 'audio_output {\n type "null"\n name "null"\n}\n'
# The two ways to a sound server: libpulse, and ALSA's pulse plugin.
SOUND_SERVER_OUTPUTS = {
    "pulse": 'audio_output {\n type "pulse"\n name "pulse"\n mixer_type "none"\n}\n',
    "alsa-pulse": 'audio_output {\n type "alsa"\n name "pulse"\n device "pulse"\n mixer_type "none"\n}\n',
}


def bench_cpu(kind, binary, base: Path, music: Path, idle_seconds: float, output: str = NULL_OUTPUT) -> dict:
    workdir = base / f"cpu-{kind}"
    server, c = start(kind, binary, workdir, music, output)
    try:
        pid = server.process.pid
        c.command('add "minute.flac"')
        before = thread_cpu(pid)
        time.sleep(idle_seconds)
        idle = cpu_between(before, thread_cpu(pid)) / idle_seconds * 100
        start_ticks, start_threads, start_time = cpu_seconds(pid), thread_cpu(pid), time.monotonic()
        c.command("play")
        while True:
            c.send("idle player")
            c.response()
            if c.command("status")["state"] == "stop":
                break
        used, wall = cpu_between(start_threads, thread_cpu(pid)), time.monotonic() - start_time
        ticks = cpu_seconds(pid) - start_ticks
        log(f"  {kind}: {used:.3f} s on the CPU in {wall:.1f} s ({ticks:.2f} s counted in ticks)")
        return {"cpu": used / wall * 100, "wall": wall, "cpu_seconds": used, "idle": idle}
    finally:
        c.close()
        server.stop()


def read_available(fd: int) -> int:
    """Reads what the FIFO holds right now; returns the byte count (-1 at end of file)."""
    total = 0
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return total
        if not chunk:
            return -1 if total == 0 else total
        total += len(chunk)


def drain(reader: int, until_end: bool, stopped: threading.Event):
    """Reads the FIFO until the writer is done: a pipe's command exits (end of file) after the
    stop; a FIFO goes quiet for 0.3 s after it."""
    quiet_since = time.monotonic()
    while not stopped.is_set() or time.monotonic() - quiet_since < 0.3:
        got = read_available(reader)
        if got == -1 and until_end and stopped.is_set():
            return
        if got > 0:
            quiet_since = time.monotonic()
        time.sleep(0.005)


def bench_first_byte(kind, binary, base: Path, music: Path, output_type: str, runs: int, song: str) -> dict:
    workdir = base / f"{output_type}-{kind}"
    fifo = base / f"{output_type}-{kind}.fifo"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    if output_type == "pipe":
        output = f'audio_output {{\n type "pipe"\n name "pipe"\n command "cat > {fifo}"\n}}\n'
    else:
        output = f'audio_output {{\n type "fifo"\n name "fifo"\n path "{fifo}"\n}}\n'
    server, c = start(kind, binary, workdir, music, output)
    times = []
    try:
        c.command(f'add "{song}"')
        for run in range(runs + 1):
            reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            read_available(reader)  # anything left from the last run
            poller = select.poll()
            poller.register(reader, select.POLLIN)
            began = time.perf_counter()
            c.send("play")
            arrived = None
            deadline = began + 10
            while arrived is None and time.perf_counter() < deadline:
                for _, event in poller.poll(1000):
                    if event & select.POLLIN and read_available(reader) > 0:
                        arrived = time.perf_counter()
            # Keep reading from now on: MPD's commands wait for its output thread, which may be
            # blocked writing to the command's pipe until someone reads.
            done = threading.Event()
            drainer = threading.Thread(target=drain, args=(reader, output_type == "pipe", done))
            drainer.start()
            c.response()
            if arrived is None:
                raise RuntimeError(f"{kind}: no PCM at the {output_type} output within 10 s")
            if run > 0:  # the first run warms up
                times.append((arrived - began) * 1000)
            c.command("stop")
            done.set()
            drainer.join()
            os.close(reader)
        return {"median": statistics.median(times), "min": min(times), "max": max(times)}
    finally:
        c.close()
        server.stop()


FIRST_BYTE_FILES = ("short.flac", "short.mp3", "short.opus", "short24.wav")


def first_byte_plays(files: list[str]) -> list[tuple[str, str]]:
    """(output type, file) of each first-byte measure: every file to the pipe output, the FLAC
    file to the fifo output."""
    return [("pipe", name) for name in files] + [("fifo", "short.flac")]


def ratio(mpd: float, tonearm: float) -> str:
    return f"{mpd / tonearm:.2f}" if tonearm > 0 and mpd > 0 else "—"


def main():
    parser = baseline.parser(__doc__)
    parser.add_argument("--seconds", type=int, default=60, help="length of the CPU benchmark's song")
    parser.add_argument("--cpu-runs", type=int, default=1, help="plays of the minute per server (median)")
    parser.add_argument("--idle-seconds", type=float, default=5)
    parser.add_argument("--runs", type=int, default=7, help="first-byte runs per server and output")
    parser.add_argument("--only", choices=["cpu", "sound-server", "first-byte"], help="one part only")
    parser.add_argument("--first-byte-files", default=",".join(FIRST_BYTE_FILES),
                        help="the 5 s files played to the pipe output, comma-separated")
    parser.add_argument("--work", default="/tmp/tonearm-bench-playback")
    args = parser.parse_args()
    old_binary = baseline.binary(parser, args)

    base = Path(args.work)
    music = make_music(base, args.seconds)
    binaries = {"mpd": args.mpd, baseline.OLD: old_binary, "tonearm": args.tonearm}
    kinds = baseline.with_old(["mpd", "tonearm"], old_binary)
    results = {}
    if args.only in (None, "cpu"):
        runs = {kind: [] for kind in kinds}
        for run in range(args.cpu_runs):
            for kind in kinds:
                log(f"{kind}: {args.seconds} s of FLAC to a null output ({run + 1}/{args.cpu_runs}) …")
                runs[kind].append(bench_cpu(kind, binaries[kind], base, music, args.idle_seconds))
        for kind, measured in runs.items():
            measured.sort(key=lambda r: r["cpu"])
            results[("cpu", kind)] = measured[len(measured) // 2]
            log(f"{kind}: CPU % of one core per run: " + ", ".join(f"{r['cpu']:.3f}" for r in runs[kind]))
    if args.only in (None, "sound-server"):
        from support.pulse import PulseAudio
        for name, output in SOUND_SERVER_OUTPUTS.items():
            with PulseAudio(base / "pulse") as pulse:
                os.environ["PULSE_SERVER"] = pulse.address
                try:
                    for kind in kinds:
                        log(f"{kind}: {args.seconds} s of FLAC through PulseAudio ({name}) …")
                        results[(name, kind)] = bench_cpu(kind, binaries[kind], base, music, 1, output)
                finally:
                    del os.environ["PULSE_SERVER"]
    if args.only in (None, "first-byte"):
        for output_type, song in first_byte_plays(args.first_byte_files.split(",")):
            for kind in kinds:
                log(f"{kind}: play → first byte of {song} at a {output_type} output, {args.runs} runs …")
                results[(output_type, song, kind)] = bench_first_byte(
                    kind, binaries[kind], base, music, output_type, args.runs, song)

    def versus_old(part, show, key=None):
        """The old Tonearm's cells of a row: its figure as `show` gives it, and new / old of
        `key` (none for a row without a ratio). `part` is a result's key without the server."""
        if not old_binary:
            return ()
        part = part if isinstance(part, tuple) else (part,)
        old, new = results[(*part, baseline.OLD)], results[(*part, "tonearm")]
        return (show(old), baseline.ratio(new[key], old[key]) if key else "")

    rows = []
    if ("cpu", "mpd") in results:
        m, t = results[("cpu", "mpd")], results[("cpu", "tonearm")]
        rows.append(("CPU while playing FLAC to a null output", "% of one core",
                     f"{m['cpu']:.2f}", f"{t['cpu']:.2f}", ratio(m["cpu"], t["cpu"]),
                     *versus_old("cpu", lambda o: f"{o['cpu']:.2f}", "cpu")))
        rows.append(("CPU time per minute of playback", "s",
                     f"{m['cpu_seconds'] * 60 / m['wall']:.3f}", f"{t['cpu_seconds'] * 60 / t['wall']:.3f}",
                     ratio(m["cpu"], t["cpu"]),
                     *versus_old("cpu", lambda o: f"{o['cpu_seconds'] * 60 / o['wall']:.3f}", "cpu")))
        rows.append(("CPU while idle (stopped)", "% of one core", f"{m['idle']:.3f}", f"{t['idle']:.3f}",
                     ratio(m["idle"], t["idle"]), *versus_old("cpu", lambda o: f"{o['idle']:.3f}", "idle")))
    for name, title in (("pulse", "the pulse output"), ("alsa-pulse", "ALSA's pulse device")):
        if (name, "mpd") in results:
            m, t = results[(name, "mpd")], results[(name, "tonearm")]
            rows.append((f"CPU per minute of playback through {title}", "s",
                         f"{m['cpu_seconds'] * 60 / m['wall']:.3f}", f"{t['cpu_seconds'] * 60 / t['wall']:.3f}",
                         ratio(m["cpu"], t["cpu"]),
                         *versus_old(name, lambda o: f"{o['cpu_seconds'] * 60 / o['wall']:.3f}", "cpu")))
    for output_type, song in first_byte_plays(args.first_byte_files.split(",")):
        if (output_type, song, "mpd") in results:
            part = (output_type, song)
            m, t = results[(*part, "mpd")], results[(*part, "tonearm")]
            rows.append((f"play → first PCM byte, {output_type} output, {song} (median)", "ms",
                         f"{m['median']:.1f}", f"{t['median']:.1f}", ratio(m["median"], t["median"]),
                         *versus_old(part, lambda o: f"{o['median']:.1f}", "median")))
            rows.append((f"  (min–max of {args.runs})", "ms", f"{m['min']:.1f}–{m['max']:.1f}",
                         f"{t['min']:.1f}–{t['max']:.1f}", "",
                         *versus_old(part, lambda o: f"{o['min']:.1f}–{o['max']:.1f}")))
    header = ("workload", "unit", "MPD", "Tonearm", "MPD / Tonearm")
    baseline.print_table(header + (baseline.COLUMNS if old_binary else ()), rows)


if __name__ == "__main__":
    main()
