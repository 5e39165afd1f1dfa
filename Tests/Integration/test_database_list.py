"""count, list and the other aggregate commands on the fixture library (Tests/support/library.py),
against Tonearm and Debian's MPD 0.23 (expected values are MPD's)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.library import tonearm_only  # noqa: E402

ARTISTS = ["Artist: ", "Artist: Artist A", "Artist: Artist B", "Artist: Björk", "Artist: Nature",
           "Artist: O'Brien", "Artist: Sigur Rós", "Artist: Tonearm", "Artist: 坂本龍一"]


def counts(*groups):
    """[(tag line, songs)] -> the lines of `count ... group`, every song being 1 s long."""
    return [line for label, n in groups for line in (label, f"songs: {n}", f"playtime: {n}")] + ["OK"]


@pytest.mark.parametrize("command, expected", [
    ("count artist Björk", ["songs: 2", "playtime: 2", "OK"]),
    ("count artist björk", ["songs: 0", "playtime: 0", "OK"]),           # count is case-sensitive
    ("count \"(base 'Various')\"", ["songs: 10", "playtime: 10", "OK"]),
    ("count artist Nope", ["songs: 0", "playtime: 0", "OK"]),
    # Without a filter; an empty value for songs without the tag; multi-value: Duet counts for
    # Artist A and for Artist B.
    ("count group artist", counts(("Artist: ", 8), ("Artist: Artist A", 2), ("Artist: Artist B", 3),
                                  ("Artist: Björk", 2), ("Artist: Nature", 1), ("Artist: O'Brien", 1),
                                  ("Artist: Sigur Rós", 2), ("Artist: Tonearm", 1), ("Artist: 坂本龍一", 1))),
    # AlbumArtist falls back to Artist.
    ("count group albumartist", counts(("AlbumArtist: ", 8), ("AlbumArtist: Artist A", 2),
                                       ("AlbumArtist: Artist B", 3), ("AlbumArtist: Björk", 2),
                                       ("AlbumArtist: Nature", 1), ("AlbumArtist: O'Brien", 1),
                                       ("AlbumArtist: Sigur Rós", 2), ("AlbumArtist: Tonearm", 1),
                                       ("AlbumArtist: 坂本龍一", 1))),
    ("count genre Pop group album", counts(("Album: Debut", 2))),
    ("count \"(artist == 'Björk')\" group date", counts(("Date: 1993", 1), ("Date: 1993-06-05", 1))),
    ("count", ["ACK [2@0] {count} too few arguments for \"count\""]),
    ("count group", ["ACK [2@0] {count} Incorrect number of filter arguments"]),
    ("count group nope", ["ACK [2@0] {count} Unknown tag type: nope"]),
    ("count artist", ["ACK [2@0] {count} Incorrect number of filter arguments"]),
    ("count \"(artist == 'x'\"", ["ACK [2@0] {count} ')' expected"]),
])
def test_count(db_server, command, expected):
    with db_server.connect() as c:
        assert c.command(command) == expected


def test_playtime_is_cut_to_whole_seconds(make_audio_server, tmp_path):
    """`count` and `stats` print a total duration with the fraction cut off, as MPD sums
    milliseconds and casts to seconds: 1.7 s is 1, and 1.7 + 1.8 s is 3."""
    music = tmp_path / "fractions"
    music.mkdir()
    for name, seconds in (("a.wav", 1.7), ("b.wav", 1.8)):
        audio.ffmpeg("-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=44100:duration={seconds}",
                     "-c:a", "pcm_s16le", *audio.BITEXACT, music / name)
    server = make_audio_server(audio.null_output(), music_dir=music)
    with server.connect() as c:
        assert c.command("count \"(file == 'a.wav')\"") == ["songs: 1", "playtime: 1", "OK"]
        assert c.command("count \"(file != 'none')\"") == ["songs: 2", "playtime: 3", "OK"]
        assert "db_playtime: 3" in c.command("stats")


def test_searchcount_folds_case(db_server):
    tonearm_only(db_server, "searchcount is 0.24 (0.23: unknown command)")
    with db_server.connect() as c:
        assert c.command("searchcount artist björk") == ["songs: 2", "playtime: 2", "OK"]
        assert c.command("searchcount \"(artist contains 'JÖR')\" group album") == counts(("Album: Debut", 2))


@pytest.mark.parametrize("command, expected", [
    # Unique values in byte order; "" for songs without the tag.
    ("list artist", ARTISTS + ["OK"]),
    ("list Artist", ARTISTS + ["OK"]),
    ("list albumartist", [line.replace("Artist: ", "AlbumArtist: ", 1) for line in ARTISTS] + ["OK"]),
    ("list genre", ["Genre: ", "Genre: Ambient", "Genre: Electronic", "Genre: Jazz", "Genre: Pop",
                    "Genre: Post-Rock", "Genre: Rock", "Genre: Spoken", "OK"]),
    ("list disc", ["Disc: ", "Disc: 1", "Disc: 2", "OK"]),
    ("list track \"(base 'Various/Sorting')\"", ["Track: ", "Track: 1", "Track: 10", "Track: 2", "Track: 9", "OK"]),
    ("list title \"(base 'Various/Sorting')\"", ["Title: B", "Title: a", "Title: c", "Title: d", "Title: e",
                                                 "Title: x", "Title: y", "OK"]),
    # The old `list album ARTIST` form; other types need a filter expression or pairs.
    ("list album \"Artist B\"", ["Album: Duets", "Album: Greatest Hits", "OK"]),
    ("list album artist \"Artist B\"", ["Album: Duets", "Album: Greatest Hits", "OK"]),
    ("list album \"(artist == 'Artist B')\"", ["Album: Duets", "Album: Greatest Hits", "OK"]),
    ("list album artist", ["OK"]),        # the old form: albums of the artist named "artist"
    ("list album group", ["OK"]),         # ... and of the artist named "group"
    # The last group is the outermost level.
    ("list album group albumartist", [
        "AlbumArtist: ", "Album: ", "Album: Beta", "Album: alpha",
        "AlbumArtist: Artist A", "Album: Duets", "Album: Greatest Hits",
        "AlbumArtist: Artist B", "Album: Duets", "Album: Greatest Hits",
        "AlbumArtist: Björk", "Album: Debut", "AlbumArtist: Nature", "Album: Field",
        "AlbumArtist: O'Brien", "Album: The \"Quoted\" Album", "AlbumArtist: Sigur Rós", "Album: Ágætis byrjun",
        "AlbumArtist: Tonearm", "Album: Fixtures", "AlbumArtist: 坂本龍一", "Album: 音楽図鑑", "OK"]),
    ("list album group albumartist group date", [
        "Date: ", "AlbumArtist: ", "Album: ", "Album: Beta", "Album: alpha",
        "AlbumArtist: O'Brien", "Album: The \"Quoted\" Album",
        "Date: 1984", "AlbumArtist: 坂本龍一", "Album: 音楽図鑑",
        "Date: 1993", "AlbumArtist: Björk", "Album: Debut",
        "Date: 1993-06-05", "AlbumArtist: Björk", "Album: Debut",
        "Date: 1999", "AlbumArtist: Sigur Rós", "Album: Ágætis byrjun",
        "Date: 2001", "AlbumArtist: Artist A", "Album: Duets", "AlbumArtist: Artist B", "Album: Duets",
        "Date: 2005", "AlbumArtist: Artist A", "Album: Greatest Hits",
        "Date: 2006", "AlbumArtist: Artist B", "Album: Greatest Hits",
        "Date: 2010", "AlbumArtist: Nature", "Album: Field",
        "Date: 2024", "AlbumArtist: Tonearm", "Album: Fixtures", "OK"]),
    ("list date \"(artist == 'Björk')\" group album", ["Album: Debut", "Date: 1993", "Date: 1993-06-05", "OK"]),
    # The same album name under two album artists is one value without a group.
    ("list album \"(album == 'Greatest Hits')\"", ["Album: Greatest Hits", "OK"]),
    # list file: song URIs in database order.
    ("list file \"(base 'Various/Sorting')\"", [
        "file: Various/Sorting/a.flac", "file: Various/Sorting/B.flac", "file: Various/Sorting/e.flac",
        "file: Various/Sorting/d.flac", "file: Various/Sorting/c.flac", "file: Various/Sorting/lower/x.flac",
        "file: Various/Sorting/Upper/y.flac", "OK"]),
    ("list filename \"(title == 'Intro')\"", ["file: intro.flac", "OK"]),
    ("list", ["ACK [2@0] {list} too few arguments for \"list\""]),
    ("list nope", ["ACK [2@0] {list} Unknown tag type: nope"]),
    ("list any", ["ACK [2@0] {list} Unknown tag type: any"]),
    ("list base", ["ACK [2@0] {list} Unknown tag type: base"]),
    ("list artist \"Artist B\"", ["ACK [2@0] {list} should be \"Album\" for 3 arguments"]),
    ("list album group album", ["ACK [2@0] {list} Conflicting group"]),
    ("list album group artist group artist", ["ACK [2@0] {list} Conflicting group"]),
    ("list album \"(artist == 'x'\"", ["ACK [2@0] {list} ')' expected"]),
])
def test_list(db_server, command, expected):
    with db_server.connect() as c:
        assert c.command(command) == expected


def test_list_file_is_every_song_in_database_order(db_server):
    """Without a filter, `list file` prints every song once, in the order `listall` walks them;
    with one, the matching songs in that order; a bad filter is refused before any line."""
    with db_server.connect() as c:
        walked = [line for line in c.command("listall") if line.startswith("file: ")]
        assert len(walked) > 10
        assert c.command("list file") == walked + ["OK"]
        assert c.command("list file \"(artist != 'Björk')\"") == [
            line for line in walked if line not in c.command("list file \"(artist == 'Björk')\"")] + ["OK"]
        assert c.command("list file \"(title =~ '(')\"")[-1].startswith("ACK [2@0] {list} ")
