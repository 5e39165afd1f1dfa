"""Hostile MPD input: seeded generators of malformed lines and command lists, a reader that
survives whatever the server answers (binary chunks, closes), and checks of the answer's form.

Used by Tests/Integration/test_hostile.py. Everything comes from a `random.Random(seed)`, so a
failing batch is replayed by running with the same seed (TONEARM_HOSTILE_SEED).
"""
import random
import re
import socket

# `ACK [code@index] {command} message` (MPD's `Response::Error`, `command_error_v`).
ACK = re.compile(rb"^ACK \[(\d+)@(\d+)\] \{([A-Za-z0-9_]*)\} (.*)$")
# The codes of MPD's `enum ack` (src/protocol/Ack.hxx).
ACK_CODES = {1, 2, 3, 4, 5, 50, 51, 52, 53, 54, 55, 56, 59, 64}
# A response line: `Key: value` (keys are tag names, `Last-Modified`…; `playlist` prints
# `POSITION:file: URI`, and `list_OK` ends a list's entry).
PAIR = re.compile(rb"^([0-9]+:)?[A-Za-z_][A-Za-z0-9_\-]*: ")
LINE_LIMIT = 8192  # the longest line MPD reads (its client input buffer)

# Argument values no command accepts as they stand, and a few real ones so that the parsers
# get past their first check (a real song, playlist, range, tag and subsystem).
BAD_VALUES = [
    "-1", "-2147483649", "2147483648", "4294967296", "18446744073709551616", "99999999999999999999",
    "1e309", "nan", "inf", "-0", "0x10", "1.5", " ", "", "abc", "5:2", "-1:", ":", "1:2:3", "0:-1",
    "3:3", "1:", ":5", "-5:-1", "2147483647:2147483648", "\u00e9", "../..", "/", "//x", "a/../../b",
    "file:///etc/passwd", "http://127.0.0.1:1/x", "((artist == 'x')", "(artist ==", "(!(title == 'a'))",
    "(base 'x')", "(modified-since 'y')", "(AudioFormat =~ 'x')", "(artist =~ '[')", "window", "sort",
    "group", "position", "-999:", "on", "yes", "2", "oneshot", "create", "bogus", "Artist", "any",
]
REAL_VALUES = ["intro.flac", "Björk", "Various", "keep", "0", "1", "0:1", "artist", "player", "song"]
LONG_CHARACTERS = "aZ9/:.-(\u00e9\u9f8d"


def quote(value: str) -> str:
    """An argument as clients quote it."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Generator:
    """Hostile lines for the commands a server knows, all from one seeded `random.Random`."""

    def __init__(self, seed: int, commands: list[str]):
        self.rng = random.Random(seed)
        # `kill` takes any arguments (MPD's table says -1, -1) and stops the server; `consume 1`
        # would make the queue shrink whenever a song ends, which no snapshot can follow.
        # `idle` without arguments waits: it is sent only with arguments that make it wrong.
        self.commands = sorted(set(commands) - {"kill", "consume"})

    def value(self) -> str:
        rng = self.rng
        pick = rng.random()
        if pick < 0.6:
            return rng.choice(BAD_VALUES)
        if pick < 0.8:
            return rng.choice(REAL_VALUES)
        if pick < 0.9:
            return "".join(rng.choice(LONG_CHARACTERS) for _ in range(rng.choice([300, 2000, 7000])))
        return str(rng.choice([-1, 1, -(2**rng.randint(8, 70)), 2**rng.randint(8, 70), rng.randint(-50, 50)]))

    def argument(self) -> str:
        """A value, quoted or bare (the bare form may well be invalid for the tokenizer)."""
        value = self.value()
        return quote(value) if self.rng.random() < 0.5 or not value or " " in value else value

    def command_line(self) -> bytes:
        """A known command with 0..5 hostile arguments (wrong arity, bad values or both)."""
        rng = self.rng
        command = rng.choice(self.commands)
        count = rng.choice([0, 1, 1, 2, 2, 3, 4, 5])
        if command in ("idle", "close", "noidle") and count == 0:
            count = 1
        arguments = [self.argument() for _ in range(count)]
        if command == "idle":
            arguments = [a for a in arguments if a.strip('"') not in ("player", "")] or ['"bogus"']
        return " ".join([command, *arguments]).encode()[:LINE_LIMIT - 1]

    def raw_line(self) -> bytes:
        """Malformed framing: unknown words, bad command words, quoting, bytes, lengths."""
        rng = self.rng
        kind = rng.randrange(9)
        if kind == 0:
            return rng.choice([b"foo", b"Status", b"pin", b"plaYlistinfo", b"commandlistbegin", b"x" * 200])
        if kind == 1:  # a command word that is not one: MPD answers and closes
            return rng.choice([b"1status", b"-ping", b"st@tus", b'"ping"', b"p\xc3\xa9ng", b"_x"])
        if kind == 2:  # unbalanced or misplaced quotes
            return rng.choice([b'find "artist', b'add "a"b', b"add 'intro.flac'", b'add "a\\', b'lsinfo ""x',
                               b'playlistadd "keep" "' + b"\\" * rng.randint(1, 9)])
        if kind == 3:  # binary bytes and NUL
            return bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))).replace(b"\n", b" ")
        if kind == 4:  # NUL in the middle of a command line
            return rng.choice([b"ping\x00garbage", b"status\x00", b'add "intro\x00.flac"', b"\x00ping"])
        if kind == 5:  # CR without LF
            return rng.choice([b"ping\rstatus", b"status\r", b"\rping", b"add intro.flac\rclear"])
        if kind == 6:  # near the line limit, both sides of it
            size = LINE_LIMIT + rng.randint(-12, 12)
            return (b"lsinfo " + b"a" * size)[:size]
        if kind == 7:  # too many arguments
            return b"find " + b" ".join([b"artist x"] * rng.randint(30, 60))
        return self.command_line().replace(b" ", b"\t", 1)

    def line(self) -> bytes:
        return self.raw_line() if self.rng.random() < 0.35 else self.command_line()

    def command_list(self) -> list[bytes]:
        """A command list (with or without list_OK) of hostile lines, at times nesting another
        list, holding `idle` or `noidle`, or never ending (a bad line ends it by closing)."""
        rng = self.rng
        begin = rng.choice([b"command_list_begin", b"command_list_ok_begin"])
        body = [self.command_line() for _ in range(rng.randint(0, 6))]
        for extra in rng.sample([b"command_list_begin", b"command_list_ok_begin", b"idle", b"idle player",
                                 b"noidle", b"ping", b"status", b"command_list_end x"], rng.randint(0, 2)):
            body.insert(rng.randint(0, len(body)), extra)
        return [begin, *body, b"command_list_end"]


class Closed(Exception):
    """The server closed the connection."""


class Reader:
    """Reads whole responses from a socket: lines, `binary: N` payloads, closes."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buffer = b""

    def _fill(self):
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise Closed()
        self.buffer += chunk

    def line(self) -> bytes:
        while b"\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def response(self, list_size: int | None = None) -> list[bytes]:
        """Lines up to the final `OK` or `ACK`; a binary payload is checked and dropped.
        Raises Closed when the server closes first."""
        lines = []
        while True:
            line = self.line()
            lines.append(line)
            if line == b"OK" or line.startswith(b"ACK "):
                check_response(lines, list_size)
                return lines
            if line.startswith(b"binary: "):
                size = int(line[8:])
                while len(self.buffer) < size + 1:
                    self._fill()
                assert self.buffer[size:size + 1] == b"\n", "binary data must end with a newline"
                self.buffer = self.buffer[size + 1:]


def check_response(lines: list[bytes], list_size: int | None):
    """Asserts the form of one response: `Key: value` lines (and `list_OK` in a list), then
    `OK` or a well-formed ACK whose index lies inside the list (0 outside one)."""
    *body, last = lines
    for line in body:
        assert PAIR.match(line) or (line == b"list_OK" and list_size is not None), f"malformed line {line!r}"
    if last == b"OK":
        return
    match = ACK.match(last)
    assert match, f"malformed ACK {last!r}"
    code, index = int(match.group(1)), int(match.group(2))
    assert code in ACK_CODES, f"unknown ACK code in {last!r}"
    assert index < max(list_size or 0, 1), f"ACK index outside the list in {last!r}"
