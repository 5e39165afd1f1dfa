#!/usr/bin/env python3
"""Client screens benchmark: what M.A.L.P., MPDroid, Cantata and myMPD send to load a screen,
replayed on Tonearm and Debian's MPD side by side (issue 23, goal 3).

For each client and each screen, the command sequence the client sends (read from its sources,
cited in SOURCES below; none of their code is copied) is replayed on one connection per client and
server: album artists, one artist's albums, one album's songs, the queue, a cover (albumart /
readpicture, chunked as the client chunks them) and search (one command per keystroke where the
client searches as you type). The values come from the generated library's plan
(`library_gen.py`): an album artist with several albums (not "Various Artists"), their largest
album (A) and another of theirs (B), the search word "night" typed letter by letter.

  library          `library_gen.generate(N)` (cached), then a copy of it made of hard links
                   (`tonearm-screens-library-N` beside it, cached too) to which this script adds
                   two pictures: a `cover.jpg` (80,000 bytes) in album A's folder, and an
                   embedded front cover (APIC, the same size) in the first track of album B,
                   written as a new file (the copy's link is replaced, the cached library is never
                   written). The song count and every tag stay those of the plan; library_gen's
                   VERSION and its cache are untouched
  servers          MPD, (the old Tonearm,) Tonearm, started at once on that copy, each scanning it;
                   then the same queue on each: the first 1,000 songs of the plan
  check run        each screen runs once on MPD, untimed: sequences that depend on answers
                   (MPDroid's per-album commands, Cantata's folder walk, the chunk offsets of a
                   cover) take their next command from MPD's answer. The commands so recorded are
                   then sent to each other server once, untimed, and every answer is compared with
                   MPD's (an ACK where MPD answered is a failure; differing counts of songs,
                   folders, tag values or picture bytes are listed as differences)
  timed runs       --repeat runs of each screen's recorded sequence, the servers taking turns
                   (the order rotating from run to run): the wall time from sending the first
                   command to the last byte of the last answer, and each command's own time
                   (commands with the same label summed within a run). The client re-arms
                   TCP_QUICKACK after each read, as in `library_bench.py`

Screens a client builds from a local copy of the library send nothing when opened: Cantata
(after its library load, `list genre` and one `lsinfo` per folder) and myMPD's album views (from
its album cache, built with windows of `search`) have a row for that load instead. Clients that
search only when the query is submitted have a "search (on submit)" row of one command.

The ratio column is MPD / Tonearm: above 1 Tonearm is faster. With --baseline-tonearm an older
Tonearm runs too; two columns more give its figure and new / old (below 1 the new build is faster).
"""
import math
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import baseline  # noqa: E402
import library_gen  # noqa: E402
import support.servers as servers  # noqa: E402
from library_bench import Client, Failed, log, quote, stop, value, wait_for_songs  # noqa: E402

# Where each sequence comes from (repository @ commit: path — function):
SOURCES = """
M.A.L.P.: github gateship-one/malp stops at 1.1.16 (2018, before its move to GitLab, no
  albumart); the sequences are those of SpiritCroc/malp @ 70778e8b (version 2.2, 2026):
  app/src/main/java/org/gateshipone/malp/mpdservice/mpdprotocol/MPDInterface.java —
    getAlbumArtists (getArtists first), getArtistAlbums, getArtistAlbumTracks,
    getCurrentPlaylistWindow, getAlbumArt (albumart, then readpicture; no binarylimit)
  …/mpdprotocol/MPDCommands.java, MPDCapabilities.java — the `group` clauses MPD 0.23 gets
  …/mpdservice/handlers/serverhandler/MPDArtworkHandler.java — album tracks, then the first one's art
  …/application/adapters/CurrentPlaylistAdapter.java — WINDOW_SIZE 500
  …/application/fragments/serverfragments/SearchFragment.java — search on submit; default type
    track (res/values/settings_values.xml), i.e. `search title`
MPDroid: abarisain/dmix @ 2c8f649e:
  JMPDComm/src/main/java/org/a0z/mpd/MPD.java — getArtists() (album artists, then artists),
    getAlbums(artist, sortByYear, trackCountNeeded) (artist round with fixAlbumArtists, then the
    album artist round; getAlbumDetails' `count` list, addAlbumPaths' getFirstTrack), getSongs(Album)
  JMPDComm/src/main/java/org/a0z/mpd/MPDCommand.java — every argument quoted
  JMPDComm/src/main/java/org/a0z/mpd/MPDPlaylist.java — refresh / getFullPlaylist: `playlistid`
  MPDroid/src/main/java/com/namelessdev/mpdroid/SearchActivity.java — `search any` on submit;
    fragments/AlbumsFragment.java — track counts shown by default; no cover from MPD
Cantata: CDrummond/cantata @ af04723c:
  mpd-interface/mpdconnection.cpp — loadLibrary / recursivelyListDir (every browse screen is
    then local), playListInfo, getCover (albumart on the song's folder, no binarylimit),
    search(field, value)
  widgets/itemview.cpp — delaySearchItems: search as you type, debounced 1000/750/500 ms
  gui/searchpage.cpp — setSearchCategories: the first (default) category is Artist
myMPD: jcorporation/myMPD @ 5cd955c1:
  src/mympd_api/tags.c — tag_list_legacy (MPD before 0.25): `list albumartist`
  src/mympd_worker/album_cache.c — album_cache_create (adv mode, the default): windows of 10,000
  src/mympd_api/albums.c — mympd_api_album_detail; src/mympd_client/search.c —
    append_search_expression_album (album_group_tag Date by default, lib/config/config.c)
  src/mympd_api/albumart.c — getcover_by_albumid (`search … window 0:1`), getcover_by_uri
    (albumart until a chunk of 0 bytes, then readpicture); src/mympd_client/connection.c and
    src/compile_time.h.in — `binarylimit 524288` on connecting, MPD_RESULTS_MAX 10000
  src/mympd_api/queue.c — mympd_api_queue_list: `status`, then the first page (limit 100)
  src/mympd_api/search.c; htdocs/js/viewSearch.js, searchExpression.js, globales.js — search on
    type 500 ms after a key, from 2 characters, `any contains`, sorted by Title, 100 a page
"""

QUEUE_LENGTH = 1000
SEARCH_WORD = "night"
COVER_BYTES = 80_000
COVERS_VERSION = "1"  # bump when the pictures the copy gets change
MYMPD_BINARYLIMIT = 524288
MYMPD_WINDOW = 10000
MALP_GROUPS = " group albumartist group albumartistsort group musicbrainz_albumid group date"
#: What myMPD enables before its album cache: its tags but Title, Track, Name (approximated).
MYMPD_ALBUM_TAGS = "Artist Album AlbumArtist Genre Date Disc"


@dataclass
class Step:
    label: str  # commands of one kind within a screen share a label; their times are summed
    command: str  # one command, or a whole command list
    binary: bool = False  # albumart / readpicture: the answer carries a chunk


@dataclass
class Answer:
    text: str  # the answer's lines, up to its OK or ACK (a binary chunk left out)
    data: bytes = b""
    closed: bool = False  # the server closed the connection instead of answering

    @property
    def ack(self) -> bool:
        return self.text.rstrip("\n").rsplit("\n", 1)[-1].startswith("ACK ")

    def values(self, key: str) -> list[str]:
        prefix = key + ": "
        return [line[len(prefix):] for line in self.text.splitlines() if line.startswith(prefix)]


class Session(Client):
    """A connection that reads whole answers, ACKs included, and the binary chunks of albumart
    and readpicture (found by their length, not by a final `OK` that the chunk may contain).
    `setup` is sent untimed on connecting (and on reconnecting)."""

    def __init__(self, port: int, timeout: float, setup=()):
        super().__init__(port, timeout)
        self.port, self.timeout, self.setup = port, timeout, list(setup)
        for command in self.setup:
            self.ask(command)

    def reopen(self):
        self.close()
        self.__init__(self.port, self.timeout, self.setup)

    def _more(self, answer: bytearray):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise Failed("connection closed")
        answer += chunk
        if self.quickack:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)

    def exchange(self, command: str, binary: bool = False) -> tuple[bytes, bytes]:
        """The answer's text (through its OK or ACK line) and its binary chunk."""
        self.sock.sendall(command.encode() + b"\n")
        answer = bytearray()
        while True:
            self._more(answer)
            if binary:
                found = _binary_chunk(answer)
                if found is not None:
                    head, size = found
                    while len(answer) < head + size + 4:
                        self._more(answer)
                    if answer[head + size:head + size + 4] != b"\nOK\n":
                        raise Failed(f"`{command}`: no OK after the binary chunk")
                    return bytes(answer[:head]) + b"OK\n", bytes(answer[head:head + size])
            if answer.endswith(b"\n"):
                last = answer[answer.rfind(b"\n", 0, len(answer) - 1) + 1:]
                if last == b"OK\n" or last.startswith(b"ACK "):
                    return bytes(answer), b""

    def ask(self, command: str, binary: bool = False) -> Answer:
        text, data = self.exchange(command, binary)
        return Answer(text.decode("utf-8", "replace"), data)



def _binary_chunk(answer: bytearray):
    """(offset of the chunk, its size) once the `binary: N` line has arrived, else None."""
    at = answer.find(b"binary: ")
    while at > 0 and answer[at - 1] != 0x0A:
        at = answer.find(b"binary: ", at + 1)
    if at < 0:
        return None
    end = answer.find(b"\n", at)
    if end < 0:
        return None
    return end + 1, int(answer[at + len(b"binary: "):end])


class Recorder:
    """Runs a screen on the reference server (MPD), keeping each command and its answer."""

    def __init__(self, session: Session):
        self.session = session
        self.steps: list[Step] = []
        self.answers: list[Answer] = []

    def __call__(self, label: str, command: str, binary: bool = False) -> Answer:
        try:
            answer = self.session.ask(command, binary)
        except (Failed, OSError):  # MPD closes a client whose answer outgrows its output buffer
            self.session.reopen()
            answer = Answer("", closed=True)
        self.steps.append(Step(label, command, binary))
        self.answers.append(answer)
        return answer


# ---------------------------------------------------------------- what is opened


@dataclass
class Picks:
    """The plan's values the screens open."""
    artist: str  # an album artist with at least two albums
    album: str  # their largest album: it gets a cover.jpg
    date: str
    first_song: str  # its first track (the file clients ask art for)
    art_album: str  # another of theirs: its first track gets an embedded picture
    art_date: str
    art_song: str
    queue: list[str]  # the first QUEUE_LENGTH songs of the plan
    word: str = SEARCH_WORD


def picks(plan) -> Picks:
    albums: dict[tuple[str, str], list] = {}
    for t in plan.tracks:
        albums.setdefault((t.albumartist, t.album), []).append(t)
    per_artist: dict[str, list[str]] = {}
    for artist, album in albums:
        if artist != "Various Artists":
            per_artist.setdefault(artist, []).append(album)
    songs = {a: sum(len(albums[(a, b)]) for b in names) for a, names in per_artist.items()}
    ranked = sorted((a for a, names in per_artist.items() if len(names) >= 2), key=lambda a: (songs[a], a))
    artist = ranked[int(len(ranked) * 0.75)]
    by_size = sorted(per_artist[artist], key=lambda b: (-len(albums[(artist, b)]), b))
    first, second = albums[(artist, by_size[0])], albums[(artist, by_size[1])]
    return Picks(artist, by_size[0], first[0].date, first[0].path, by_size[1], second[0].date,
                 second[0].path, [t.path for t in plan.tracks[:QUEUE_LENGTH]])


def folder(path: str) -> str:
    return path.rsplit("/", 1)[0]


# ---------------------------------------------------------------- the library with pictures


def picture() -> bytes:
    """COVER_BYTES of a JPEG's shape (SOI, JFIF header, seeded filler, EOI): servers send
    picture files as they are, without decoding them."""
    header = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    filler = random.Random("tonearm-screens-cover").randbytes(COVER_BYTES - len(header) - 2)
    return header + filler + b"\xff\xd9"


def with_apic(mp3: bytes, image: bytes) -> bytes:
    """The MP3 with an APIC frame (front cover, image/jpeg) appended to its ID3v2.4 tag."""
    if mp3[:4] != b"ID3\x04":
        raise RuntimeError("not an ID3v2.4 file")
    size = (mp3[6] << 21) | (mp3[7] << 14) | (mp3[8] << 7) | mp3[9]
    body, audio = mp3[10:10 + size], mp3[10 + size:]
    data = b"\x00image/jpeg\x00\x03\x00" + image
    frame = b"APIC" + library_gen._syncsafe(len(data)) + b"\x00\x00" + data
    return b"ID3\x04\x00\x00" + library_gen._syncsafe(len(body) + len(frame)) + body + frame + audio


def library_with_pictures(n: int, base: Path, the_picks: Picks) -> Path:
    """The music folder of the copy (see the module's documentation), made unless cached."""
    music, _ = library_gen.generate(n, base, log=log)
    home = base / f"tonearm-screens-library-{n}"
    marker, copy = home / "complete", home / "music"
    version = f"{library_gen.VERSION}/{COVERS_VERSION}"
    if marker.exists() and marker.read_text() == version:
        return copy
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    log(f"linking a copy of {n:,} tracks into {copy} …")
    subprocess.run(["cp", "-al", str(music), str(copy)], check=True)
    image = picture()
    (copy / folder(the_picks.first_song) / "cover.jpg").write_bytes(image)
    target = copy / the_picks.art_song
    tagged = with_apic(target.read_bytes(), image)
    target.unlink()  # a hard link to the cached library: replace it, never write through it
    target.write_bytes(tagged)
    marker.write_text(version)
    return copy


# ---------------------------------------------------------------- the screens, per client


def malp_art(ask, uri: str):
    """MPDInterface.getAlbumArt: albumart in MPD's default chunks, readpicture if it fails."""
    for verb in ("albumart", "readpicture"):
        size, offset = None, 0
        while size is None or offset < size:
            answer = ask(verb, f"{verb} {quote(uri)} {offset}", True)
            if answer.ack or not answer.values("size"):
                break
            size = int(answer.values("size")[0])
            offset += len(answer.data)
        if size:
            return


def malp_screens(p: Picks):
    def album_artists(ask):
        ask("list artist group MUSICBRAINZ_ARTISTID", "list artist group MUSICBRAINZ_ARTISTID")
        ask("list albumartist group MUSICBRAINZ_ARTISTID", "list albumartist group MUSICBRAINZ_ARTISTID")

    def albums(ask):
        ask("list album artist … group ×4", f"list album artist {quote(p.artist)}{MALP_GROUPS}")
        ask("list album albumartist … group ×4", f"list album albumartist {quote(p.artist)}{MALP_GROUPS}")

    def cover(album, song):
        def screen(ask):
            ask("find album", f"find album {quote(album)}")
            malp_art(ask, song)
        return screen

    return [
        ("album artists", album_artists),
        ("artist's albums", albums),
        ("album's songs", lambda ask: ask("find album", f"find album {quote(p.album)}")),
        ("queue", lambda ask: (ask("status", "status"), ask("playlistinfo 0:500", "playlistinfo 0:500"))),
        ("cover (cover.jpg)", cover(p.album, p.first_song)),
        ("cover (embedded)", cover(p.art_album, p.art_song)),
        ("search (on submit)", lambda ask: ask("search title", f"search title {quote(p.word)}")),
    ]


def command_list(commands: list[str]) -> str:
    return "\n".join(["command_list_ok_begin", *commands, "command_list_end"])


def per_command(answer: Answer, key: str) -> list[list[str]]:
    """The values of `key` in each command's part of a command_list_ok answer."""
    parts, current = [], []
    for line in answer.text.splitlines():
        if line == "list_OK":
            parts.append(current)
            current = []
        elif line.startswith(key + ": "):
            current.append(line[len(key) + 2:])
    return parts


def mpdroid_albums(ask, artist: str):
    """MPD.getAlbums(artist, false, true): the artist round, then the album artist round."""
    for round_ in ("artist", "albumartist"):
        command = f'list "album" {quote(artist)}' if round_ == "artist" else \
            f'list "album" "albumartist" {quote(artist)}'
        names = ask(f"list album ({round_})", command).values("Album")
        if not names:
            continue
        albums = [(name, "albumartist", artist) for name in names]
        if round_ == "artist":  # fixAlbumArtists
            listed = per_command(ask("list albumartist artist … album … (list)", command_list(
                [f'list "albumartist" "artist" {quote(artist)} "album" {quote(n)}' for n in names])),
                "AlbumArtist")
            albums, split = [], []
            for name, album_artists in zip(names, listed):
                found = sorted(album_artists)
                albums.append((name, "albumartist", found[0]) if found and found[0] else (name, "artist", artist))
                split += [(name, "albumartist", other) for other in found[1:]]
            albums += split
        ask(f"count album … ({round_}; list)", command_list(
            [f'count "album" {quote(n)} "{tag}" {quote(who)}' for n, tag, who in albums]))
        for name, tag, who in albums:  # addAlbumPaths / getFirstTrack
            first = f'find "{tag}" {quote(who)} "album" {quote(name)} "track" '
            if not ask(f"find … track 1 ({round_})", first + '"1"').values("file"):
                ask(f"find … track 01 ({round_})", first + '"01"')


def mpdroid_screens(p: Picks):
    def artists(ask):
        ask("list albumartist", 'list "albumartist"')
        ask("list artist", 'list "artist"')

    return [
        ("album artists", artists),
        ("artist's albums", lambda ask: mpdroid_albums(ask, p.artist)),
        ("album's songs", lambda ask: ask("find album albumartist",
                                          f'find "album" {quote(p.album)} "albumartist" {quote(p.artist)}')),
        ("queue", lambda ask: (ask("status", "status"), ask("playlistid", "playlistid"))),
        ("search (on submit)", lambda ask: ask("search any", f'search "any" {quote(p.word)}')),
    ]


def cantata_walk(ask, path: str):
    """recursivelyListDir: one lsinfo per folder, depth first."""
    depth = path.count("/") + 1 if path else 0
    label = ("lsinfo (top)", "lsinfo (artist folders)", "lsinfo (album folders)", "lsinfo (deeper)")[min(depth, 3)]
    answer = ask(label, f"lsinfo {quote(path)}" if path else "lsinfo")
    for sub in answer.values("directory"):
        cantata_walk(ask, sub)


def cantata_art(ask, song: str):
    """MPDConnection::getCover: albumart on the song's folder (with its slash) until done."""
    size, offset = None, 0
    while size is None or offset < size:
        answer = ask("albumart (folder)", f"albumart {quote(folder(song) + '/')} {offset}", True)
        if answer.ack or not answer.values("size"):
            return
        size = int(answer.values("size")[0])
        offset += len(answer.data)


def cantata_screens(p: Picks):
    def library(ask):
        ask("list genre", "list genre")
        cantata_walk(ask, "")

    def typing(ask):
        for length in range(1, len(p.word) + 1):
            ask(f"search artist (keystroke {length})", f"search artist {quote(p.word[:length])}")

    return [
        ("library load (every browse screen)", library),
        ("queue", lambda ask: (ask("status", "status"), ask("playlistinfo", "playlistinfo"))),
        ("cover (cover.jpg)", lambda ask: cantata_art(ask, p.first_song)),
        ("cover (embedded)", lambda ask: cantata_art(ask, p.art_song)),
        ("search as you type", typing),
    ]


def expression_value(text: str) -> str:
    """myMPD's escape_mpd_search_expression: a value in single quotes."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def mympd_album(p: Picks, album: str, date: str) -> str:
    return (f"((AlbumArtist == {expression_value(p.artist)}) AND (Album == {expression_value(album)})"
            f" AND (Date == {expression_value(date)}))")


def mympd_art(ask, uri: str):
    """getcover_by_uri: albumart until a chunk of 0 bytes; readpicture likewise if none."""
    for verb in ("albumart", "readpicture"):
        offset = 0
        while True:
            answer = ask(verb, f"{verb} {quote(uri)} {offset}", True)
            if answer.ack or not answer.data:
                break
            offset += len(answer.data)
        if offset:
            return


def mympd_screens(p: Picks):
    def album_cache(ask):
        ask("tagtypes clear, enable (list)",
            "\n".join(["command_list_begin", "tagtypes clear", f"tagtypes enable {MYMPD_ALBUM_TAGS}", "command_list_end"]))
        start = 0
        while True:
            expression = quote("((Album != '') AND (AlbumArtist != ''))")
            found = ask("search … window", f"search {expression} window {start}:{start + MYMPD_WINDOW}").values("file")
            start += MYMPD_WINDOW
            if len(found) < MYMPD_WINDOW:
                return

    def cover(album, date):
        def screen(ask):
            uri = ask("search album window 0:1", f"search {quote(mympd_album(p, album, date))} window 0:1").values("file")
            mympd_art(ask, uri[0] if uri else "")
        return screen

    def typing(ask):
        for length in range(2, len(p.word) + 1):
            expression = quote(f"((any contains {expression_value(p.word[:length])}))")
            ask(f"search any contains (keystroke {length})", f"search {expression} sort Title window 0:100")

    return [
        ("album artists", lambda ask: ask("list albumartist", "list albumartist")),
        ("album cache (artist's albums, albums grid)", album_cache),
        ("album's songs", lambda ask: ask("find album … sort Disc window",
                                          f"find {quote(mympd_album(p, p.album, p.date))} sort Disc window 0:{MYMPD_WINDOW}")),
        ("queue", lambda ask: (ask("status", "status"), ask("playlistinfo 0:100", "playlistinfo 0:100"))),
        ("cover (cover.jpg)", cover(p.album, p.date)),
        ("cover (embedded)", cover(p.art_album, p.art_date)),
        ("search as you type", typing),
    ]


#: client -> (the screens for the picks, commands sent once on connecting, untimed)
CLIENTS = {
    "M.A.L.P.": (malp_screens, []),
    "MPDroid": (mpdroid_screens, []),
    "Cantata": (cantata_screens, []),
    "myMPD": (mympd_screens, [f"binarylimit {MYMPD_BINARYLIMIT}"]),
}
#: commands sent after each run of a screen, untimed, to leave the connection as it was
CLEANUP = {"album cache (artist's albums, albums grid)": ["tagtypes all"]}


# ---------------------------------------------------------------- checking and timing

SIGNATURE_KEYS = ("file", "directory", "Album", "AlbumArtist", "Artist", "Genre", "Title", "Id", "list_OK")


def signature(answer: Answer) -> dict:
    """What two servers' answers must share: ACK or not, the counts of songs, folders and tag
    values, the figures of `count` and `status`, a chunk's size."""
    if answer.ack:
        return {"ACK": True}
    lines = answer.text.splitlines()
    keys = Counter("list_OK" if line == "list_OK" else line.split(": ", 1)[0] for line in lines)
    result = {key: keys[key] for key in SIGNATURE_KEYS if keys[key]}
    for key in ("songs", "playtime", "playlistlength", "size"):
        if answer.values(key):
            result[key] = answer.values(key)[0]
    if answer.data:
        result["binary bytes"] = len(answer.data)
    return result


def differences(steps: list[Step], reference: list[Answer], answers: list[Answer]) -> list[str]:
    out = []
    for step, want, got in zip(steps, reference, answers):
        if want.closed:
            continue
        a, b = signature(want), signature(got)
        if a != b:
            lines = step.command.splitlines()
            shown = lines[1] + " …" if lines[0].startswith("command_list") else lines[0]
            out.append(f"`{shown[:80]}`: MPD {a}, this server {b}")
    return out


def replay(session: Session, steps: list[Step], skip=frozenset()) -> tuple[float, dict[str, float]]:
    """The sequence's wall time and each label's summed time, without the steps in `skip`."""
    per: dict[str, float] = {}
    start = time.perf_counter()
    for index, step in enumerate(steps):
        if index in skip:
            continue
        before = time.perf_counter()
        session.exchange(step.command, step.binary)
        per[step.label] = per.get(step.label, 0.0) + time.perf_counter() - before
    return time.perf_counter() - start, per


@dataclass
class Measured:
    steps: list[Step]
    totals: dict  # kind -> [seconds] or None when it failed
    per_step: dict  # kind -> {label: [seconds]}
    notes: list[str]
    closed: frozenset = frozenset()  # the steps at which MPD closed the connection (not timed)


def measure_screen(sessions: dict, screen, cleanup: list[str], repeat: int) -> Measured:
    """Records `screen` on MPD, checks it on the other servers, then times the runs."""
    recorder = Recorder(sessions["mpd"])
    screen(recorder)
    for command in cleanup:
        sessions["mpd"].ask(command)
    if any(answer.ack and step.command.split()[0] not in ("albumart", "readpicture")
           for step, answer in zip(recorder.steps, recorder.answers)):
        raise Failed("MPD answered ACK to " + ", ".join(
            s.command[:60] for s, a in zip(recorder.steps, recorder.answers) if a.ack))
    closed = frozenset(i for i, answer in enumerate(recorder.answers) if answer.closed)
    notes = [f"MPD closed the connection at `{recorder.steps[i].command[:60]}`" for i in sorted(closed)]
    totals, per_step = {"mpd": []}, {"mpd": {}}
    for kind, session in sessions.items():
        if kind == "mpd":
            continue
        answers = [session.ask(step.command, step.binary) for step in recorder.steps]
        for command in cleanup:
            session.ask(command)
        wrong = [f"{kind}: {d}" for d in differences(recorder.steps, recorder.answers, answers)]
        notes += wrong[:5] + ([f"{kind}: … {len(wrong) - 5} more"] if len(wrong) > 5 else [])
        failed = any(b.ack and not a.ack and not a.closed for a, b in zip(recorder.answers, answers))
        totals[kind], per_step[kind] = (None, None) if failed else ([], {})
    kinds = [k for k in sessions if totals[k] is not None]
    for run in range(repeat):
        for kind in kinds[run % len(kinds):] + kinds[:run % len(kinds)]:
            total, per = replay(sessions[kind], recorder.steps, closed if kind == "mpd" else frozenset())
            for command in cleanup:
                sessions[kind].ask(command)
            totals[kind].append(total)
            for label, seconds in per.items():
                per_step[kind].setdefault(label, []).append(seconds)
    return Measured(recorder.steps, totals, per_step, notes, closed)


def fill_queue(session: Session, songs: list[str]):
    session.ask("clear")
    session.ask("\n".join(["command_list_begin", *(f"add {quote(s)}" for s in songs), "command_list_end"]))
    length = session.ask("status").values("playlistlength")
    if length != [str(len(songs))]:
        raise Failed(f"the queue holds {length} songs, expected {len(songs):,}")


def start_servers(kinds, music: Path, size: int, args, old_binary, works: list, started: dict):
    """Starts every server at once (each scans the copy), then waits for each scan."""
    for kind in kinds:
        work = Path(tempfile.mkdtemp(prefix=f"tonearm-screens-bench-{kind}-"))
        works.append(work)
        if kind == "mpd":
            server = servers.MPDServer(work, music_dir=music)
        else:
            binary = old_binary if kind == baseline.OLD else args.tonearm
            server = servers.TonearmServer(work, binary=binary, music_dir=music)
        server.start(timeout=60)
        started[kind] = server
    for kind, server in started.items():
        wait_for_songs(server, size, args.scan_timeout, scanning=True)
        log(f"  {kind}: {size:,} songs scanned")


def bench_size(size: int, kinds, args, old_binary) -> tuple[list, list]:
    """(rows, notes) of one library size: per client and screen a Measured or an error."""
    _, plan = library_gen.generate(size, Path(args.library_base), log=log)
    the_picks = picks(plan)
    music = library_with_pictures(size, Path(args.library_base), the_picks)
    log(f"{size:,} tracks: artist {the_picks.artist!r}, albums {the_picks.album!r} (cover.jpg) "
        f"and {the_picks.art_album!r} (embedded picture)")
    works, started, results, notes = [], {}, [], []
    try:
        start_servers(kinds, music, size, args, old_binary, works, started)
        for kind, server in started.items():
            session = Session(server.port, 120)
            try:
                fill_queue(session, the_picks.queue)
            finally:
                session.close()
        for client, (make, setup) in CLIENTS.items():
            sessions = {kind: Session(server.port, 300, setup) for kind, server in started.items()}
            try:
                for name, screen in make(the_picks):
                    log(f"  {client}: {name}")
                    try:
                        measured = measure_screen(sessions, screen, CLEANUP.get(name, []), args.repeat)
                    except (Failed, OSError, ValueError) as error:
                        notes.append(f"{size:,} tracks, {client}, {name}: {error}")
                        log(f"    failed: {error}")
                        continue
                    notes += [f"{size:,} tracks, {client}, {name}: {n}" for n in measured.notes]
                    results.append((size, client, name, measured))
            finally:
                for session in sessions.values():
                    session.close()
    finally:
        for server in started.values():
            stop(server)
        for work in works:
            shutil.rmtree(work, ignore_errors=True)
    return results, notes


# ---------------------------------------------------------------- the tables


def cell(times) -> str:
    if times is None:
        return "failed"
    ordered = sorted(times)
    p90 = ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]
    return f"{statistics.median(times) * 1000:.2f} (p90 {p90 * 1000:.2f})"


def median(times):
    return statistics.median(times) if times else None


def ratio(a, b) -> str:
    return f"{a / b:.2f}" if a and b else "–"


def screen_rows(results, with_old: bool) -> list:
    rows = []
    for size, client, name, m in results:
        mpd, new = (None if m.closed else m.totals.get("mpd")), m.totals.get("tonearm")
        shown = f"closed the connection ({len(m.closed)} of {len(m.steps)} commands)" if m.closed else cell(mpd)
        row = [f"{size:,}", client, name, str(len(m.steps)), shown, cell(new),
               ratio(median(mpd) if mpd else None, median(new) if new else None)]
        if with_old:
            old = m.totals.get(baseline.OLD)
            row += [cell(old), baseline.ratio(median(new) if new else None, median(old) if old else None)]
        rows.append(tuple(row))
    return rows


def step_rows(results, only_slower: bool) -> list:
    """Each label's summed time per run, for the screens where Tonearm is slower (or all)."""
    rows = []
    for size, client, name, m in results:
        mpd, new = median(m.totals.get("mpd")), median(m.totals.get("tonearm") or [])
        if only_slower and not (m.closed or (mpd and new and new > mpd)):
            continue
        counts = Counter(step.label for step in m.steps)
        closed = {m.steps[i].label for i in m.closed}
        for label in counts:
            a = median(m.per_step["mpd"].get(label, []))
            b = median((m.per_step.get("tonearm") or {}).get(label, []))
            shown = "closed" if label in closed else f"{a * 1000:.2f}" if a else "–"
            rows.append((f"{size:,}", client, name, f"{label} ×{counts[label]}",
                         shown, f"{b * 1000:.2f}" if b else "failed", ratio(a, b) if label not in closed else "–"))
    return rows


HEADER = ("tracks", "client", "screen", "commands", "MPD ms, median (p90)", "Tonearm ms, median (p90)",
          "MPD / Tonearm (>1: Tonearm faster)")
STEP_HEADER = ("tracks", "client", "screen", "command (×count in the sequence)", "MPD ms (median)",
               "Tonearm ms (median)", "MPD / Tonearm")


def main():
    parser = baseline.library_parser(__doc__, "library sizes in tracks, comma-separated", scan_timeout=600)
    parser.add_argument("--repeat", type=int, default=10, help="timed runs of each screen")
    parser.add_argument("--all-steps", action="store_true",
                        help="time table of every command, not only of the screens where Tonearm is slower")
    parser.add_argument("--delayed-ack", action="store_true", help="leave the client's delayed ACKs on")
    parser.add_argument("--sources", action="store_true", help="print where each sequence comes from and exit")
    args = parser.parse_args()
    if args.sources:
        print(SOURCES)
        return 0
    old_binary = baseline.binary(parser, args)
    Client.quickack = not args.delayed_ack
    baseline.current(parser, args)
    kinds = baseline.with_old(["mpd", "tonearm"], old_binary)
    results, notes = [], []
    for size in [int(s.replace("_", "")) for s in args.sizes.split(",") if s]:
        try:
            got, noted = bench_size(size, kinds, args, old_binary)
        except (Failed, OSError, RuntimeError) as error:
            notes.append(f"{size:,} tracks: {error}")
            log(f"{size:,} tracks: {error}")
            continue
        results += got
        notes += noted
    with_old = baseline.OLD in kinds
    baseline.print_table(HEADER + (baseline.COLUMNS if with_old else ()), screen_rows(results, with_old))
    print("\nEach command's time (summed over the commands of one label within a run)"
          + ("" if args.all_steps else ", for the screens where Tonearm is slower") + ":")
    baseline.print_table(STEP_HEADER, step_rows(results, not args.all_steps))
    if notes:
        print("\nDifferences and failures:")
        for note in notes:
            print(f"- {note}")
    return 1 if not results else 0


if __name__ == "__main__":
    sys.exit(main())
