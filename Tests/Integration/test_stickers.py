"""The sticker commands (issue 6) on the fixture library, against Tonearm and Debian's MPD 0.23
(started with a sticker_file): get/set/delete/list/find on songs, every argument rule, idle
`sticker`, the admin permission, and stickers removed with their song by `update`.

MPD 0.24 additions (inc/dec, the playlist, filter and tag types, find's integer and substring
operators, sort and window, stickernames/stickertypes/stickernamestypes) run on Tonearm only:
Debian's 0.23 answers `bad request`, `unknown sticker domain` or `unknown command` there. Where
0.24 words an error differently from 0.23, both answers are asserted, each on its server."""
import shutil
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only, wait_for_scan  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

INTRO = "intro.flac"
HUMAN = "Björk/Debut/01 Human Behaviour.flac"
CRYING = "Björk/Debut/02 Crying.mp3"
SVEFN = "Sigur Rós/Ágætis byrjun/01 Svefn-g-englar.ogg"


@pytest.fixture(scope="module", params=["tonearm", "mpd"])
def sticker_server(request, fixture_library, tmp_path_factory):
    """Tonearm or MPD on the fixture library, shared by this module's tests: each test uses
    sticker names of its own, so that their stickers do not meet."""
    kind = TonearmServer if request.param == "tonearm" else MPDServer
    with kind(tmp_path_factory.mktemp(f"stickers-{request.param}"), music_dir=fixture_library.root) as started:
        started.kind = request.param
        with started.connect() as c:
            wait_for_scan(c)
        yield started


def q(text: str) -> str:
    """An argument in double quotes, escaped as the protocol wants."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_set_get_list_delete(sticker_server):
    with sticker_server.connect() as c:
        assert c.command(f"sticker set song {q(INTRO)} basic_b 2") == ["OK"]
        assert c.command(f"sticker set song {q(INTRO)} basic_a {q('one = two')}") == ["OK"]
        assert c.command(f"sticker get song {q(INTRO)} basic_a") == ["sticker: basic_a=one = two", "OK"]
        assert c.command(f"sticker set song {q(INTRO)} basic_a replaced") == ["OK"]
        listed = [line for line in c.command(f"sticker list song {q(INTRO)}") if "basic_" in line]
        assert listed == ["sticker: basic_a=replaced", "sticker: basic_b=2"]  # by name
        assert c.command(f"sticker delete song {q(INTRO)} basic_a") == ["OK"]
        assert c.command(f"sticker find song \"\" basic_a") == ["OK"]
        assert c.command(f"sticker find song \"\" basic_b") == [f"file: {INTRO}", "sticker: basic_b=2", "OK"]
        assert c.command(f"sticker delete song {q(INTRO)} basic_b") == ["OK"]


def test_quirks_empty_name_and_empty_value(sticker_server):
    """An empty name: 0.23 ignores it with OK, 0.24.9 and later refuse it (`empty sticker name`
    in StickerCommands.cxx's `handle_sticker`, before the song is looked up). An empty value
    lists, but `get` cannot tell it from a missing sticker (both MPDs compare the value with "")."""
    with sticker_server.connect() as c:
        empty_name = ["ACK [2@0] {sticker} empty sticker name"] if sticker_server.kind == "tonearm" else ["OK"]
        assert c.command(f'sticker set song {q(CRYING)} "" ignored') == empty_name
        assert c.command('sticker set song nope.flac "" ignored') == \
            (empty_name if sticker_server.kind == "tonearm" else ["ACK [50@0] {sticker} No such song"])
        assert "sticker: =ignored" not in c.command(f"sticker list song {q(CRYING)}")
        assert c.command(f'sticker set song {q(CRYING)} quirk_empty ""') == ["OK"]
        assert "sticker: quirk_empty=" in c.command(f"sticker list song {q(CRYING)}")
        assert not any(line.startswith("sticker: =") for line in c.command(f"sticker list song {q(CRYING)}"))
        missing = c.command(f"sticker get song {q(CRYING)} quirk_empty")
        assert missing == (['ACK [50@0] {sticker} no such sticker: "quirk_empty"'] if sticker_server.kind == "tonearm"
                           else ["ACK [50@0] {sticker} no such sticker"])
        assert c.command(f"sticker delete song {q(CRYING)} quirk_empty") == ["OK"]


ARGUMENT_ERRORS = [
    ("sticker", 'ACK [2@0] {sticker} too few arguments for "sticker"'),
    ("sticker get song", 'ACK [2@0] {sticker} too few arguments for "sticker"'),
    (f"sticker get song {q(INTRO)}", "ACK [2@0] {sticker} bad request"),
    (f"sticker get song {q(INTRO)} a b", "ACK [2@0] {sticker} bad request"),
    (f"sticker list song {q(INTRO)} a", "ACK [2@0] {sticker} bad request"),
    (f"sticker set song {q(INTRO)} a", "ACK [2@0] {sticker} bad request"),
    (f"sticker set song {q(INTRO)} a b c", "ACK [2@0] {sticker} bad request"),
    (f"sticker delete song {q(INTRO)} a b", "ACK [2@0] {sticker} bad request"),
    ('sticker find song ""', "ACK [2@0] {sticker} bad request"),
    ('sticker find song "" a =', "ACK [2@0] {sticker} bad request"),
    (f"sticker Get song {q(INTRO)} a", "ACK [2@0] {sticker} bad request"),
    (f"sticker nonsense song {q(INTRO)}", "ACK [2@0] {sticker} bad request"),
    ("sticker get song nope.flac a", "ACK [50@0] {sticker} No such song"),
    ("sticker set song nope.flac a 1", "ACK [50@0] {sticker} No such song"),
    ("sticker list song nope.flac", "ACK [50@0] {sticker} No such song"),
    ("sticker delete song nope.flac", "ACK [50@0] {sticker} No such song"),
    ('sticker set song "" a 1', "ACK [50@0] {sticker} No such song"),
    ("sticker set song Björk a 1", "ACK [50@0] {sticker} No such song"),
    ("sticker set song /intro.flac a 1", "ACK [50@0] {sticker} No such song"),
    ("sticker set song ../intro.flac a 1", "ACK [50@0] {sticker} No such song"),
]


@pytest.mark.parametrize("line,expected", ARGUMENT_ERRORS, ids=[line for line, _ in ARGUMENT_ERRORS])
def test_argument_errors(sticker_server, line, expected):
    with sticker_server.connect() as c:
        assert c.command(line) == [expected]


# Errors MPD 0.24 words differently from 0.23: (line, 0.23's answer, 0.24's answer).
REWORDED = [
    (f"sticker get song {q(INTRO)} missing", "ACK [50@0] {sticker} no such sticker",
     'ACK [50@0] {sticker} no such sticker: "missing"'),
    (f"sticker delete song {q(INTRO)} missing", "ACK [50@0] {sticker} no such sticker",
     'ACK [50@0] {sticker} no such sticker: "missing"'),
    # 0.24 aborts here (no name to print); MPD's fix (#2572) answers with the URI.
    ("sticker delete song untagged.wav", "ACK [50@0] {sticker} no such sticker",
     'ACK [50@0] {sticker} no stickers found: "untagged.wav"'),
    (f"sticker get nonsense {q(INTRO)} a", "ACK [2@0] {sticker} unknown sticker domain",
     'ACK [2@0] {sticker} unknown sticker domain "nonsense"'),
    (f"sticker get Song {q(INTRO)} a", "ACK [2@0] {sticker} unknown sticker domain",
     'ACK [2@0] {sticker} unknown sticker domain "Song"'),
    ('sticker find song "" a ~ 1', "ACK [2@0] {sticker} bad operator", 'ACK [2@0] {sticker} bad operator "~"'),
]


@pytest.mark.parametrize("line,mpd023,mpd024", REWORDED, ids=[line for line, _, _ in REWORDED])
def test_errors_worded_as_each_version(sticker_server, line, mpd023, mpd024):
    with sticker_server.connect() as c:
        assert c.command(line) == [mpd024 if sticker_server.kind == "tonearm" else mpd023]


def test_find_below_a_directory_with_string_operators(sticker_server):
    with sticker_server.connect() as c:
        for uri, value in [(INTRO, "4"), (HUMAN, "10"), (CRYING, "2"), (SVEFN, "3")]:
            assert c.command(f"sticker set song {q(uri)} find_r {value}") == ["OK"]

        def found(arguments):
            lines = c.command(f"sticker find song {arguments}")
            assert lines[-1] == "OK", lines
            return [(lines[i].removeprefix("file: "), lines[i + 1].removeprefix("sticker: find_r="))
                    for i in range(0, len(lines) - 1, 2)]

        # by URI, as the unique index orders them
        assert found('"" find_r') == [(HUMAN, "10"), (CRYING, "2"), (SVEFN, "3"), (INTRO, "4")]
        assert found("Björk find_r") == [(HUMAN, "10"), (CRYING, "2")]
        assert found("Björk/Debut find_r") == [(HUMAN, "10"), (CRYING, "2")]
        # a directory, not a string prefix; and case matters
        for base in ["Bj", "Björk/", "björk", "/", q(CRYING), "Nowhere"]:
            assert found(f"{base} find_r") == [], base
        # values compare as strings: "10" < "3"
        assert found('"" find_r = 4') == [(INTRO, "4")]
        assert found('"" find_r = 04') == []
        assert found('"" find_r < 3') == [(HUMAN, "10"), (CRYING, "2")]
        assert found('"" find_r > 3') == [(INTRO, "4")]
        assert found('"" find_r > ""') == [(HUMAN, "10"), (CRYING, "2"), (SVEFN, "3"), (INTRO, "4")]
        for uri in [INTRO, HUMAN, CRYING, SVEFN]:
            c.command(f"sticker delete song {q(uri)} find_r")


def test_idle_sticker_for_changes_only(sticker_server):
    with sticker_server.connect() as watcher, sticker_server.connect() as c:
        watcher.send("idle sticker\n")
        assert c.command(f"sticker set song {q(INTRO)} idle_a 1") == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: sticker", "OK"]
        # failures change nothing and raise nothing
        watcher.send("idle sticker\n")
        assert c.command("sticker set song nope.flac idle_a 1")[0].startswith("ACK [50@0]")
        assert c.command(f"sticker delete song {q(INTRO)} idle_missing")[0].startswith("ACK [50@0]")
        assert c.command(f'sticker set song {q(INTRO)} "" 1') == \
            (["ACK [2@0] {sticker} empty sticker name"] if sticker_server.kind == "tonearm" else ["OK"])
        assert watcher.nothing_within(0.3)
        assert c.command(f"sticker delete song {q(INTRO)} idle_a") == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: sticker", "OK"]


@pytest.mark.parametrize("kind", ["tonearm", "mpd"])
def test_stickers_need_admin(kind, fixture_library, tmp_path):
    cls = TonearmServer if kind == "tonearm" else MPDServer
    config = 'password "secret@read,add,control,admin"\ndefault_permissions "read,add,control"\n'
    with cls(tmp_path / kind, extra_config=config, music_dir=fixture_library.root) as server, server.connect() as c:
        assert c.command(f"sticker list song {q(INTRO)}") == ['ACK [4@0] {sticker} you don\'t have permission for "sticker"']
        assert "command: sticker" in c.command("notcommands")
        assert "command: sticker" not in c.command("commands")
        assert c.command("password secret") == ["OK"]
        assert "command: sticker" in c.command("commands")


def test_without_sticker_file_the_commands_are_hidden_and_disabled(make_tonearm):
    # MPD hides them the same way, but cannot be given a second sticker_file line to unset it.
    server = make_tonearm('sticker_file ""\n')
    with server.connect() as c:
        names = c.command("commands")
        assert not [line for line in names if line.startswith("command: sticker")]
        assert "command: subscribe" in names
        for line in ["sticker list song intro.flac", "sticker get x y z", "stickernames", "stickertypes",
                     "stickernamestypes"]:
            command = line.split()[0]
            assert c.command(line) == [f"ACK [5@0] {{{command}}} sticker database is disabled"]
    assert not (server.workdir / "stickers.sqlite").exists()


def test_a_songs_stickers_go_when_the_song_leaves_the_database(private_db_server):
    """MPD 0.23 deletes them as the update removes the song, 0.24 (and Tonearm) right after the
    update: either way they are gone when the song comes back."""
    music = private_db_server.library.root
    with private_db_server.connect() as watcher, private_db_server.connect() as c:
        assert c.command(f"sticker set song {q(CRYING)} rating 5") == ["OK"]
        assert c.command(f"sticker set song {q(HUMAN)} rating 4") == ["OK"]
        watcher.command("idle sticker")  # the sets above
        shutil.move(music / CRYING, music.parent / "aside.mp3")
        watcher.send("idle sticker\n")
        assert c.command("update")[-1] == "OK"
        assert watcher.read_response(timeout=30) == ["changed: sticker", "OK"]
        wait_for_scan(c)
        assert c.command(f"sticker list song {q(CRYING)}") == ["ACK [50@0] {sticker} No such song"]
        assert c.command('sticker find song "" rating') == [f"file: {HUMAN}", "sticker: rating=4", "OK"]
        shutil.move(music.parent / "aside.mp3", music / CRYING)
        assert c.command("update")[-1] == "OK"
        wait_for_scan(c)
        assert c.command(f"sticker list song {q(CRYING)}") == ["OK"]
        assert c.command(f"sticker list song {q(HUMAN)}") == ["sticker: rating=4", "OK"]


# --- MPD 0.24 (Tonearm only) ---------------------------------------------------------------
# What these tests expect of 0.24 was read in MPD's source at v0.24.13:
# src/command/StickerCommands.cxx (`handle_sticker`, the domain handlers, `handle_sticker_names_types`)
# and src/sticker/Database.cxx (the SQL statements).

REASON_OPS = "inc/dec, find's eq/lt/gt/contains/starts_with, sort and window are MPD 0.24"


def test_inc_and_dec(sticker_server):
    """0.24 runs `INSERT ... VALUES(DELTA) ON CONFLICT DO UPDATE SET value = value ± DELTA` with
    DELTA as text (Database.cxx, STICKER_SQL_INC/DEC): a missing sticker starts at DELTA itself,
    for `dec` too, and DELTA is not checked; SQLite counts text that is no number as 0."""
    tonearm_only(sticker_server, REASON_OPS)
    with sticker_server.connect() as c:
        def value(name):
            return c.command(f"sticker get song {q(INTRO)} {name}")

        assert c.command(f"sticker inc song {q(INTRO)} count_a 3") == ["OK"]  # created with the delta
        assert c.command(f"sticker inc song {q(INTRO)} count_a 2") == ["OK"]
        assert value("count_a") == ["sticker: count_a=5", "OK"]
        assert c.command(f"sticker dec song {q(INTRO)} count_a 7") == ["OK"]
        assert value("count_a") == ["sticker: count_a=-2", "OK"]
        assert c.command(f"sticker dec song {q(INTRO)} count_b 1") == ["OK"]
        assert value("count_b") == ["sticker: count_b=1", "OK"]  # +DELTA, as MPD inserts it
        assert c.command(f"sticker inc song {q(INTRO)} count_a x") == ["OK"]
        assert value("count_a") == ["sticker: count_a=-2", "OK"]
        assert c.command(f"sticker inc song {q(INTRO)} count_a -1") == ["OK"]
        assert value("count_a") == ["sticker: count_a=-3", "OK"]
        assert c.command(f"sticker inc song {q(INTRO)} count_c x") == ["OK"]
        assert value("count_c") == ["sticker: count_c=x", "OK"]
        assert c.command(f"sticker inc song {q(INTRO)} count_a") == ["ACK [2@0] {sticker} bad request"]
        assert c.command(f'sticker dec song {q(INTRO)} "" 1') == ["ACK [2@0] {sticker} empty sticker name"]
        assert c.command("sticker inc song nope.flac count_a 1") == ["ACK [50@0] {sticker} No such song"]
        for name in ["count_a", "count_b", "count_c"]:
            assert c.command(f"sticker delete song {q(INTRO)} {name}") == ["OK"]


def test_find_operators_sort_and_window(sticker_server):
    tonearm_only(sticker_server, REASON_OPS)
    with sticker_server.connect() as c:
        for uri, value in [(INTRO, "07"), (HUMAN, "10"), (CRYING, "9"), (SVEFN, "abc")]:
            assert c.command(f"sticker set song {q(uri)} ops {value}") == ["OK"]

        def found(arguments):
            lines = c.command(f'sticker find song "" ops {arguments}')
            assert lines[-1] == "OK", lines
            return [lines[i + 1].removeprefix("sticker: ops=") for i in range(0, len(lines) - 1, 2)]

        assert found("eq 7") == ["07"]
        assert found("lt 9") == ["abc", "07"]  # by URI: Sigur Rós before intro.flac
        assert found("gt 8") == ["10", "9"]
        assert found("contains b") == ["abc"]
        assert found("starts_with 1") == ["10"]
        assert found("sort value") == ["07", "10", "9", "abc"]
        assert found("sort value_int") == ["abc", "07", "9", "10"]
        assert found("sort -value_int") == ["10", "9", "07", "abc"]
        assert found("sort -uri") == ["07", "abc", "9", "10"]
        assert found("gt 0 sort value_int window 1:") == ["9", "10"]
        assert found("sort value_int window 0:2") == ["abc", "07"]
        assert found("window 3:9") == ["07"]
        assert c.command('sticker find song "" ops sort name') == ['ACK [2@0] {sticker} Unknown sort tag "name"']
        assert c.command('sticker find song "" ops window x') == ["ACK [2@0] {sticker} Integer or range expected: x"]
        # MPD takes `window`, then `sort`, off the end and ignores words after OP VALUE
        assert c.command('sticker find song "" ops = 10 sort') == [f"file: {HUMAN}", "sticker: ops=10", "OK"]
        assert c.command('sticker find song "" ops window 0:1 sort uri') == ['ACK [2@0] {sticker} bad operator "window"']
        assert c.command('sticker find song "" ops sort') == ['ACK [2@0] {sticker} bad operator "sort"']
        for uri in [INTRO, HUMAN, CRYING, SVEFN]:
            c.command(f"sticker delete song {q(uri)} ops")


def test_tag_filter_and_playlist_types(sticker_server):
    tonearm_only(sticker_server, "sticker types other than song are MPD 0.24")
    (sticker_server.workdir / "playlists" / "Mine.m3u").write_text("intro.flac\n")
    with sticker_server.connect() as c:
        # tags: the value must be one some song has (with MPD's fallbacks); names ignore case
        assert c.command("sticker set artist Björk like 1") == ["OK"]
        assert c.command("sticker get Artist Björk like") == ["sticker: like=1", "OK"]
        assert c.command('sticker find ARTIST "" like') == ["Artist: Björk", "sticker: like=1", "OK"]
        assert c.command("sticker set Artist Nobody like 1") == ['ACK [2@0] {sticker} no such Artist: "Nobody"']
        assert c.command("sticker set Artist björk like 1") == ['ACK [2@0] {sticker} no such Artist: "björk"']
        assert c.command("sticker set Track 1 like 1") == ['ACK [2@0] {sticker} unsupported tag: "Track"']
        # filters: stored as MPD normalises them, and they must match a song
        assert c.command("sticker set filter \"(artist == 'Björk')\" like 2") == ["OK"]
        assert c.command('sticker get filter "(Artist == \\"Björk\\")" like') == ["sticker: like=2", "OK"]
        assert c.command('sticker find filter "" like') == ['filter: (Artist == "Björk")', "sticker: like=2", "OK"]
        assert c.command("sticker set filter \"(artist == 'Nobody')\" like 1") == \
            ['ACK [2@0] {sticker} no matches found: "(Artist == \\"Nobody\\")"']  # fmt's {:?} escapes
        # a syntax error reaches MPD's generic error path: ACK 5, where `find` says ACK 2
        assert c.command('sticker set filter "(artist ==" like 1') == ["ACK [5@0] {sticker} Quoted string expected"]
        assert c.command('sticker set filter "(nope == \\"x\\")" like 1') == \
            ["ACK [5@0] {sticker} Unknown filter type: nope"]
        # playlists: a stored playlist must exist
        assert c.command("sticker set playlist Mine like 3") == ["OK"]
        assert c.command("sticker list playlist Mine") == ["sticker: like=3", "OK"]
        assert c.command("sticker set playlist Other like 3") == ['ACK [2@0] {sticker} no such playlist: "Other"']
        # the listings
        names = c.command("stickernames")
        assert "name: like" in names and names[:-1] == sorted(names[:-1]) and names[-1] == "OK"
        lines = c.command("stickernamestypes")
        pairs = [(lines[i].removeprefix("name: "), lines[i + 1].removeprefix("type: ")) for i in range(0, len(lines) - 1, 2)]
        assert [pair for pair in pairs if pair[0] == "like"] == [("like", "Artist"), ("like", "filter"), ("like", "playlist")]
        assert c.command("stickernamestypes playlist") == ["name: like", "type: playlist", "OK"]
        # here MPD reads TYPE with the case-sensitive tag_name_parse, and words its errors so
        assert c.command("stickernamestypes Artist") == ["name: like", "type: Artist", "OK"]
        assert c.command("stickernamestypes artist") == ['ACK [2@0] {stickernamestypes} no such tag "artist"']
        assert c.command("stickernamestypes nonsense") == ['ACK [2@0] {stickernamestypes} no such tag "nonsense"']
        assert c.command("stickernamestypes Track") == ['ACK [2@0] {stickernamestypes} unsupported tag "Track"']
        types = c.command("stickertypes")
        assert types[:4] == ["stickertype: filter", "stickertype: playlist", "stickertype: song", "stickertype: Artist"]
        assert types[-2:] == ["stickertype: MUSICBRAINZ_WORKID", "OK"] and len(types) == 21
        # the tags among them are those the client sees, as MPD 0.24 masks them
        assert c.command("tagtypes disable Artist MUSICBRAINZ_WORKID Track") == ["OK"]
        masked = c.command("stickertypes")
        assert "stickertype: Artist" not in masked and "stickertype: MUSICBRAINZ_WORKID" not in masked
        assert masked[:4] == ["stickertype: filter", "stickertype: playlist", "stickertype: song", "stickertype: Album"]
        assert len(masked) == 19
        assert c.command("tagtypes all") == ["OK"]
        for line in ["sticker delete Artist Björk", "sticker delete filter \"(artist == 'Björk')\"",
                     "sticker delete playlist Mine"]:
            assert c.command(line) == ["OK"], line
        assert c.command("sticker delete playlist Mine") == ['ACK [50@0] {sticker} no stickers found: "Mine"']
        # rm deletes the playlist's stickers with it (MPD 0.24); a new playlist of the same name
        # starts without them
        assert c.command("sticker set playlist Mine like 4") == ["OK"]
        assert c.command("rm Mine") == ["OK"]
        (sticker_server.workdir / "playlists" / "Mine.m3u").write_text("intro.flac\n")
        assert c.command("sticker list playlist Mine") == ["OK"]
        assert "name: like" not in c.command("stickernamestypes playlist")
        (sticker_server.workdir / "playlists" / "Mine.m3u").unlink()
