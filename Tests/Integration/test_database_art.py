"""albumart, readpicture and readcomments on the fixture library (Tests/support/library.py),
byte-exact, against Tonearm and Debian's MPD 0.23. MPD 0.25 adds a `file:` line to albumart:
not asserted here."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import read_binary  # noqa: E402

HUMAN = '"Björk/Debut/01 Human Behaviour.flac"'


def test_albumart_pages_through_cover_jpg(db_server, fixture_library):
    cover = fixture_library.path("Björk/Debut/cover.jpg").read_bytes()
    size = len(cover)
    assert size > 8192, "the fixture cover must need two chunks"
    with db_server.connect() as c:
        assert read_binary(c, f"albumart {HUMAN} 0") == ([f"size: {size}", "binary: 8192"], cover[:8192], "OK")
        assert read_binary(c, f"albumart {HUMAN} 8192") == (
            [f"size: {size}", f"binary: {size - 8192}"], cover[8192:], "OK")
        # Any song of the directory finds it, also the other song; offset == size gives 0 bytes.
        assert read_binary(c, f'albumart "Björk/Debut/02 Crying.mp3" {size}') == (
            [f"size: {size}", "binary: 0"], b"", "OK")
        assert read_binary(c, f"albumart {HUMAN} {size + 1}") == ([], None, "ACK [2@0] {albumart} Offset too large")


def test_albumart_uses_the_directory_of_the_uri(db_server, fixture_library):
    cover = fixture_library.path("Björk/Debut/cover.jpg").read_bytes()
    with db_server.connect() as c:
        # The song need not exist.
        assert read_binary(c, 'albumart "Björk/Debut/nope.flac" 11000')[1] == cover[11000:]
        # A trailing slash names the directory itself: Cantata asks for covers this way (0.24.11
        # refuses it, ACK 2 Bad relative path). An empty segment is no segment.
        assert read_binary(c, 'albumart "Björk/Debut/" 11000')[1] == cover[11000:]
        assert read_binary(c, 'albumart "Björk//Debut/nope.flac" 11000')[1] == cover[11000:]
        assert read_binary(c, 'albumart "Björk/Debut" 0') == ([], None, "ACK [50@0] {albumart} No file exists")
        assert read_binary(c, 'albumart "Björk/Debut/01 Human Behaviour.flac/" 0') == (
            [], None, "ACK [50@0] {albumart} No file exists")


def test_albumart_finds_cover_png(db_server, fixture_library):
    cover = fixture_library.path("Sigur Rós/Ágætis byrjun/cover.png").read_bytes()
    with db_server.connect() as c:
        assert read_binary(c, 'albumart "Sigur Rós/Ágætis byrjun/02 Starálfur.opus" 0') == (
            [f"size: {len(cover)}", f"binary: {len(cover)}"], cover, "OK")


def test_albumart_honours_binarylimit(db_server, fixture_library):
    cover = fixture_library.path("Björk/Debut/cover.jpg").read_bytes()
    with db_server.connect() as c:
        assert c.command("binarylimit 64") == ["OK"]
        assert read_binary(c, f"albumart {HUMAN} 100") == ([f"size: {len(cover)}", "binary: 64"], cover[100:164], "OK")
        assert c.command("binarylimit 100000") == ["OK"]
        assert read_binary(c, f"albumart {HUMAN} 0")[1] == cover


@pytest.mark.parametrize("uri", ["intro.flac", "nope.flac", "notes.txt"])
def test_albumart_without_cover(db_server, uri):
    # The embedded picture is readpicture's, not albumart's.
    with db_server.connect() as c:
        assert read_binary(c, f'albumart "{uri}" 0') == ([], None, "ACK [50@0] {albumart} No file exists")


@pytest.mark.parametrize("command, ack", [
    (f"albumart {HUMAN} x", "ACK [2@0] {albumart} Integer expected: x"),
    (f"albumart {HUMAN} -1", "ACK [2@0] {albumart} Number too large: -1"),
    (f"albumart {HUMAN}", "ACK [2@0] {albumart} wrong number of arguments for \"albumart\""),
    (f"readpicture {HUMAN}", "ACK [2@0] {readpicture} wrong number of arguments for \"readpicture\""),
])
def test_binary_command_argument_errors(db_server, command, ack):
    with db_server.connect() as c:
        assert c.command(command) == [ack]


def test_readpicture_pages_through_the_embedded_picture(db_server):
    with db_server.connect() as c:
        head, first, end = read_binary(c, f"readpicture {HUMAN} 0")
        assert head[1:] == ["type: image/png", f"binary: {len(first)}"] and end == "OK"
        size = int(head[0].removeprefix("size: "))
        assert size == len(first) == 552 and first.startswith(b"\x89PNG\r\n\x1a\n")
        assert read_binary(c, f"readpicture {HUMAN} 100") == (
            [f"size: {size}", "type: image/png", f"binary: {size - 100}"], first[100:], "OK")
        assert read_binary(c, f"readpicture {HUMAN} {size}") == ([f"size: {size}", "type: image/png", "binary: 0"],
                                                                 b"", "OK")
        assert c.command(f"readpicture {HUMAN} {size + 1}") == ["ACK [2@0] {readpicture} Bad file offset"]
        assert c.command("binarylimit 64") == ["OK"]
        assert read_binary(c, f"readpicture {HUMAN} 0") == ([f"size: {size}", "type: image/png", "binary: 64"],
                                                           first[:64], "OK")


@pytest.mark.parametrize("uri", ["Björk/Debut/02 Crying.mp3", "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a"])
def test_readpicture_in_mp3_and_m4a(db_server, fixture_library, uri):
    with db_server.connect() as c:
        head, data, end = read_binary(c, f'readpicture "{uri}" 0')
        assert (head, end) == ([f"size: {len(data)}", "type: image/jpeg", f"binary: {len(data)}"], "OK")
        assert len(data) == 3657 and data.startswith(b"\xff\xd8\xff")


@pytest.mark.parametrize("uri", ["intro.flac", "untagged.wav", "Sigur Rós/Ágætis byrjun/02 Starálfur.opus"])
def test_readpicture_without_picture_is_empty(db_server, uri):
    with db_server.connect() as c:
        assert c.command(f'readpicture "{uri}" 0') == ["OK"]


@pytest.mark.parametrize("uri", ["nope.flac", "notes.txt", "Various/broken.flac", "Various", "mix.m3u"])
def test_readpicture_and_readcomments_of_what_is_no_song(db_server, uri):
    with db_server.connect() as c:
        assert c.command(f'readpicture "{uri}" 0') == ["ACK [50@0] {readpicture} No such song"]
        assert c.command(f'readcomments "{uri}"') == ["ACK [50@0] {readcomments} No such song"]


def test_readcomments_prints_the_raw_comments(db_server):
    with db_server.connect() as c:
        # Every Vorbis comment as written (also COMMENT, and TRACKNUMBER "1/11" unparsed).
        assert c.command(f"readcomments {HUMAN}") == [
            "ARTIST: Björk", "ALBUMARTIST: Björk", "ALBUM: Debut", "TITLE: Human Behaviour",
            "TRACKNUMBER: 1/11", "DISCNUMBER: 1/2", "DATE: 1993-06-05", "GENRE: Pop", "GENRE: Electronic",
            "COMPOSER: Björk Guðmundsdóttir", "COMMENT: first track",
            "MUSICBRAINZ_ARTISTID: 87c5dedd-371d-4a53-9f7f-80522fb7f3cb",
            "MUSICBRAINZ_ALBUMID: 9f3c3a6a-5d2f-4b66-8f0d-7b1c2c1a1b01",
            "MUSICBRAINZ_ALBUMARTISTID: 87c5dedd-371d-4a53-9f7f-80522fb7f3cb",
            "MUSICBRAINZ_TRACKID: 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "OK"]
        assert c.command('readcomments "Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg"') == [
            "encoder: Lavc libvorbis", "ARTIST: Sigur Rós", "ALBUM: Ágætis byrjun", "TITLE: Svefn-g-englar",
            "TRACKNUMBER: 1", "DATE: 1999", "GENRE: Post-Rock", "OK"]
        assert c.command('readcomments "untagged.wav"') == ["OK"]


def test_albumart_and_folder_jpg(db_server, fixture_library):
    """MPD looks for cover.png/jpg/webp only; Tonearm also takes folder.jpg (a deliberate
    difference), so this asserts each server's own answer."""
    cover = fixture_library.path("坂本龍一/音楽図鑑/folder.jpg").read_bytes()
    with db_server.connect() as c:
        answer = read_binary(c, 'albumart "坂本龍一/音楽図鑑/01 チベタン・ダンス.m4a" 0')
        if db_server.kind == "mpd":
            assert answer == ([], None, "ACK [50@0] {albumart} No file exists")
        else:
            assert answer == ([f"size: {len(cover)}", f"binary: {len(cover)}"], cover, "OK")
