#!/usr/bin/env python3
"""The release binary itself beside Debian's MPD (`make bench`): its size on disk, what it
loads from outside Debian's library folders, how long it takes from exec to serving, and its
resident memory.

  size            the file as built, and stripped as `make deb` strips it (what the package ships)
  toolchain libs  the shared libraries it maps from outside /lib, /usr/lib: the Swift
                  toolchain's, for a build linked against them (0 for a self-contained one)
  start           exec to the first answered connection, the database already built (median)
  memory          VmRSS once serving, and after one `listallinfo`

Each server serves the test library (Tests/support/library.py) with a null output. With
--baseline-tonearm an older build (such as one linked against the toolchain's runtime) runs too.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import baseline  # noqa: E402
from support.library import generate, wait_for_scan  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

SYSTEM_FOLDERS = ("/lib/", "/usr/lib/", "/lib64/", "/usr/lib64/")


def stripped_size(binary: str) -> int:
    with tempfile.NamedTemporaryFile() as copy:
        subprocess.run(["objcopy", "--strip-debug", "--strip-unneeded", binary, copy.name], check=True)
        return os.path.getsize(copy.name)


def mapped_outside_system(pid: int, binary: str) -> tuple[int, int]:
    """(count, total bytes) of the shared libraries mapped from outside Debian's folders."""
    files = set()
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and ".so" in fields[5] and not fields[5].startswith(SYSTEM_FOLDERS):
            files.add(fields[5])
    files.discard(os.path.realpath(binary))
    return len(files), sum(os.path.getsize(f) for f in files if os.path.exists(f))


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(kind: str, binary: str, music: Path, work: Path, runs: int) -> dict:
    server_class = MPDServer if kind == "mpd" else TonearmServer
    starts = []
    figures = {}
    for run in range(runs + 1):
        server = server_class(work / kind, music_dir=music, binary=binary)
        begun = time.perf_counter()
        server.start()
        with server.connect() as c:
            c.command("ping")
            elapsed = time.perf_counter() - begun
            if run == 0:  # the first start builds the database; the others read it
                wait_for_scan(c)
            else:
                starts.append(elapsed)
            if run == runs:
                pid = server.process.pid
                figures["rss_start"] = rss_kib(pid)
                c.command("listallinfo")
                figures["rss_listed"] = rss_kib(pid)
                figures["libs"] = mapped_outside_system(pid, binary)
        server.stop()
    figures["start"] = statistics.median(starts)
    figures["size"] = os.path.getsize(binary)
    figures["stripped"] = stripped_size(binary)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tonearm", required=True)
    parser.add_argument("--mpd", default="/usr/bin/mpd")
    parser.add_argument("--runs", type=int, default=15)
    baseline.add_option(parser)
    args = parser.parse_args()
    old = baseline.binary(parser, args)
    binaries = {"mpd": args.mpd, **({baseline.OLD: old} if old else {}), "tonearm": args.tonearm}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        library = generate(work / "music")
        results = {kind: measure(kind, binary, library.root, work, args.runs) for kind, binary in binaries.items()}
    mb = 1024 * 1024
    rows = [
        ("size as built (MB)", lambda f: f["size"] / mb, "{:.1f}"),
        ("size stripped (MB)", lambda f: f["stripped"] / mb, "{:.1f}"),
        ("toolchain libraries mapped", lambda f: f["libs"][0], "{:.0f}"),
        ("their size (MB)", lambda f: f["libs"][1] / mb, "{:.1f}"),
        ("exec to serving (ms, median)", lambda f: f["start"] * 1000, "{:.1f}"),
        ("resident once serving (MB)", lambda f: f["rss_start"] / 1024, "{:.1f}"),
        ("resident after listallinfo (MB)", lambda f: f["rss_listed"] / 1024, "{:.1f}"),
    ]
    header = ["figure", "MPD", "Tonearm", "Tonearm / MPD"] + (list(baseline.COLUMNS) if old else [])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, value, form in rows:
        mpd, new = value(results["mpd"]), value(results["tonearm"])
        cells = [name, form.format(mpd), form.format(new), baseline.ratio(new, mpd)]
        if old:
            previous = value(results[baseline.OLD])
            cells += [form.format(previous), baseline.ratio(new, previous)]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
