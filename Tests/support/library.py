"""A fixture music library made with the `ffmpeg` CLI, for database tests against Tonearm and MPD.

`generate(root)` writes the library into `root` (once: a marker file keeps a finished library) and
returns a `Library` that knows what it made. Content is deterministic: ffmpeg runs bit-exact, the
audio is a 1 s sine at low sample rates, the covers are test patterns, and every file and
directory gets a fixed modification time (`MTIMES`), so `Last-Modified` lines and
`modified-since` filters give the same answer on every run.

True multi-value tags: ffmpeg keeps one value per key, so the FLAC files' VORBIS_COMMENT block is
written here in Python (`write_flac_comments`), with repeated keys (two ARTIST, two GENRE).

Layout (URIs relative to the music folder):

    intro.flac                                   root song, FLAC, tagged
    untagged.wav                                 root song, WAV without any tags
    mix.m3u                                      playlist file in the music folder
    notes.txt                                    not audio
    Björk/Debut/01 Human Behaviour.flac          FLAC; multi-value Genre; Track 1/11; Disc 1/2;
                                                 MusicBrainz ids; Composer; embedded PNG picture
    Björk/Debut/02 Crying.mp3                    MP3, ID3v2.3; Track 2/11
    Björk/Debut/cover.jpg                        folder cover (JPEG, larger than 8192 bytes)
    Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg  Ogg Vorbis
    Sigur Rós/Ágætis byrjun/02 Starálfur.opus    Opus
    Sigur Rós/Ágætis byrjun/cover.png            folder cover (PNG, small)
    坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a        M4A/AAC; embedded JPEG cover
    坂本龍一/音楽図鑑/folder.jpg                   only folder.jpg (Tonearm accepts it; MPD does not)
    Various/Quotes/01 Quotes.mp3                 MP3, ID3v2.4; quotes and a backslash in values
    Various/Duets/01 Duet.flac                   FLAC with two Artist and two Genre values
    Various/Field/wind.wav                       WAV with RIFF INFO tags
    Various/Field/playlist.m3u                   a playlist in a sub-directory
    Various/broken.flac                          corrupt: "fLaC" and garbage
    Compilations/A/Greatest Hits/01 Song A.flac  album "Greatest Hits", AlbumArtist "Artist A"
    Compilations/B/Greatest Hits/01 Song B.flac  album "Greatest Hits", AlbumArtist "Artist B"
    Compilations/B/Greatest Hits/02 Song C.flac  (3 levels deep; Track 10, to test numeric sort)
    Various/Sorting/{a,B,c,d,e}.flac             probes of MPD's song order in a directory
    Various/Sorting/{lower,Upper}/               probes of its directory order
    Empty/                                       an empty directory (MPD does not list it)
"""
import os
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

VERSION = "5"  # bump when the content changes; a cached library with another version is rebuilt
MARKER = ".fixture-library"  # next to the library (root.parent / (root.name + MARKER)), not inside
BASE_TIME = 1_600_000_000  # 2020-09-13T12:26:40Z
FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
BITEXACT = ["-fflags", "+bitexact", "-flags:a", "+bitexact"]

MB = {
    "MUSICBRAINZ_ARTISTID": "87c5dedd-371d-4a53-9f7f-80522fb7f3cb",
    "MUSICBRAINZ_ALBUMID": "9f3c3a6a-5d2f-4b66-8f0d-7b1c2c1a1b01",
    "MUSICBRAINZ_ALBUMARTISTID": "87c5dedd-371d-4a53-9f7f-80522fb7f3cb",
    "MUSICBRAINZ_TRACKID": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
}


@dataclass
class Song:
    uri: str
    format: str  # the container, for the reader: flac, mp3, ogg, opus, m4a, wav
    tags: list[tuple[str, str]] = field(default_factory=list)  # as written, in order
    mtime: int = 0


@dataclass
class Library:
    root: Path
    songs: dict[str, Song]
    other_files: list[str]  # covers, playlists, text, the corrupt file
    covers: dict[str, str]  # directory URI -> cover file URI (every cover-ish file written)

    def path(self, uri: str) -> Path:
        return self.root / uri

    def song_uris(self) -> list[str]:
        return sorted(self.songs)


# The songs: (uri, kind, tags as (KEY, value) pairs in the order written). Keys are the
# container's own names (Vorbis comment names for FLAC, ffmpeg metadata keys otherwise).
SONGS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("intro.flac", "flac", [("TITLE", "Intro"), ("ARTIST", "Tonearm"), ("ALBUM", "Fixtures"),
                            ("DATE", "2024"), ("TRACKNUMBER", "1")]),
    ("untagged.wav", "wav", []),
    ("Björk/Debut/01 Human Behaviour.flac", "flac", [
        ("ARTIST", "Björk"), ("ALBUMARTIST", "Björk"), ("ALBUM", "Debut"), ("TITLE", "Human Behaviour"),
        ("TRACKNUMBER", "1/11"), ("DISCNUMBER", "1/2"), ("DATE", "1993-06-05"), ("GENRE", "Pop"),
        ("GENRE", "Electronic"), ("COMPOSER", "Björk Guðmundsdóttir"), ("COMMENT", "first track"),
        *[(key, value) for key, value in MB.items()]]),
    ("Björk/Debut/02 Crying.mp3", "mp3v3", [
        ("artist", "Björk"), ("album_artist", "Björk"), ("album", "Debut"), ("title", "Crying"),
        ("track", "2/11"), ("disc", "1/2"), ("date", "1993"), ("genre", "Pop")]),
    ("Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg", "ogg", [
        ("ARTIST", "Sigur Rós"), ("ALBUM", "Ágætis byrjun"), ("TITLE", "Svefn-g-englar"),
        ("TRACKNUMBER", "1"), ("DATE", "1999"), ("GENRE", "Post-Rock")]),
    ("Sigur Rós/Ágætis byrjun/02 Starálfur.opus", "opus", [
        ("ARTIST", "Sigur Rós"), ("ALBUM", "Ágætis byrjun"), ("TITLE", "Starálfur"),
        ("TRACKNUMBER", "2"), ("DATE", "1999"), ("GENRE", "Post-Rock")]),
    ("坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a", "m4a", [
        ("artist", "坂本龍一"), ("album_artist", "坂本龍一"), ("album", "音楽図鑑"), ("title", "チベタン・ダンス"),
        ("track", "3/12"), ("disc", "2/2"), ("date", "1984"), ("genre", "Electronic"),
        ("composer", "坂本龍一")]),
    ("Various/Quotes/01 Quotes.mp3", "mp3v4", [
        ("artist", "O'Brien"), ("album", 'The "Quoted" Album'), ("title", 'Say "hi" and it\'s a back\\slash'),
        ("track", "1"), ("genre", "Spoken")]),
    ("Various/Duets/01 Duet.flac", "flac", [
        ("ARTIST", "Artist A"), ("ARTIST", "Artist B"), ("ALBUM", "Duets"), ("TITLE", "Duet"),
        ("GENRE", "Rock"), ("GENRE", "Jazz"), ("TRACKNUMBER", "1"), ("DATE", "2001")]),
    ("Various/Field/wind.wav", "wav", [("title", "Wind"), ("artist", "Nature"), ("album", "Field"),
                                        ("genre", "Ambient"), ("date", "2010")]),
    ("Compilations/A/Greatest Hits/01 Song A.flac", "flac", [
        ("ARTIST", "Artist A"), ("ALBUMARTIST", "Artist A"), ("ALBUM", "Greatest Hits"),
        ("TITLE", "Song A"), ("TRACKNUMBER", "1"), ("DATE", "2005")]),
    ("Compilations/B/Greatest Hits/01 Song B.flac", "flac", [
        ("ARTIST", "Artist B"), ("ALBUMARTIST", "Artist B"), ("ALBUM", "Greatest Hits"),
        ("TITLE", "Song B"), ("TRACKNUMBER", "2"), ("DATE", "2006")]),
    ("Compilations/B/Greatest Hits/02 Song C.flac", "flac", [
        ("ARTIST", "Artist B"), ("ALBUMARTIST", "Artist B"), ("ALBUM", "Greatest Hits"),
        ("TITLE", "Song C"), ("TRACKNUMBER", "10"), ("DATE", "2006")]),
    # How MPD orders songs inside a directory: by Album, then Disc, then Track (numeric), then
    # file name; and directories by name (case and collation probes: "alpha" vs "Beta").
    ("Various/Sorting/a.flac", "flac", [("TITLE", "a"), ("ALBUM", "alpha"), ("TRACKNUMBER", "2")]),
    ("Various/Sorting/B.flac", "flac", [("TITLE", "B"), ("ALBUM", "alpha"), ("TRACKNUMBER", "2")]),
    ("Various/Sorting/c.flac", "flac", [("TITLE", "c"), ("ALBUM", "Beta"), ("TRACKNUMBER", "1")]),
    ("Various/Sorting/d.flac", "flac", [("TITLE", "d"), ("ALBUM", "alpha"), ("TRACKNUMBER", "10")]),
    ("Various/Sorting/e.flac", "flac", [("TITLE", "e"), ("ALBUM", "alpha"), ("TRACKNUMBER", "9")]),
    ("Various/Sorting/lower/x.flac", "flac", [("TITLE", "x")]),
    ("Various/Sorting/Upper/y.flac", "flac", [("TITLE", "y")]),
]

# Every written path gets a fixed mtime: BASE_TIME + its index here * one day (songs first, in
# SONGS order, then these), so sorting by Last-Modified is the SONGS order.
OTHER_FILES = ["mix.m3u", "notes.txt", "Björk/Debut/cover.jpg", "Sigur Rós/Ágætis byrjun/cover.png",
               "坂本龍一/音楽図鑑/folder.jpg", "Various/Field/playlist.m3u", "Various/broken.flac"]

ENCODE = {
    "flac": ["-ar", "8000", "-c:a", "flac"],
    "mp3v3": ["-ar", "8000", "-c:a", "libmp3lame", "-b:a", "16k", "-id3v2_version", "3", "-write_xing", "0"],
    "mp3v4": ["-ar", "8000", "-c:a", "libmp3lame", "-b:a", "16k", "-id3v2_version", "4", "-write_xing", "0"],
    "ogg": ["-ar", "8000", "-c:a", "libvorbis", "-q:a", "0"],
    "opus": ["-ar", "48000", "-c:a", "libopus", "-b:a", "16k"],
    "m4a": ["-ar", "8000", "-c:a", "aac", "-b:a", "16k"],
    "wav": ["-ar", "8000", "-c:a", "pcm_s16le"],
}


def run(args):
    subprocess.run(FFMPEG + args, check=True)


def make_image(path: Path, size: str, quality: list[str]):
    path.parent.mkdir(parents=True, exist_ok=True)
    run(["-f", "lavfi", "-i", f"testsrc=s={size}:d=1:r=1", "-frames:v", "1", *quality, "-bitexact",
         "-fflags", "+bitexact", "-flags:v", "+bitexact", str(path)])


def encode(path: Path, kind: str, tags: list[tuple[str, str]], picture: Path | None = None):
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = [] if kind == "flac" else [a for k, v in tags for a in ("-metadata", f"{k}={v}")]
    inputs = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=1"]
    maps = []
    if picture is not None and kind != "flac":
        inputs += ["-i", str(picture)]
        maps = ["-map", "0:a", "-map", "1:v", "-c:v", "copy", "-disposition:v", "attached_pic"]
    container = {"mp3v3": "mp3", "mp3v4": "mp3", "ogg": "ogg", "opus": "opus", "m4a": "ipod"}.get(kind)
    fmt = ["-f", container] if container else []
    run([*inputs, *maps, "-ac", "1", *ENCODE[kind], *metadata, *BITEXACT, *fmt, str(path)])
    if kind == "flac":
        write_flac_comments(path, tags, picture)


def _flac_blocks(data: bytes) -> tuple[list[tuple[int, bytes]], bytes]:
    assert data[:4] == b"fLaC", "not a FLAC file"
    blocks, pos = [], 4
    while True:
        header = data[pos]
        length = int.from_bytes(data[pos + 1:pos + 4], "big")
        blocks.append((header & 0x7F, data[pos + 4:pos + 4 + length]))
        pos += 4 + length
        if header & 0x80:
            return blocks, data[pos:]


def _picture_block(picture: Path) -> bytes:
    mime = b"image/png" if picture.suffix == ".png" else b"image/jpeg"
    image = picture.read_bytes()
    return (struct.pack(">II", 3, len(mime)) + mime + struct.pack(">I", 0)
            + struct.pack(">IIIII", 64, 64, 24, 0, len(image)) + image)


def embedded_picture(path: Path) -> bytes:
    """The image data of a FLAC file's PICTURE block, as `readpicture` must return it."""
    blocks, _ = _flac_blocks(path.read_bytes())
    body = next(body for kind, body in blocks if kind == 6)
    pos = 8 + struct.unpack(">I", body[4:8])[0]  # past the type and the MIME type
    pos += 4 + struct.unpack(">I", body[pos:pos + 4])[0] + 16  # the description; size and colours
    length = struct.unpack(">I", body[pos:pos + 4])[0]
    return body[pos + 4:pos + 4 + length]


def write_flac_comments(path: Path, tags: list[tuple[str, str]], picture: Path | None = None):
    """Replaces the FLAC file's VORBIS_COMMENT (and PICTURE) blocks: one comment per pair, so a
    repeated key is a true multi-value tag; no comments at all when `tags` is empty."""
    blocks, audio = _flac_blocks(path.read_bytes())
    kept = [(kind, body) for kind, body in blocks if kind not in (1, 4, 6)]  # drop padding too
    vendor = b"Tonearm fixture"
    comments = [f"{k}={v}".encode() for k, v in tags]
    body = struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", len(comments))
    body += b"".join(struct.pack("<I", len(c)) + c for c in comments)
    if tags:
        kept.append((4, body))
    if picture is not None:
        kept.append((6, _picture_block(picture)))
    out = bytearray(b"fLaC")
    for index, (kind, body) in enumerate(kept):
        last = 0x80 if index == len(kept) - 1 else 0
        out += bytes([last | kind]) + len(body).to_bytes(3, "big") + body
    path.write_bytes(bytes(out) + audio)


def generate(root: Path) -> Library:
    """Writes the library into `root` unless a finished one of this VERSION is there already."""
    root = Path(root)
    library = describe(root)
    marker = root.parent / (root.name + MARKER)
    if marker.exists() and marker.read_text() == VERSION:
        return library
    marker.unlink(missing_ok=True)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    work = root.parent / (root.name + ".work")
    work.mkdir(exist_ok=True)
    embedded_png = work / "embedded.png"
    embedded_jpg = work / "embedded.jpg"
    make_image(embedded_png, "64x64", [])
    make_image(embedded_jpg, "96x96", ["-q:v", "5"])
    make_image(root / "Björk/Debut/cover.jpg", "320x240", ["-q:v", "2"])
    make_image(root / "Sigur Rós/Ágætis byrjun/cover.png", "32x32", [])
    make_image(root / "坂本龍一/音楽図鑑/folder.jpg", "48x48", ["-q:v", "5"])
    pictures = {"Björk/Debut/01 Human Behaviour.flac": embedded_png,
                "Björk/Debut/02 Crying.mp3": embedded_jpg,
                "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a": embedded_jpg}
    for uri, kind, tags in SONGS:
        encode(root / uri, kind, tags, pictures.get(uri))
    (root / "mix.m3u").write_text("intro.flac\nBjörk/Debut/02 Crying.mp3\n")
    (root / "Various/Field/playlist.m3u").write_text("wind.wav\n")
    (root / "notes.txt").write_text("Not music.\n")
    (root / "Various/broken.flac").write_bytes(b"fLaC" + bytes((i * 7 + 3) % 256 for i in range(3000)))
    (root / "Empty").mkdir()
    shutil.rmtree(work)
    for index, uri in enumerate([uri for uri, _, _ in SONGS] + OTHER_FILES):
        os.utime(root / uri, (BASE_TIME + index * 86400,) * 2)
    directories = sorted({p for p in root.rglob("*") if p.is_dir()}, key=lambda p: -len(p.parts))
    for directory in directories + [root]:
        os.utime(directory, (BASE_TIME,) * 2)
    marker.write_text(VERSION)
    return library


def describe(root: Path) -> Library:
    """What `generate` makes, without writing anything."""
    names = [uri for uri, _, _ in SONGS] + OTHER_FILES
    songs = {uri: Song(uri, kind.removesuffix("v3").removesuffix("v4"), tags, BASE_TIME + names.index(uri) * 86400)
             for uri, kind, tags in SONGS}
    covers = {"Björk/Debut": "Björk/Debut/cover.jpg", "Sigur Rós/Ágætis byrjun": "Sigur Rós/Ágætis byrjun/cover.png",
              "坂本龍一/音楽図鑑": "坂本龍一/音楽図鑑/folder.jpg"}
    return Library(Path(root), songs, list(OTHER_FILES), covers)


def copy(library: Library, destination: Path) -> Library:
    """A private copy (for tests that change files), with the same mtimes."""
    shutil.copytree(library.root, destination, copy_function=shutil.copy2)
    for source in [p for p in library.root.rglob("*") if p.is_dir()] + [library.root]:
        st = source.stat()
        os.utime(destination / source.relative_to(library.root), (st.st_atime, st.st_mtime))
    return describe(destination)


if __name__ == "__main__":
    import sys
    made = generate(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/tonearm-fixture-library"))
    print(made.root)
    for uri in made.song_uris():
        print(" ", uri)


# Helpers for tests that talk to a server on this library.

def wait_for_scan(connection, timeout: float = 60, songs: bool = True):
    """Waits until no update job runs (`status` has no `updating_db`) and, with `songs`, `stats`
    reports songs; raises AssertionError on timeout."""
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = connection.command("status")
        if status and status[-1] == "OK" and not any(line.startswith("updating_db:") for line in status):
            stats = connection.command("stats")
            if not songs or any(line.startswith("songs:") and line != "songs: 0" for line in stats):
                return
        time.sleep(0.05)
    raise AssertionError("the database update did not finish")


def read_binary(connection, command: str) -> tuple[list[str], bytes | None, str]:
    """Sends a command whose answer may hold `binary: N` + N bytes + newline (§1.7). Returns
    (the lines before the data, the data or None, the final `OK`/`ACK` line)."""
    connection.send(command.encode() + b"\n")
    lines = []
    while True:
        line = connection.read_line()
        if line is None:
            return lines, None, "<closed>"
        if line == "OK" or line.startswith("ACK "):
            return lines, None, line
        lines.append(line)
        if line.startswith("binary: "):
            size = int(line.removeprefix("binary: "))
            while len(connection.buffer) < size + 1:
                if not connection._fill(None):
                    return lines, None, "<closed>"
            data, connection.buffer = connection.buffer[:size], connection.buffer[size:]
            assert connection.buffer[:1] == b"\n", "the binary data must end with a newline"
            connection.buffer = connection.buffer[1:]
            return lines, data, connection.read_line()


def without_added(lines: list[str]) -> list[str]:
    """Drops MPD 0.24's `Added:` song lines, which Debian's MPD 0.23 does not print."""
    return [line for line in lines if not line.startswith("Added: ")]


def uris(lines: list[str]) -> list[str]:
    return [line.removeprefix("file: ") for line in lines if line.startswith("file: ")]


def tonearm_only(server, reason: str, beyond_mpd: bool = False):
    """Skips the MPD run of a test that asserts MPD 0.24 behaviour Debian's 0.23 lacks, or, with
    `beyond_mpd`, something no MPD can run (a Tonearm extension). `server` is anything with a
    `kind`: a started server, or a fixture's factory before it starts one."""
    import pytest
    if getattr(server, "kind", None) == "mpd":
        if beyond_mpd:
            pytest.skip(f"beyond MPD: {reason}")
        pytest.skip(f"MPD 0.24 behaviour; Debian's 0.23 differs: {reason}")
