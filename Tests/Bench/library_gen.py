"""A large generated music library for the library benchmark (`library_bench.py`).

Every track is a copy of ONE short MP3 (1 s of a 440 Hz sine, mono, 22.05 kHz, 16 kbit/s, encoded
once with the ffmpeg CLI, *with* its Xing/Info header so the duration is exact and readers need
not estimate it from the file size) behind a hand-built ID3v2.4 tag: TIT2, TPE1, TPE2, TALB,
TRCK, TPOS, TCON, TDRC, all UTF-8 (encoding 3), syncsafe sizes, no padding.

Layout: `AlbumArtist/Album/NN - Title.mp3` (`D-NN - Title.mp3` on two-disc albums). The spread
scales with the size N: N/12.5 albums (8,000 at 100,000 tracks) of 6–19 tracks, N/100 artists
(1,000 at 100,000) with a skewed number of albums each, 5 % compilations under "Various Artists"
(each track by another artist), 5 % two-disc albums, ~40 genres, years 1955–2024 (a fifth as
full dates), titles of one to four words from a fixed vocabulary, a few non-ASCII names.

With `kind="flac"` every track is instead a copy of one FLAC stream (the same second of sine,
with its STREAMINFO) behind one VORBIS_COMMENT block holding the same tags, named `….flac`, in
`base/tonearm-bench-library-flac-N`: each server then reads tags with its FLAC reader (MPD's
libFLAC plugin) instead of its MP3 one.

`plan(n)` is deterministic (seeded) and cheap, so a cached library needs no manifest: the
benchmark re-plans it to know the expected answers. `generate(n, base)` writes
`base/tonearm-bench-library-N/music` and then the marker `…/complete` (last), and reuses a
library whose marker holds this VERSION.
"""
import os
import random
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

VERSION = "1"  # bump when the content changes; a cached library of another version is rebuilt
BASE_TIME = 1_600_000_000  # every file and directory gets this mtime

SYLLABLES = ("ka ra mo ne li sa to vi da re lo mi na ko be su ta ri an el or us in ma "
             "zo fa gu he jo pe qui ve ya wen dor gal thor mer lin bra cy").split()
WORDS = ("Love Night Midnight Nightfall Day Heart Fire Rain Summer Winter River Road Home Dream "
         "Light Shadow Star Moon Sun Blue Red Gold Silver Black White Ocean Sky Wind Storm City "
         "Street Train Highway Ghost Angel Devil Wild Sweet Lonely Broken Little Big Last First "
         "Forever Never Always Tonight Morning Evening Dance Song Blues Waltz Echo Mirror Glass "
         "Stone Iron Paper Velvet Electric Neon Desert Mountain Valley Garden Island Harbor "
         "Bridge Window Door Letter Promise Secret Memory Time Running Falling Flying Burning "
         "Dancing Waiting Dreaming Calling Coming Going Back Away Under Over Beyond Within Without "
         "Alone Together Again Young Old New Golden Crystal Hollow Quiet Loud Slow Fast Paradise "
         "Heaven Thunder Lightning Snow Ice Spring Autumn Flower Rose Lily Wolf Tiger Eagle Raven "
         "Horse Lion Child Mother Father Brother Sister Friend Stranger King Queen Soldier Sailor "
         "Dreamer Lover Runner Drifter Hunter Fever Sugar Honey Whiskey Wine Coffee Smoke Dust "
         "Ashes Bones Blood Tears Kiss Touch Voice Words Story Lies Truth Rhythm Groove Funk Soul "
         "Boogie Swing Rock Roll Crazy Happy Sad Strange Magic Mystery Wonder Freedom Trouble "
         "Money Rich Poor Lucky Hope Fear Pride Glory Mercy Grace Zero One Two Three Seven "
         "Hundred Thousand Café Señorita Naïve Über").split()
GENRES = ("Rock Pop Jazz Blues Classical Electronic Hip-Hop Folk Country Metal Punk Soul Funk "
          "Reggae R&B Ambient Techno House Trance Drum&Bass Dubstep Indie Alternative Gospel "
          "Latin Bossa-Nova Salsa Flamenco Afrobeat Disco Grunge Shoegaze Post-Rock Ska Swing "
          "Bluegrass Soundtrack World Experimental Lo-Fi").split()
ALBUM_CLICHES = ["Greatest Hits", "Live", "Best Of", "Unplugged", "Demos", "B-Sides", "Untitled"]
SEARCH_SUBSTRING = "night"  # `search title` matches Night, Midnight, Nightfall, Tonight
NARROW_SEARCH = "night train"  # what a user types to find one song: ~10 of 100,000 titles


@dataclass
class Track:
    path: str  # relative to the music folder
    title: str
    artist: str
    albumartist: str
    album: str
    track: str
    disc: str
    genre: str
    date: str


@dataclass
class Plan:
    n: int
    tracks: list[Track]
    query_artist: str  # a popular (75th percentile) artist, for `find`/`count artist`

    def count(self, predicate) -> int:
        return sum(1 for t in self.tracks if predicate(t))


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def _artist_names(rng: random.Random, count: int) -> list[str]:
    names, seen = [], set()
    while len(names) < count:
        shape = rng.random()
        if shape < 0.25:
            name = f"The {_name(rng, 2)}s"
        elif shape < 0.7:
            name = f"{_name(rng, rng.randint(1, 2))} {_name(rng, rng.randint(2, 3))}"
        else:
            name = f"{_name(rng, 2)} {rng.choice(WORDS)}"
        if rng.random() < 0.04:
            name = name.replace("o", "ö", 1).replace("e", "é", 1)
        if name not in seen and name != "Various Artists":
            seen.add(name)
            names.append(name)
    return names


def plan(n: int) -> Plan:
    rng = random.Random(f"tonearm-bench-library-{VERSION}-{n}")
    n_albums = max(1, round(n / 12.5))
    artists = _artist_names(rng, max(2, round(n / 100)))
    weights = [rng.randint(6, 19) for _ in range(n_albums)]
    total = sum(weights)
    sizes = [max(1, w * n // total) for w in weights]
    for i in range(n - sum(sizes)):  # hand out what flooring left over; never below one track
        sizes[i % n_albums] += 1
    while sum(sizes) > n:
        sizes[sizes.index(max(sizes))] -= 1
    tracks, used = [], {}
    for a, size in enumerate(sizes):
        compilation = rng.random() < 0.05
        if compilation:
            albumartist = "Various Artists"
        elif a < len(artists):
            albumartist = artists[a]  # every artist gets at least one album
        else:
            albumartist = artists[int(len(artists) * rng.random() ** 2)]  # skewed: few prolific ones
        album = rng.choice(ALBUM_CLICHES) if rng.random() < 0.06 else " ".join(
            rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
        taken = used.setdefault(albumartist, set())
        base, k = album, 2
        while album in taken:
            album, k = f"{base} {k}", k + 1
        taken.add(album)
        genre = rng.choice(GENRES)
        year = rng.randint(1955, 2024)
        date = f"{year}-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}" if rng.random() < 0.2 else str(year)
        discs = 2 if size >= 8 and rng.random() < 0.05 else 1
        per_disc = -(-size // discs)
        for i in range(size):
            disc, number = divmod(i, per_disc)
            on_disc = min(per_disc, size - disc * per_disc)
            title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
            artist = rng.choice(artists) if compilation else albumartist
            prefix = f"{disc + 1}-{number + 1:02}" if discs > 1 else f"{number + 1:02}"
            tracks.append(Track(f"{albumartist}/{album}/{prefix} - {title}.mp3", title, artist, albumartist,
                                album, f"{number + 1}/{on_disc}", f"{disc + 1}/{discs}", genre, date))
    per_artist: dict[str, int] = {}
    for t in tracks:
        per_artist[t.artist] = per_artist.get(t.artist, 0) + 1
    ranked = sorted(per_artist, key=lambda name: (per_artist[name], name))
    return Plan(n, tracks, ranked[int(len(ranked) * 0.75)])


def _syncsafe(size: int) -> bytes:
    return bytes(((size >> 21) & 0x7F, (size >> 14) & 0x7F, (size >> 7) & 0x7F, size & 0x7F))


def id3v24(frames: list[tuple[str, str]]) -> bytes:
    body = b""
    for frame_id, text in frames:
        data = b"\x03" + text.encode("utf-8")
        body += frame_id.encode("ascii") + _syncsafe(len(data)) + b"\x00\x00" + data
    return b"ID3\x04\x00\x00" + _syncsafe(len(body)) + body


def encode_audio() -> bytes:
    """The MP3 frames every track shares: no ID3 tag, but with the Xing/Info frame."""
    with tempfile.TemporaryDirectory(prefix="tonearm-bench-mp3-") as work:
        out = Path(work) / "sine.mp3"
        subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050:duration=1",
                        "-ac", "1", "-c:a", "libmp3lame", "-b:a", "16k", "-map_metadata", "-1",
                        "-id3v2_version", "0", "-write_id3v1", "0", "-write_xing", "1",
                        "-fflags", "+bitexact", "-flags:a", "+bitexact", "-f", "mp3", str(out)], check=True)
        audio = out.read_bytes()
    if audio[:3] == b"ID3" or audio[0] != 0xFF:
        raise RuntimeError("ffmpeg wrote something other than bare MP3 frames")
    return audio


def encode_flac() -> tuple[bytes, bytes]:
    """The STREAMINFO block (flagged last; the caller adds the comments after it) and the FLAC
    frames every track shares."""
    with tempfile.TemporaryDirectory(prefix="tonearm-bench-flac-") as work:
        out = Path(work) / "sine.flac"
        subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050:duration=1",
                        "-ac", "1", "-c:a", "flac", "-sample_fmt", "s16", "-map_metadata", "-1",
                        "-fflags", "+bitexact", "-flags:a", "+bitexact", "-f", "flac", str(out)], check=True)
        data = out.read_bytes()
    if data[:4] != b"fLaC" or data[4] & 0x7F != 0:
        raise RuntimeError("ffmpeg wrote a FLAC file that does not start with STREAMINFO")
    position, streaminfo = 4, b""
    while True:  # every metadata block but STREAMINFO (ffmpeg's padding, its vendor comment) goes
        header, size = data[position], int.from_bytes(data[position + 1:position + 4], "big")
        if header & 0x7F == 0:
            streaminfo = data[position + 4:position + 4 + size]
        position += 4 + size
        if header & 0x80:
            return bytes([0]) + len(streaminfo).to_bytes(3, "big") + streaminfo, data[position:]


def vorbis_comment(t: Track) -> bytes:
    """The last metadata block: the track's tags as Vorbis comments."""
    vendor = b"tonearm bench"
    pairs = [("TITLE", t.title), ("ARTIST", t.artist), ("ALBUMARTIST", t.albumartist), ("ALBUM", t.album),
             ("TRACKNUMBER", t.track), ("DISCNUMBER", t.disc), ("GENRE", t.genre), ("DATE", t.date)]
    comments = [f"{key}={value}".encode() for key, value in pairs]
    body = len(vendor).to_bytes(4, "little") + vendor + len(comments).to_bytes(4, "little")
    body += b"".join(len(c).to_bytes(4, "little") + c for c in comments)
    return bytes([0x80 | 4]) + len(body).to_bytes(3, "big") + body


def tag_frames(t: Track) -> list[tuple[str, str]]:
    return [("TIT2", t.title), ("TPE1", t.artist), ("TPE2", t.albumartist), ("TALB", t.album),
            ("TRCK", t.track), ("TPOS", t.disc), ("TCON", t.genre), ("TDRC", t.date)]


def generate(n: int, base: Path, log=print, kind: str = "mp3") -> tuple[Path, Plan]:
    """The music folder of an N-track library of `kind` ("mp3" or "flac") under `base` (written
    unless cached) and its plan."""
    home = Path(base) / (f"tonearm-bench-library-{n}" if kind == "mp3" else f"tonearm-bench-library-{kind}-{n}")
    music, marker = home / "music", home / "complete"
    the_plan = plan(n)
    if kind == "flac":
        the_plan.tracks = [replace(t, path=t.path[:-len(".mp3")] + ".flac") for t in the_plan.tracks]
    if marker.exists() and marker.read_text() == VERSION:
        return music, the_plan
    marker.unlink(missing_ok=True)
    if music.exists():
        shutil.rmtree(music)
    start = time.monotonic()
    log(f"generating {n:,} tracks in {music} …")
    if kind == "flac":
        streaminfo, audio = encode_flac()
    else:
        audio = encode_audio()
    made = set()
    for t in the_plan.tracks:
        folder = t.path.rsplit("/", 1)[0]
        if folder not in made:
            os.makedirs(music / folder, exist_ok=True)
            made.add(folder)
        with open(music / t.path, "wb") as f:
            if kind == "flac":
                f.write(b"fLaC" + streaminfo + vorbis_comment(t) + audio)
            else:
                f.write(id3v24(tag_frames(t)) + audio)
        os.utime(music / t.path, (BASE_TIME, BASE_TIME))
    for folder in sorted(made, key=lambda p: -p.count("/")):
        os.utime(music / folder, (BASE_TIME, BASE_TIME))
        top = music / folder.split("/", 1)[0]
        os.utime(top, (BASE_TIME, BASE_TIME))
    marker.write_text(VERSION)
    log(f"generated {n:,} tracks in {time.monotonic() - start:.1f} s")
    return music, the_plan


if __name__ == "__main__":
    import sys
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    folder, p = generate(size, Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp"))
    print(folder, "query artist:", p.query_artist, p.count(lambda t: t.artist == p.query_artist))
