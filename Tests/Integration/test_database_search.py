"""find and search on the fixture library (Tests/support/library.py): old-style pairs and filter
expressions with every operator, sort and window, and the exact ACK of malformed filters. Runs
against Tonearm and Debian's MPD 0.23; 0.24-only behaviour is tonearm_only with a reason."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only, uris  # noqa: E402

BJORK = ["Björk/Debut/01 Human Behaviour.flac", "Björk/Debut/02 Crying.mp3"]
SORTING = ["Various/Sorting/a.flac", "Various/Sorting/B.flac", "Various/Sorting/e.flac", "Various/Sorting/d.flac",
           "Various/Sorting/c.flac", "Various/Sorting/lower/x.flac", "Various/Sorting/Upper/y.flac"]
# Database order: each directory's songs, then its sub-directories, as in listall.
ALL = ["untagged.wav", "intro.flac", *BJORK, "Compilations/A/Greatest Hits/01 Song A.flac",
       "Compilations/B/Greatest Hits/01 Song B.flac", "Compilations/B/Greatest Hits/02 Song C.flac",
       "Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg", "Sigur Rós/Ágætis byrjun/02 Starálfur.opus",
       "Various/Duets/01 Duet.flac", "Various/Field/wind.wav", "Various/Quotes/01 Quotes.mp3", *SORTING,
       "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a"]
NO_ARTIST = ["untagged.wav", *SORTING]


def but(*excluded):
    return [uri for uri in ALL if uri not in excluded]


@pytest.mark.parametrize("command, expected", [
    # Old style: find is exact and case-sensitive, search matches a case-folded substring.
    ("find artist Björk", BJORK),
    ("find artist björk", []),
    ("find Artist Bjö", []),
    ("search artist björk", BJORK),
    ("search artist BJÖRK", BJORK),
    ("search artist jör", BJORK),
    ("search any pop", BJORK),
    # Substrings of three characters or more: indexed tags through the trigram index, the
    # unindexed ones (dates, numbers) through their rows; a value holding both counts once.
    ("search any 993", BJORK),
    ("search any \"sigur r\"", ["Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg",
                                 "Sigur Rós/Ágætis byrjun/02 Starálfur.opus"]),
    ("search any björk", BJORK),
    ("search \"(!(any contains 'BJÖRK'))\"", but(*BJORK)),
    ("search \"(!(title contains 'song'))\"", but("Compilations/A/Greatest Hits/01 Song A.flac",
                                                   "Compilations/B/Greatest Hits/01 Song B.flac",
                                                   "Compilations/B/Greatest Hits/02 Song C.flac")),
    ("find any Pop", BJORK),
    ("find file intro.flac", ["intro.flac"]),
    ("find base Various/Sorting", SORTING),
    ("find modified-since 1601424000", ["Various/Sorting/e.flac", *SORTING[-2:]]),
    ("find albumartist \"Sigur Rós\"", ["Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg",
                                        "Sigur Rós/Ágætis byrjun/02 Starálfur.opus"]),
    ("find artist Björk title Crying", ["Björk/Debut/02 Crying.mp3"]),
    # A number or date beside an indexed tag (MPDroid's first track of an album): the songs'
    # `1/11` and `2/11` are their leading numbers, on both servers.
    ("find \"albumartist\" \"Björk\" \"album\" \"Debut\" \"track\" \"1\"", BJORK[:1]),
    ("find album Debut track 1/11", []),
    ("find album Debut disc 1", BJORK),
    ("find album Debut date 1993", BJORK[1:]),
    ("search album debut track 1", BJORK[:1]),
    ("find \"((albumartist == 'Björk') AND (track != '1'))\"", BJORK[1:]),
    ("find albumartist Björk track 2 disc 1", BJORK[1:]),
    ("find title \"Say \\\"hi\\\" and it's a back\\\\slash\"", ["Various/Quotes/01 Quotes.mp3"]),
    ("find title a \"(album == 'alpha')\"", ["Various/Sorting/a.flac"]),
    # Expressions.
    ("find \"(artist == 'Björk')\"", BJORK),
    ("search \"(artist == 'björk')\"", BJORK),
    ("search \"(artist == 'bjö')\"", []),                      # == is a whole-value match
    ("find \"(artist != 'Björk')\"", but(*BJORK)),
    ("find \"(artist contains 'jör')\"", BJORK),
    ("find \"(artist contains 'JÖR')\"", []),
    ("search \"(artist contains 'JÖR')\"", BJORK),
    ("find \"(artist !contains 'r')\"", [*NO_ARTIST, "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a"]),
    ("find \"(artist =~ '^Art.*B$')\"", ["Compilations/B/Greatest Hits/01 Song B.flac",
                                        "Compilations/B/Greatest Hits/02 Song C.flac", "Various/Duets/01 Duet.flac"]),
    ("search \"(artist =~ '^art.*b$')\"", ["Compilations/B/Greatest Hits/01 Song B.flac",
                                          "Compilations/B/Greatest Hits/02 Song C.flac", "Various/Duets/01 Duet.flac"]),
    ("find \"(artist !~ 'A')\"", but("Compilations/A/Greatest Hits/01 Song A.flac",
                                    "Compilations/B/Greatest Hits/01 Song B.flac",
                                    "Compilations/B/Greatest Hits/02 Song C.flac", "Various/Duets/01 Duet.flac")),
    ("find \"((artist == 'Artist B') AND (title == 'Song C'))\"", ["Compilations/B/Greatest Hits/02 Song C.flac"]),
    ("find \"((artist == 'Artist A') AND (album == 'Duets') AND (genre == 'Jazz'))\"", ["Various/Duets/01 Duet.flac"]),
    ("find \"(!(artist == 'Artist B'))\"", but("Compilations/B/Greatest Hits/01 Song B.flac",
                                              "Compilations/B/Greatest Hits/02 Song C.flac",
                                              "Various/Duets/01 Duet.flac")),
    ("find \"(((artist == 'Artist A')))\"", ["Compilations/A/Greatest Hits/01 Song A.flac",
                                            "Various/Duets/01 Duet.flac"]),
    ("find \"(artist==\\\"Artist A\\\")\"", ["Compilations/A/Greatest Hits/01 Song A.flac",
                                            "Various/Duets/01 Duet.flac"]),
    ("find \"(title == 'a')\" \"(album == 'alpha')\"", ["Various/Sorting/a.flac"]),
    ("find \"(base 'Various/Sorting')\"", SORTING),
    ("find \"(base '')\"", ALL),
    ("find \"(modified-since '2020-09-30T00:00:00Z')\"", ["Various/Sorting/e.flac", *SORTING[-2:]]),
    ("find \"(modified-since '2000-01-01')\"", ALL),
    ("find \"(file == 'intro.flac')\"", ["intro.flac"]),
    ("find \"(file == '')\"", []),
    ("find \"(any == 'Pop')\"", BJORK),
    ("find \"(any == '')\"", []),
    ("find \"(AudioFormat == '8000:16:1')\"", but("Björk/Debut/02 Crying.mp3",
                                                 "Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg",
                                                 "Sigur Rós/Ágætis byrjun/02 Starálfur.opus",
                                                 "Various/Quotes/01 Quotes.mp3",
                                                 "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a")),
    ("find \"(AudioFormat =~ '*:24:*')\"", ["Björk/Debut/02 Crying.mp3", "Various/Quotes/01 Quotes.mp3"]),
    ("find \"(AudioFormat =~ '48000:*:*')\"", ["Sigur Rós/Ágætis byrjun/02 Starálfur.opus"]),
    ("find \"(audioformat =~ '*:f:1')\"", ["Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg",
                                          "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a"]),
    # '' matches a missing tag; AlbumArtist falls back to Artist; multi-value tags match any value
    # (and != / !contains need that no value matches).
    ("find \"(artist == '')\"", NO_ARTIST),
    ("find \"(album == '')\"", ["untagged.wav", *SORTING[-2:]]),
    ("find \"(artist != '')\"", but(*NO_ARTIST)),
    ("find \"(albumartist == 'Artist A')\"", ["Compilations/A/Greatest Hits/01 Song A.flac",
                                             "Various/Duets/01 Duet.flac"]),
    ("find albumartist Nature", ["Various/Field/wind.wav"]),
    ("find genre Jazz", ["Various/Duets/01 Duet.flac"]),
    ("find genre Rock", ["Various/Duets/01 Duet.flac"]),
    ("find \"(genre != 'Rock')\"", but("Various/Duets/01 Duet.flac")),
    ("find \"(title == 'Say \\\"hi\\\" and it\\\\'s a back\\\\\\\\slash')\"", ["Various/Quotes/01 Quotes.mp3"]),
    ("search title チベタン", ["坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a"]),
    ("search album ágætis", ["Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg",
                             "Sigur Rós/Ágætis byrjun/02 Starálfur.opus"]),
])
def test_filters_select_songs_in_database_order(db_server, command, expected):
    with db_server.connect() as c:
        lines = c.command(command)
        assert lines[-1] == "OK", lines
        assert uris(lines) == expected


@pytest.mark.parametrize("command, expected", [
    ("find \"(artist starts_with 'Art')\"", ["Compilations/A/Greatest Hits/01 Song A.flac",
                                            "Compilations/B/Greatest Hits/01 Song B.flac",
                                            "Compilations/B/Greatest Hits/02 Song C.flac", "Various/Duets/01 Duet.flac"]),
    ("find \"(artist starts_with 'art')\"", []),
    ("search \"(artist starts_with 'art')\"", ["Compilations/A/Greatest Hits/01 Song A.flac",
                                              "Compilations/B/Greatest Hits/01 Song B.flac",
                                              "Compilations/B/Greatest Hits/02 Song C.flac",
                                              "Various/Duets/01 Duet.flac"]),
    ("find \"(artist eq_ci 'BJÖRK')\"", BJORK),
    ("search \"(artist eq_cs 'björk')\"", []),
    ("search \"(artist eq_cs 'Björk')\"", BJORK),
    ("search \"(artist contains_cs 'JÖR')\"", []),
    ("find \"(artist contains_ci 'JÖR')\"", BJORK),
    ("find \"(artist !eq_ci 'björk')\"", but(*BJORK)),
    ("find \"(added-since '2000-01-01')\"", ALL),
])
def test_filters_added_in_mpd_024(db_server, command, expected):
    tonearm_only(db_server, "starts_with, eq_cs/eq_ci/contains_cs/contains_ci and added-since are 0.24 "
                            "(0.23 answers '==' or '!=' expected / Unknown filter type)")
    with db_server.connect() as c:
        assert uris(c.command(command)) == expected


def test_operators_unknown_to_mpd_023(db_server):
    if db_server.kind != "mpd":
        pytest.skip("documents what Debian's MPD 0.23 says about 0.24 operators")
    with db_server.connect() as c:
        assert c.command("find \"(artist starts_with 'A')\"") == ["ACK [2@0] {find} '==' or '!=' expected"]
        assert c.command("find \"(added-since '2020')\"") == ["ACK [2@0] {find} Unknown filter type: added-since"]


@pytest.mark.parametrize("command, expected", [
    # Strings sort byte-wise (uppercase before lowercase, missing tag = ""), stable.
    ("find \"(base 'Various/Sorting')\" sort Title", [
        "Various/Sorting/B.flac", "Various/Sorting/a.flac", "Various/Sorting/c.flac", "Various/Sorting/d.flac",
        "Various/Sorting/e.flac", "Various/Sorting/lower/x.flac", "Various/Sorting/Upper/y.flac"]),
    ("find \"(base 'Various/Sorting')\" sort -Title", [
        "Various/Sorting/Upper/y.flac", "Various/Sorting/lower/x.flac", "Various/Sorting/e.flac",
        "Various/Sorting/d.flac", "Various/Sorting/c.flac", "Various/Sorting/a.flac", "Various/Sorting/B.flac"]),
    ("find \"(base 'Various/Sorting')\" sort Album", [
        "Various/Sorting/lower/x.flac", "Various/Sorting/Upper/y.flac", "Various/Sorting/c.flac",
        "Various/Sorting/a.flac", "Various/Sorting/B.flac", "Various/Sorting/e.flac", "Various/Sorting/d.flac"]),
    # Track is numeric; a descending sort keeps equal keys in database order (a before B).
    ("find \"(base 'Various/Sorting')\" sort Track", [
        "Various/Sorting/lower/x.flac", "Various/Sorting/Upper/y.flac", "Various/Sorting/c.flac",
        "Various/Sorting/a.flac", "Various/Sorting/B.flac", "Various/Sorting/e.flac", "Various/Sorting/d.flac"]),
    ("find \"(base 'Various/Sorting')\" sort -Track", [
        "Various/Sorting/d.flac", "Various/Sorting/e.flac", "Various/Sorting/a.flac", "Various/Sorting/B.flac",
        "Various/Sorting/c.flac", "Various/Sorting/lower/x.flac", "Various/Sorting/Upper/y.flac"]),
    ("find \"(base 'Various/Sorting')\" sort Last-Modified", [
        "Various/Sorting/a.flac", "Various/Sorting/B.flac", "Various/Sorting/c.flac", "Various/Sorting/d.flac",
        "Various/Sorting/e.flac", "Various/Sorting/lower/x.flac", "Various/Sorting/Upper/y.flac"]),
    ("find \"(base 'Various/Sorting')\" sort -Last-Modified", [
        "Various/Sorting/Upper/y.flac", "Various/Sorting/lower/x.flac", "Various/Sorting/e.flac",
        "Various/Sorting/d.flac", "Various/Sorting/c.flac", "Various/Sorting/B.flac", "Various/Sorting/a.flac"]),
    ("find \"(base 'Various/Sorting')\" sort album window 1:3", ["Various/Sorting/Upper/y.flac",
                                                                "Various/Sorting/c.flac"]),
    ("find \"(base 'Various/Sorting')\" window 2:4", ["Various/Sorting/e.flac", "Various/Sorting/d.flac"]),
    ("find \"(base 'Various/Sorting')\" window 5:", SORTING[5:]),
    ("find \"(base 'Various/Sorting')\" window 100:200", []),
    ("find artist \"Artist B\" sort Album", ["Various/Duets/01 Duet.flac",
                                            "Compilations/B/Greatest Hits/01 Song B.flac",
                                            "Compilations/B/Greatest Hits/02 Song C.flac"]),
    ("search \"(base '')\" sort -Title window 0:2", ["坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a",
                                                     "Various/Sorting/Upper/y.flac"]),
    # AlbumArtist sorts by its fallback (Artist) when missing.
    ("find \"(base 'Various')\" sort AlbumArtist window 7:10", ["Various/Duets/01 Duet.flac",
                                                               "Various/Field/wind.wav",
                                                               "Various/Quotes/01 Quotes.mp3"]),
])
def test_sort_and_window(db_server, command, expected):
    with db_server.connect() as c:
        lines = c.command(command)
        assert lines[-1] == "OK", lines
        assert uris(lines) == expected


@pytest.mark.parametrize("command, ack", [
    ("find", "ACK [2@0] {find} too few arguments for \"find\""),
    ("find artist", "ACK [2@0] {find} Incorrect number of filter arguments"),
    ("find artist Björk title", "ACK [2@0] {find} Incorrect number of filter arguments"),
    ("find nope x", "ACK [2@0] {find} Unknown filter type"),
    ("search nope x", "ACK [2@0] {search} Unknown filter type"),
    ("find \"(artist == 'x'\"", "ACK [2@0] {find} ')' expected"),
    ("find \"(artist == 'x') trailing\"", "ACK [2@0] {find} Unparsed garbage after expression"),
    ("find \"(artist == x)\"", "ACK [2@0] {find} Quoted string expected"),
    ("find \"(artist == 'x)\"", "ACK [2@0] {find} Closing quote not found"),
    ("find \"()\"", "ACK [2@0] {find} Word expected"),
    ("find \"(== 'x')\"", "ACK [2@0] {find} Word expected"),
    ("find \"(nope == 'x')\"", "ACK [2@0] {find} Unknown filter type: nope"),
    ("find \"((artist == 'x') and (title == 'y'))\"", "ACK [2@0] {find} 'AND' expected"),
    ("find \"((artist == 'x') OR (title == 'y'))\"", "ACK [2@0] {find} 'AND' expected"),
    ("find \"((artist == 'x') AND title == 'y')\"", "ACK [2@0] {find} Unknown filter type: itle"),
    ("find \"(!artist == 'x')\"", "ACK [2@0] {find} '(' expected"),
    ("find \"(Base 'x')\"", "ACK [2@0] {find} Unknown filter type: Base"),
    ("find \"(base x)\"", "ACK [2@0] {find} Quoted string expected"),
    ("find \"(base 'nope')\"", "ACK [50@0] {find} No such directory"),
    ("find \"(base 'Various/Sort')\"", "ACK [50@0] {find} No such directory"),
    ("find base nope", "ACK [50@0] {find} No such directory"),
    ("find \"(modified-since 'garbage')\"", "ACK [2@0] {find} Failed to parse date"),
    ("find modified-since garbage", "ACK [2@0] {find} Failed to parse date"),
    ("find \"(AudioFormat 'x')\"", "ACK [2@0] {find} '==' or '=~' expected"),
    ("find \"(AudioFormat == 'x')\"", "ACK [2@0] {find} Failed to parse the sample rate"),
    ("find \"(AudioFormat == '44100:16')\"", "ACK [2@0] {find} Channel count missing"),
    ("find \"(artist =~ '[')\"",
     "ACK [2@0] {find} Error in regex at offset 1: missing terminating ] for character class"),
    ("search \"(artist =~ '(')\"", "ACK [2@0] {search} Error in regex at offset 1: missing closing parenthesis"),
    ("find \"(artist =~ '*')\"",
     "ACK [2@0] {find} Error in regex at offset 0: quantifier does not follow a repeatable item"),
    ("find \"(artist =~ 'a{2,1}')\"",
     "ACK [2@0] {find} Error in regex at offset 5: numbers out of order in {} quantifier"),
    ("count \"(artist =~ ')')\"", "ACK [2@0] {count} Error in regex at offset 0: unmatched closing parenthesis"),
    ("find \"(artist == 'A')\" sort", "ACK [2@0] {find} Incorrect number of filter arguments"),
    ("find \"(artist == 'A')\" window", "ACK [2@0] {find} Incorrect number of filter arguments"),
    ("find \"(artist == 'A')\" window x", "ACK [2@0] {find} Integer or range expected: x"),
    ("find \"(artist == 'A')\" window 3:1", "ACK [2@0] {find} Malformed range: 3:1"),
    ("find \"(artist == 'A')\" sort Nope", "ACK [2@0] {find} Unknown sort tag"),
    ("search \"(artist == 'A')\" sort Nope", "ACK [2@0] {search} Unknown sort tag"),
])
def test_malformed_filters(db_server, command, ack):
    with db_server.connect() as c:
        assert c.command(command) == [ack]


@pytest.mark.parametrize("command, ack", [
    ("find \"(artist 'x')\"", "ACK [2@0] {find} Unknown filter operator: 'x')"),
    ("find \"(artist contains'x')\"", "ACK [2@0] {find} Unknown filter operator: contains'x')"),
])
def test_malformed_filters_mpd_024(db_server, command, ack):
    # 0.23 says "'==' or '!=' expected" for a bad operator; 0.24 names it (seen from 0.24.13).
    tonearm_only(db_server, "0.24's operator error message")
    with db_server.connect() as c:
        assert c.command(command) == [ack]


def test_old_style_audioformat_is_refused(db_server):
    """`find AudioFormat VALUE`: MPD (0.23.12 and 0.24.13 alike) makes a tag filter of the
    AudioFormat filter's number, which is no tag, and answers OK with no song; Tonearm says
    the filter type is unknown, as it is for any other word that names nothing it can match."""
    tonearm_only(db_server, "MPD accepts it and matches nothing", beyond_mpd=True)
    with db_server.connect() as c:
        assert c.command("find AudioFormat 8000:16:1") == ["ACK [2@0] {find} Unknown filter type"]


@pytest.mark.parametrize("command", [
    "count base nope", "count \"(base 'nope')\" group artist", "list album base nope",
    "list album \"(base 'nope')\"", "search base nope", "find base Empty", "find \"(base 'notes.txt')\"",
    "find \"((base 'nope') AND (artist == 'x'))\"", "find \"(((base 'nope') AND (title == 'x')))\"",
    "find title x base nope", "find \"(base 'nope')\" \"(base 'Various/Field')\"",
])
def test_base_of_what_is_not_in_the_database(db_server, command):
    # MPD walks the database from the filter's first base that only ANDs lead to, so a base
    # naming neither a directory nor a song is an error, whatever the command.
    with db_server.connect() as c:
        name = command.split()[0]
        assert c.command(command) == [f"ACK [50@0] {{{name}}} No such directory"]


def test_base_that_is_no_walk_start(db_server):
    with db_server.connect() as c:
        # A negated base, or a second one, starts no walk: it just matches or not.
        everything = c.command("find \"(!(base 'nope'))\"")
        assert len(uris(everything)) == 20 and everything[-1] == "OK"
        assert c.command("find \"(base 'Various/Field')\" \"(base 'nope')\"") == ["OK"]
        # A song's URI is a base too.
        assert uris(c.command("find \"(base 'Various/Field/wind.wav')\"")) == ["Various/Field/wind.wav"]
        assert uris(c.command("find base Various/Field/wind.wav")) == ["Various/Field/wind.wav"]


def test_found_song_blocks_are_full(db_server):
    with db_server.connect() as c:
        lines = [l for l in c.command("find title Duet") if not l.startswith("Added: ")]
        assert lines == ["file: Various/Duets/01 Duet.flac", "Last-Modified: 2020-09-21T12:26:40Z",
                         "Format: 8000:16:1", "Artist: Artist A", "Artist: Artist B", "Album: Duets", "Title: Duet",
                         "Genre: Rock", "Genre: Jazz", "Track: 1", "Date: 2001", "Time: 1", "duration: 1.000", "OK"]
