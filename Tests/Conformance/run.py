#!/usr/bin/env python3
"""Conformance runner: plays scripted sessions against Debian's MPD and Tonearm on the same
music folder and fails on any difference that the allow-list does not explain.

Session files (sessions/*.session), one step per line:
    > LINE            send LINE and a newline; record the response up to OK/ACK (or a close)
    >send LINE        send LINE and a newline without waiting (lines inside a command list)
    >raw HEX          send these bytes (hex); record nothing yet
    ?response         record the response that follows (after >raw)
    ?closed           record whether the server closes the connection now, and any bytes it sent
    ?quiet SECONDS    record whether nothing arrives for SECONDS
    >> connection N   switch to connection N (opened, and its greeting recorded, on first use)
    # comment
A session whose first line is `# library: fixture` runs on the generated fixture library
(Tests/support/library.py; one copy per run, shared by both servers, each with its own database
file), and the runner waits for each server's initial scan before playing it. Other sessions run
on an empty music folder.

Transcripts hold what was sent and every line received; `binary: N` data is recorded as its
length and a SHA-256 prefix. Before comparing, the greeting's version is normalised (MPD 0.23
greets with its own protocol version), the times uptime/playtime/db_update/Last-Modified are
masked, the music folder's path is replaced by `<music_directory>`, and `Added:` song lines are dropped: Tonearm prints MPD 0.24's `Added:` line, which
Debian's MPD 0.23 lacks. For the same reason `status`'s `lastloadedplaylist:` line (0.24 prints it
always, 0.23 never) is dropped; Tests/Integration/test_player.py checks it.

`--only-mpd` plays the sessions against MPD alone and prints its transcripts (to check that a
session is deterministic: run it twice and compare).

allowlist.txt lists intended differences line by line (its header describes the format): each
entry names a session, the commands it applies to, and the lines that only MPD or only Tonearm
sends there, with the reason. The transcripts are compared command by command; a session passes
when every line that differs is explained by an entry, and an entry or pattern that explains
nothing in the sessions that ran is reported as stale and fails the run, so that the list
cannot outlive the differences it was written for.
"""
import argparse
import difflib
import hashlib
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from support.library import generate, wait_for_scan  # noqa: E402
from support.servers import Connection, MPDServer, StillOpen, TonearmServer  # noqa: E402

LIBRARY_HEADER = "# library: fixture"
DROP = re.compile(r"^(Added|lastloadedplaylist): ")

NORMALISE = [
    (re.compile(r"^OK MPD \d+\.\d+\.\d+$"), "OK MPD <version>"),
    (re.compile(r"^(uptime|playtime|db_update|Last-Modified|Added): .*$"), r"\1: <masked>"),
]


def normalise_line(line: str) -> str:
    for pattern, replacement in NORMALISE:
        line = pattern.sub(replacement, line)
    return line


def play(session: Path, server) -> list[str]:
    music = str(server.music_dir)

    def normalise(line: str) -> str:  # also hides the run's temporary music folder (in listfiles errors)
        return normalise_line(line).replace(music, "<music_directory>")

    connections: dict[str, Connection] = {}
    transcript: list[str] = []
    current = None

    def use(name):
        nonlocal current
        if name not in connections:
            connections[name] = Connection.connect(server.host, server.port)
            transcript.append(f"[{name}] greeting: {normalise(connections[name].greeting or '<closed>')}")
        current = connections[name]

    def record_response():
        lines = []
        try:
            while True:
                line = current.read_line(timeout=5)
                if line is None:
                    lines.append("<closed>")
                    break
                if DROP.match(line):
                    continue
                lines.append(line)
                if line == "OK" or line.startswith("ACK "):
                    break
                if line.startswith("binary: "):
                    size = int(line.removeprefix("binary: "))
                    while len(current.buffer) < size + 1:
                        if not current._fill(5):
                            break
                    data, rest = current.buffer[:size], current.buffer[size:]
                    ending = rest[:1]
                    current.buffer = rest[1:]
                    lines.append(f"<{len(data)} bytes sha256 {hashlib.sha256(data).hexdigest()[:16]}"
                                 + ("" if ending == b"\n" else f", then {ending!r} instead of a newline") + ">")
        except TimeoutError:
            lines.append("<no answer within 5 s>")
        transcript.extend("  " + normalise(line) for line in lines)

    if session.read_text().startswith(LIBRARY_HEADER):
        with Connection.connect(server.host, server.port) as waiter:
            wait_for_scan(waiter)
    use("1")
    try:
        for raw in session.read_text().splitlines():
            step = raw.rstrip("\n")
            if not step.strip() or step.startswith("#"):
                continue
            if step.startswith(">> connection "):
                use(step.removeprefix(">> connection ").strip())
            elif step.startswith(">send "):
                transcript.append(f"> {step[6:]}")
                current.send(step[6:].encode() + b"\n")
            elif step.startswith(">raw "):
                data = bytes.fromhex(step.removeprefix(">raw ").replace(" ", ""))
                transcript.append(f"> raw {len(data)} bytes")
                current.send(data)
            elif step.startswith("> ") or step == ">":
                line = step[2:]
                transcript.append(f"> {line}")
                current.send(line.encode() + b"\n")
                record_response()
            elif step == "?response":
                record_response()
            elif step == "?closed":
                try:
                    result = current.expect_closed(timeout=5)
                    transcript.append("  <closed>" if result is True else f"  <closed after sending {result!r}>")
                except StillOpen as still:
                    transcript.append(f"  <open, sent {still.received!r}>")
            elif step.startswith("?quiet "):
                quiet = current.nothing_within(float(step.split()[1]))
                transcript.append("  <quiet>" if quiet else "  <answered>")
            else:
                raise ValueError(f"{session.name}: cannot read step {step!r}")
    finally:
        for connection in connections.values():
            connection.close()
    return transcript


class Allowance:
    """One entry of allowlist.txt: in SESSION, after commands matching `after`, lines matching
    a `mpd:` pattern may appear only in MPD's transcript and lines matching a `tonearm:`
    pattern only in Tonearm's. `[A B] REASON` names several sessions with the same difference
    (the app replays of Tests/Integration share differences such as `commands`)."""

    def __init__(self, session: str, reason: str, origin: str):
        self.session, self.reason, self.origin = session, reason, origin
        self.sessions = set(session.split())
        self.after = re.compile(".*")
        self.patterns: list[tuple[str, re.Pattern]] = []  # (side, line pattern)
        self.used: set[int] = set()  # indexes of the patterns that explained a line

    def explains(self, session: str, command: str, side: str, line: str) -> bool:
        if session not in self.sessions or not self.after.fullmatch(command):
            return False
        for index, (pattern_side, pattern) in enumerate(self.patterns):
            if pattern_side == side and pattern.fullmatch(line):
                self.used.add(index)
                return True
        return False


def read_allowlist(path: Path = HERE / "allowlist.txt") -> list[Allowance]:
    """Parses the entries: `[SESSION] REASON` opens one; indented `after: REGEX`, `mpd: REGEX`
    and `tonearm: REGEX` lines follow (each REGEX must match a whole line, without the two
    spaces that indent response lines in a transcript)."""
    entries: list[Allowance] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        origin = f"{path.name}:{number}"
        if line.startswith("["):
            session, _, reason = line[1:].partition("]")
            if not reason.strip():
                raise ValueError(f"{origin}: an entry needs a reason after [{session}]")
            entries.append(Allowance(session.strip(), reason.strip(), origin))
            continue
        key, _, pattern = line.strip().partition(": ")
        if not entries or key not in ("after", "mpd", "tonearm") or not pattern:
            raise ValueError(f"{origin}: cannot read {raw!r}")
        if key == "after":
            entries[-1].after = re.compile(pattern)
        else:
            entries[-1].patterns.append((key, re.compile(pattern)))
    return entries


def segments(transcript: list[str]) -> list[tuple[str, list[str]]]:
    """The transcript cut before each line sent, as (that line, the lines after it)."""
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in transcript:
        if line.startswith("> ") or line.startswith("[") and " greeting: " in line:
            parts.append((line, []))
        else:
            parts[-1][1].append(line)
    return parts


def unexplained(session: str, expected: list[str], actual: list[str], allowances: list[Allowance]) -> list[str]:
    """The differences between the transcripts that no allowance explains, as diff lines."""
    problems: list[str] = []
    ours, theirs = segments(expected), segments(actual)
    if [header for header, _ in ours] != [header for header, _ in theirs]:
        return list(difflib.unified_diff(expected, actual, "mpd", "tonearm", lineterm=""))
    for (header, mpd_lines), (_, tonearm_lines) in zip(ours, theirs):
        command = header.removeprefix("> ")
        matcher = difflib.SequenceMatcher(a=mpd_lines, b=tonearm_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            lines = [("mpd", "-", line) for line in mpd_lines[i1:i2]] + \
                    [("tonearm", "+", line) for line in tonearm_lines[j1:j2]]
            for side, sign, line in lines:
                if not any(a.explains(session, command, side, line.removeprefix("  ")) for a in allowances):
                    problems.append(f"{header}\n{sign}{line}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tonearm", help="the tonearm binary (required unless --only-mpd)")
    parser.add_argument("--mpd", default="/usr/bin/mpd")
    parser.add_argument("--session", action="append", help="run only these sessions (names without .session)")
    parser.add_argument("--verbose", action="store_true", help="print every transcript")
    parser.add_argument("--only-mpd", action="store_true", help="play the sessions against MPD alone and "
                        "print its transcripts")
    args = parser.parse_args()
    if not args.tonearm and not args.only_mpd:
        parser.error("--tonearm is required (or --only-mpd)")

    if not Path(args.mpd).exists():
        print(f"conformance: {args.mpd} is missing; `make test-deps` installs Debian's mpd", file=sys.stderr)
        return 2
    sessions = sorted(HERE.glob("sessions/*.session"))
    if args.session:
        sessions = [s for s in sessions if s.stem in args.session]
    allowances = read_allowlist()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="tonearm-conformance-") as work:
        work = Path(work)
        music = work / "music"
        music.mkdir()
        library = None
        for session in sessions:
            folder = music
            if session.read_text().startswith(LIBRARY_HEADER):
                library = library or generate(work / "library")
                folder = library.root
            if args.only_mpd:
                with MPDServer(work / f"mpd-{session.stem}", music_dir=folder, binary=args.mpd) as mpd_server:
                    print(f"== {session.stem}")
                    print("\n".join(play(session, mpd_server)))
                continue
            # Fresh servers per session, so one session's state cannot leak into the next.
            with MPDServer(work / f"mpd-{session.stem}", music_dir=folder, binary=args.mpd) as mpd_server, \
                    TonearmServer(work / f"tonearm-{session.stem}", binary=args.tonearm, music_dir=folder) as tonearm:
                expected = play(session, mpd_server)
                actual = play(session, tonearm)
            if args.verbose:
                print("\n".join(actual))
            problems = unexplained(session.stem, expected, actual, allowances)
            if not problems:
                reasons = sorted({a.reason for a in allowances if session.stem in a.sessions and a.used})
                print(f"PASS {session.stem}" + "".join(f"\n  allowed: {reason}" for reason in reasons))
                if args.verbose and expected != actual:
                    print("\n".join(difflib.unified_diff(expected, actual, "mpd", "tonearm", lineterm="")))
                passed += 1
            else:
                print(f"FAIL {session.stem}: differences that allowlist.txt does not explain\n" + "\n".join(problems))
                failed += 1
        ran = set() if args.only_mpd else {session.stem for session in sessions}
        for allowance in allowances:
            if not allowance.sessions & ran:
                continue
            stale = [f"{side}: {pattern.pattern}" for index, (side, pattern) in enumerate(allowance.patterns)
                     if index not in allowance.used]
            if stale:
                print(f"STALE {allowance.origin} [{allowance.session}] explains nothing any more: " + "; ".join(stale))
                failed += 1
    if args.only_mpd:
        return 0
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
