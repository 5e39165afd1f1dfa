"""Browsing the music database on the fixture library (Tests/support/library.py): lsinfo,
listall, listallinfo, listfiles, song blocks, tagtypes, stats. Every test runs against Tonearm
and Debian's MPD 0.23 (the `db_server` fixture); the expected values are what MPD prints.
Tonearm prints MPD 0.24's `Added:` song line, which 0.23 lacks: `without_added` drops it."""
import sys
from pathlib import Path

import mpd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only, uris, without_added  # noqa: E402

DIR_TIME = "Last-Modified: 2020-09-13T12:26:40Z"  # every directory's fixed mtime

INTRO = ["file: intro.flac", "Last-Modified: 2020-09-13T12:26:40Z", "Format: 8000:16:1", "Title: Intro",
         "Artist: Tonearm", "Album: Fixtures", "Date: 2024", "Track: 1", "Time: 1", "duration: 1.000"]
UNTAGGED = ["file: untagged.wav", "Last-Modified: 2020-09-14T12:26:40Z", "Format: 8000:16:1", "Time: 1",
            "duration: 1.000"]
HUMAN_BEHAVIOUR = [
    "file: Björk/Debut/01 Human Behaviour.flac", "Last-Modified: 2020-09-15T12:26:40Z", "Format: 8000:16:1",
    "Artist: Björk", "AlbumArtist: Björk", "Album: Debut", "Title: Human Behaviour", "Track: 1", "Disc: 1",
    "Date: 1993-06-05", "Genre: Pop", "Genre: Electronic", "Composer: Björk Guðmundsdóttir",
    "MUSICBRAINZ_ARTISTID: 87c5dedd-371d-4a53-9f7f-80522fb7f3cb",
    "MUSICBRAINZ_ALBUMID: 9f3c3a6a-5d2f-4b66-8f0d-7b1c2c1a1b01",
    "MUSICBRAINZ_ALBUMARTISTID: 87c5dedd-371d-4a53-9f7f-80522fb7f3cb",
    "MUSICBRAINZ_TRACKID: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "Time: 1", "duration: 1.000"]
DUET = ["file: Various/Duets/01 Duet.flac", "Last-Modified: 2020-09-21T12:26:40Z", "Format: 8000:16:1",
        "Artist: Artist A", "Artist: Artist B", "Album: Duets", "Title: Duet", "Genre: Rock", "Genre: Jazz",
        "Track: 1", "Date: 2001", "Time: 1", "duration: 1.000"]
WIND = ["file: Various/Field/wind.wav", "Last-Modified: 2020-09-22T12:26:40Z", "Format: 8000:16:1", "Title: Wind",
        "Artist: Nature", "Date: 2010", "Album: Field", "Genre: Ambient", "Time: 1", "duration: 1.000"]

# listall of the root: in each directory its songs (sorted by Album, Disc, Track, then file
# name), then its playlist files, then each sub-directory (sorted by name, collated: "lower"
# before "Upper") followed by its whole content.
LISTALL = [
    "file: untagged.wav", "file: intro.flac", "playlist: mix.m3u",
    "directory: Björk", "directory: Björk/Debut",
    "file: Björk/Debut/01 Human Behaviour.flac", "file: Björk/Debut/02 Crying.mp3",
    "directory: Compilations", "directory: Compilations/A", "directory: Compilations/A/Greatest Hits",
    "file: Compilations/A/Greatest Hits/01 Song A.flac",
    "directory: Compilations/B", "directory: Compilations/B/Greatest Hits",
    "file: Compilations/B/Greatest Hits/01 Song B.flac", "file: Compilations/B/Greatest Hits/02 Song C.flac",
    "directory: Sigur Rós", "directory: Sigur Rós/Ágætis byrjun",
    "file: Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg", "file: Sigur Rós/Ágætis byrjun/02 Starálfur.opus",
    "directory: Various", "directory: Various/Duets", "file: Various/Duets/01 Duet.flac",
    "directory: Various/Field", "file: Various/Field/wind.wav", "playlist: Various/Field/playlist.m3u",
    "directory: Various/Quotes", "file: Various/Quotes/01 Quotes.mp3",
    "directory: Various/Sorting", "file: Various/Sorting/a.flac", "file: Various/Sorting/B.flac",
    "file: Various/Sorting/e.flac", "file: Various/Sorting/d.flac", "file: Various/Sorting/c.flac",
    "directory: Various/Sorting/lower", "file: Various/Sorting/lower/x.flac",
    "directory: Various/Sorting/Upper", "file: Various/Sorting/Upper/y.flac",
    "directory: 坂本龍一", "directory: 坂本龍一/音楽図鑑", "file: 坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a",
    "OK"]


def keys(lines):
    return [line.split(": ", 1)[0] for line in lines if line not in ("OK",)]


def test_lsinfo_root_lists_songs_then_playlists_then_directories(db_server):
    with db_server.connect() as c:
        root = without_added(c.command("lsinfo"))
        assert root == [*UNTAGGED, *INTRO, "playlist: mix.m3u", "Last-Modified: 2020-10-03T12:26:40Z",
                        "directory: Björk", DIR_TIME, "directory: Compilations", DIR_TIME,
                        "directory: Sigur Rós", DIR_TIME, "directory: Various", DIR_TIME,
                        "directory: 坂本龍一", DIR_TIME, "OK"]
        # "/" and "" are the root too; the empty directory, notes.txt and the corrupt file are
        # not in the database.
        assert without_added(c.command("lsinfo /")) == root
        assert without_added(c.command('lsinfo ""')) == root


def test_lsinfo_orders_songs_by_album_disc_track_then_name(db_server):
    with db_server.connect() as c:
        lines = c.command("lsinfo Various/Sorting")
        # Album collated ("alpha" < "Beta"), Track numeric (9 < 10), then the file name
        # collated ("a.flac" < "B.flac"); sub-directories collated ("lower" < "Upper").
        assert [l for l in lines if l.startswith(("file:", "directory:"))] == [
            "file: Various/Sorting/a.flac", "file: Various/Sorting/B.flac", "file: Various/Sorting/e.flac",
            "file: Various/Sorting/d.flac", "file: Various/Sorting/c.flac",
            "directory: Various/Sorting/lower", "directory: Various/Sorting/Upper"]
        assert without_added(c.command("lsinfo Various")) == [
            "directory: Various/Duets", DIR_TIME, "directory: Various/Field", DIR_TIME,
            "directory: Various/Quotes", DIR_TIME, "directory: Various/Sorting", DIR_TIME, "OK"]
        assert without_added(c.command("lsinfo Various/Field")) == [
            *WIND, "playlist: Various/Field/playlist.m3u", "Last-Modified: 2020-10-08T12:26:40Z", "OK"]


def test_lsinfo_of_a_song_and_of_what_is_not_a_directory(db_server):
    with db_server.connect() as c:
        assert without_added(c.command('lsinfo "Various/Duets/01 Duet.flac"')) == [*DUET, "OK"]
        for uri in ["nope", "Empty", "notes.txt", "Various/broken.flac", "mix.m3u"]:
            assert c.command(f'lsinfo "{uri}"') == ["ACK [50@0] {lsinfo} No such directory"], uri
        # A trailing slash, an empty or a `..` segment: 0.23 (and Tonearm) look the URI up as it
        # is and find nothing in the database; 0.24.11 answers ACK 2 Bad relative path.
        for uri in ["Various/Sorting/", "Various//Sorting", "Various/../Various", "./Various"]:
            assert c.command(f'lsinfo "{uri}"') == ["ACK [50@0] {lsinfo} No such directory"], uri
        assert c.command("lsinfo Björk/Debut/02 Crying.mp3") == [
            'ACK [2@0] {lsinfo} too many arguments for "lsinfo"']


def test_song_block_field_order_multi_values_and_track_numbers(db_server):
    """file, Last-Modified, (Added), Format, the tags in the order MPD's decoder plugin reports
    them (FLAC: the file's order), Time, duration. Repeated tags print one line per value; "1/11"
    prints as Track 1, Disc "1/2" as 1."""
    with db_server.connect() as c:
        block = c.command('lsinfo "Björk/Debut/01 Human Behaviour.flac"')
        assert without_added(block) == [*HUMAN_BEHAVIOUR, "OK"]
        if db_server.kind == "tonearm":
            assert keys(block)[:4] == ["file", "Last-Modified", "Added", "Format"]
        # M4A: in the order of MPD's FFmpeg plugin (by tag type, then FFmpeg's album_artist);
        # Track "3/12", Disc "2/2".
        assert without_added(c.command('lsinfo "坂本龍一/音楽図鑑"')) == [
            "file: 坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a", "Last-Modified: 2020-09-19T12:26:40Z",
            "Format: 8000:f:1", "Artist: 坂本龍一", "Album: 音楽図鑑", "Title: チベタン・ダンス", "Track: 3",
            "Genre: Electronic", "Date: 1984", "Composer: 坂本龍一", "Disc: 2", "AlbumArtist: 坂本龍一",
            "Time: 1", "duration: 1.000", "OK"]


def test_quotes_and_backslashes_in_values_are_printed_raw(db_server):
    with db_server.connect() as c:
        lines = c.command('lsinfo "Various/Quotes/01 Quotes.mp3"')
        assert "Artist: O'Brien" in lines
        assert "Title: Say \"hi\" and it's a back\\slash" in lines
        assert 'Album: The "Quoted" Album' in lines


@pytest.mark.parametrize("uri, audio_format, duration", [
    ("intro.flac", "8000:16:1", "1.000"),
    ("untagged.wav", "8000:16:1", "1.000"),
    ("Björk/Debut/02 Crying.mp3", "8000:24:1", "1.152"),          # ID3v2.3; MPD's mad decoder
    ("Various/Quotes/01 Quotes.mp3", "8000:24:1", "1.152"),       # ID3v2.4
    ("Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg", "8000:f:1", "1.000"),
    ("Sigur Rós/Ágætis byrjun/02 Starálfur.opus", "48000:16:1", "1.006"),
    ("坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a", "8000:f:1", "1.000"),
])
def test_format_and_duration_per_file_type(db_server, uri, audio_format, duration):
    with db_server.connect() as c:
        lines = c.command(f'lsinfo "{uri}"')
        assert f"Format: {audio_format}" in lines and f"duration: {duration}" in lines and "Time: 1" in lines


def test_id3_and_riff_tags_are_read(db_server):
    # In MPD's orders: libid3tag's frame list for ID3 (Artist, AlbumArtist, Title, Album, Track,
    # Date, Genre, …, Disc) and libsndfile's for RIFF INFO (Title, Artist, Date, Album, Genre).
    with db_server.connect() as c:
        assert without_added(c.command('lsinfo "Björk/Debut/02 Crying.mp3"')) == [
            "file: Björk/Debut/02 Crying.mp3", "Last-Modified: 2020-09-16T12:26:40Z", "Format: 8000:24:1",
            "Artist: Björk", "AlbumArtist: Björk", "Title: Crying", "Album: Debut", "Track: 2", "Date: 1993",
            "Genre: Pop", "Disc: 1", "Time: 1", "duration: 1.152", "OK"]
        assert without_added(c.command('lsinfo "Various/Field/wind.wav"')) == [*WIND, "OK"]


def test_tagtypes_filter_song_blocks(db_server):
    with db_server.connect() as c:
        assert c.command("tagtypes clear") == ["OK"]
        assert c.command("tagtypes enable Genre Title") == ["OK"]
        assert without_added(c.command('lsinfo "Various/Duets/01 Duet.flac"')) == [
            "file: Various/Duets/01 Duet.flac", "Last-Modified: 2020-09-21T12:26:40Z", "Format: 8000:16:1",
            "Title: Duet", "Genre: Rock", "Genre: Jazz", "Time: 1", "duration: 1.000", "OK"]
        c.command("tagtypes clear")
        assert keys(without_added(c.command("find title Intro"))) == [
            "file", "Last-Modified", "Format", "Time", "duration"]


def test_listall(db_server):
    with db_server.connect() as c:
        assert c.command("listall") == LISTALL
        assert c.command("listall /") == LISTALL
        # Below the root the directory itself comes first.
        assert c.command("listall Various/Field") == [
            "directory: Various/Field", "file: Various/Field/wind.wav", "playlist: Various/Field/playlist.m3u", "OK"]
        assert c.command('listall "Various/Field/wind.wav"') == ["file: Various/Field/wind.wav", "OK"]
        assert c.command("listall nope") == ["ACK [50@0] {listall} No such directory"]
        assert c.command("listall Empty") == ["ACK [50@0] {listall} No such directory"]


def test_listallinfo(db_server):
    with db_server.connect() as c:
        everything = without_added(c.command("listallinfo"))
        assert [l for l in everything if l.startswith(("file:", "directory:", "playlist:")) or l == "OK"] == LISTALL
        assert everything[:len(UNTAGGED) + len(INTRO)] == [*UNTAGGED, *INTRO]
        assert without_added(c.command("listallinfo Various/Field")) == [
            "directory: Various/Field", DIR_TIME, *WIND,
            "playlist: Various/Field/playlist.m3u", "Last-Modified: 2020-10-08T12:26:40Z", "OK"]
        assert without_added(c.command("listallinfo Various/Duets")) == ["directory: Various/Duets", DIR_TIME, *DUET,
                                                                        "OK"]
        assert without_added(c.command('listallinfo "Various/Duets/01 Duet.flac"')) == [*DUET, "OK"]
        assert c.command("listallinfo nope") == ["ACK [50@0] {listallinfo} No such directory"]


def entries(lines):
    """listfiles output as {name: [lines]}: MPD prints the directory in readdir order."""
    result, current = {}, None
    for line in lines[:-1]:
        if line.startswith(("file: ", "directory: ")):
            current = line
            result[current] = []
        else:
            result[current].append(line)
    return result


def test_listfiles_lists_every_file_with_sizes(db_server, fixture_library):
    with db_server.connect() as c:
        root = c.command("listfiles")
        assert root[-1] == "OK"
        assert entries(root) == {
            "file: mix.m3u": ["size: 38", "Last-Modified: 2020-10-03T12:26:40Z"],
            "file: notes.txt": ["size: 11", "Last-Modified: 2020-10-04T12:26:40Z"],
            "file: untagged.wav": ["size: 16044", "Last-Modified: 2020-09-14T12:26:40Z"],
            "file: intro.flac": [f"size: {fixture_library.path('intro.flac').stat().st_size}",
                                 "Last-Modified: 2020-09-13T12:26:40Z"],
            "directory: Björk": [DIR_TIME], "directory: Compilations": [DIR_TIME],
            "directory: Empty": [DIR_TIME], "directory: Sigur Rós": [DIR_TIME],
            "directory: Various": [DIR_TIME], "directory: 坂本龍一": [DIR_TIME]}
        assert entries(c.command('listfiles ""')) == entries(root)
        # "/" is an absolute path here (unlike lsinfo), allowed to local clients only.
        assert c.command("listfiles /") == ["ACK [4@0] {listfiles} Access denied"]
        various = entries(c.command("listfiles Various"))
        assert set(various) == {"directory: Duets", "directory: Field", "directory: Quotes",
                                "directory: Sorting", "file: broken.flac"}
        assert various["file: broken.flac"] == ["size: 3004", "Last-Modified: 2020-10-09T12:26:40Z"]
        assert set(entries(c.command('listfiles "坂本龍一/音楽図鑑"'))) == {
            "file: 01 チベタン・ダンス.m4a", "file: folder.jpg"}
        assert c.command("listfiles Empty") == ["OK"]


def test_listfiles_errors(db_server, fixture_library):
    with db_server.connect() as c:
        root = fixture_library.root
        assert c.command("listfiles nope") == [
            f"ACK [52@0] {{listfiles}} Failed to open {root}/nope: No such file or directory"]
        assert c.command("listfiles notes.txt") == [
            f"ACK [52@0] {{listfiles}} Failed to open {root}/notes.txt: Not a directory"]
        # 0.23 appends any relative URI to the music directory: `Various/` and `Various//Field`
        # are those folders (as for Tonearm), and `listfiles ..` lists its parent, which
        # Tonearm refuses as 0.24.11 does.
        assert c.command('listfiles "Various/"') == c.command("listfiles Various")
        assert c.command('listfiles "Various//Field"') == c.command('listfiles "Various/Field"')
        if db_server.kind == "tonearm":
            for uri in ["..", "Various/..", "./Various", "Various/./Field"]:
                assert c.command(f'listfiles "{uri}"') == ["ACK [2@0] {listfiles} Bad relative path"], uri


def test_stats(db_server):
    with db_server.connect() as c:
        lines = c.command("stats")
        assert keys(lines) == ["uptime", "playtime", "artists", "albums", "songs", "db_playtime", "db_update"]
        stats = dict(line.split(": ", 1) for line in lines[:-1])
        # Distinct Artist values (Artist A, Artist B, Björk, Nature, O'Brien, Sigur Rós, Tonearm,
        # 坂本龍一) and distinct Album values; 20 songs of about 1 s (Time rounded, summed).
        assert (stats["artists"], stats["albums"], stats["songs"], stats["db_playtime"]) == ("8", "10", "20", "20")
        assert int(stats["db_update"]) > 1_600_000_000


def test_added_line_follows_last_modified(db_server):
    tonearm_only(db_server, "the Added: song line is MPD 0.24")
    with db_server.connect() as c:
        block = c.command("lsinfo intro.flac")
        assert keys(block)[:4] == ["file", "Last-Modified", "Added", "Format"]


def test_python_client_browses(db_server):
    client = mpd.MPDClient()
    client.connect(db_server.host, db_server.port)
    try:
        top = client.lsinfo()
        assert [entry.get("directory") for entry in top if "directory" in entry] == [
            "Björk", "Compilations", "Sigur Rós", "Various", "坂本龍一"]
        assert [entry["file"] for entry in top if "file" in entry] == ["untagged.wav", "intro.flac"]
        duet = client.lsinfo("Various/Duets/01 Duet.flac")[0]
        assert duet["artist"] == ["Artist A", "Artist B"] and duet["genre"] == ["Rock", "Jazz"]
        assert [song["file"] for song in client.find("artist", "Björk")] == [
            "Björk/Debut/01 Human Behaviour.flac", "Björk/Debut/02 Crying.mp3"]
        assert client.count("artist", "Björk") == {"songs": "2", "playtime": "2"}
    finally:
        client.disconnect()
