"""What the `make bench` scripts share: their common options, and `--baseline-tonearm` (`make bench BASELINE=…`).

With it, each script also measures an older Tonearm binary (the baseline, "old") in the same run,
on the same library and workloads, between MPD and the current build ("new"), and adds two
columns to its table: the old build's figure and new / old. Every figure's ratio is taken on a
quantity where less is better (a time, CPU, memory, a file size), so below 1 the new build is
faster or smaller and above 1 it is slower or larger: a refactoring should stay at 1 within the
noise. Without the option the scripts print what they printed before.
"""
import argparse
from pathlib import Path

from support import servers

OLD = "old"  # the baseline's key among the servers, beside "mpd" and "tonearm"
COLUMNS = ("old Tonearm", "new / old (<1: new faster/smaller)")


def parser(description: str) -> argparse.ArgumentParser:
    """The options every side-by-side script shares: `--tonearm` (the current build), `--mpd`
    and `--baseline-tonearm`; `description` is the script's docstring, shown as it is written."""
    result = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    result.add_argument("--tonearm", required=True, help="the tonearm binary (a release build)")
    result.add_argument("--mpd", default="/usr/bin/mpd")
    add_option(result)
    return result


def library_parser(description: str, sizes_help: str, scan_timeout: float,
                   scan_help: str | None = None) -> argparse.ArgumentParser:
    """The options of the scripts that measure both servers on generated libraries of several
    sizes: `--tonearm` (the release build by default), `--sizes`, `--scan-timeout`,
    `--library-base` and `--baseline-tonearm`. Check the binary with ``current(parser, args)``."""
    result = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    result.add_argument("--tonearm", default=str(servers.REPO / ".build/release/tonearm"),
                        help="the tonearm binary (a release build)")
    result.add_argument("--sizes", default="10000,100000", help=sizes_help)
    result.add_argument("--scan-timeout", type=float, default=scan_timeout, help=scan_help)
    result.add_argument("--library-base", default="/tmp",
                        help="where generated libraries are cached (tonearm-bench-library-N inside)")
    add_option(result)
    return result


def current(parser: argparse.ArgumentParser, args) -> str:
    """The current build's binary (`--tonearm`); a missing file is a usage error."""
    if not Path(args.tonearm).exists():
        parser.error(f"{args.tonearm} does not exist (build it: swift build -c release)")
    return args.tonearm


def add_option(parser: argparse.ArgumentParser):
    parser.add_argument("--baseline-tonearm", metavar="PATH",
                        help="an older tonearm binary (a release build) to measure in the same run; "
                             "adds its figures and new / old to the table")


def binary(parser: argparse.ArgumentParser, args) -> str | None:
    """The baseline binary, or None without the option; a missing file is a usage error."""
    path = args.baseline_tonearm
    if path and not Path(path).exists():
        parser.error(f"--baseline-tonearm {path} does not exist")
    return path


def with_old(kinds, old_binary) -> list[str]:
    """`kinds` with the old Tonearm just before the new one when there is a baseline: MPD, old,
    new is the order the servers run in."""
    return [k for kind in kinds for k in ([OLD, kind] if kind == "tonearm" and old_binary else [kind])]


def ratio(new, old) -> str:
    return f"{new / old:.2f}" if new and old else "–"


def print_table(header, rows):
    """The table as aligned text (the first two columns to the left), then as Markdown for
    docs/benchmarks.md."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    print()
    for r in [header, *rows]:
        print("  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    print("\nMarkdown:\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
