"""Stored playlists: save, listplaylists, listplaylist(info), playlistadd, playlistdelete,
playlistmove, playlistclear, rename, rm, their bad names and missing playlists, and idle
`stored_playlist`.

Every test runs against Tonearm and Debian's MPD 0.23 on the short-track library
(Tests/support/playback.py, `player_server`); expected lines are MPD's whole responses. Where
MPD 0.24 differs from 0.23 (save modes, ranges for listplaylist and playlistmove), the
expectation depends on the server and a comment says why, or the test is tonearm_only.
`listplaylists` is compared sorted: MPD lists the playlist directory in readdir order, Tonearm
by name. Loading, music-folder playlists, searchplaylist, playlistlength and searchaddpl are in
test_stored_playlists_load.py."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only, without_added  # noqa: E402
from support.playback import A1, A2, A3, B1, B2, B3, URIS, pending_events  # noqa: E402

TIMESTAMP = re.compile(r"^Last-Modified: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def q(uri: str) -> str:
    return f'"{uri}"'


def files(*uris: str) -> list[str]:
    """What `listplaylist` prints for these entries."""
    return [f"file: {uri}" for uri in uris] + ["OK"]


def names(c) -> list[str]:
    lines = c.command("listplaylists")
    assert lines[-1] == "OK", lines
    return sorted(line.removeprefix("playlist: ") for line in lines if line.startswith("playlist: "))


def m3u(server, name: str) -> str:
    return (server.workdir / "playlists" / f"{name}.m3u").read_text()


def write_m3u(server, name: str, text: str):
    (server.workdir / "playlists" / f"{name}.m3u").write_text(text)


def saved(c, name: str, *uris: str):
    """Makes the stored playlist `name` hold `uris`, through the queue, and empties the queue."""
    c.command("clear")
    for uri in uris:
        assert c.command(f"add {q(uri)}") == ["OK"]
    assert c.command(f"save {q(name)}") == ["OK"]
    c.command("clear")


def test_save_writes_the_queue_as_a_plain_m3u(player_server):
    with player_server.connect() as c:
        assert c.command("listplaylists") == ["OK"]
        c.command('add "Album A"')
        assert c.command("save mine") == ["OK"]
        # One relative URI a line, no #EXTM3U header (MPD's playlist_print_uri).
        assert m3u(player_server, "mine") == f"{A1}\n{A2}\n{A3}\n"
        assert c.command("listplaylist mine") == files(A1, A2, A3)
        listing = c.command("listplaylists")
        assert listing[0] == "playlist: mine" and TIMESTAMP.match(listing[1]) and listing[2:] == ["OK"]
        # Without a mode, an existing playlist is not overwritten.
        assert c.command("save mine") == ["ACK [56@0] {save} Playlist already exists"]
        c.command("clear")
        assert c.command('save "Empty Ünïcode"') == ["OK"]
        assert m3u(player_server, "Empty Ünïcode") == ""
        assert c.command('listplaylist "Empty Ünïcode"') == ["OK"]
        assert names(c) == ["Empty Ünïcode", "mine"]


def test_save_modes(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1)
        c.command(f"add {q(B1)}")
        if player_server.kind == "mpd":
            # The modes are MPD 0.24's; 0.23's save takes the name alone.
            assert c.command("save x append") == ['ACK [2@0] {save} wrong number of arguments for "save"']
            return
        assert c.command("save x create") == ["ACK [56@0] {save} Playlist already exists"]
        assert c.command("save y append") == ["ACK [50@0] {save} No such playlist"]
        assert c.command("save y replace") == ["ACK [50@0] {save} No such playlist"]
        assert c.command("save x bogus") == [
            "ACK [2@0] {save} Unrecognized save mode, expected one of 'create', 'append', 'replace'"]
        assert c.command("save x append") == ["OK"]
        assert c.command("listplaylist x") == files(A1, B1)
        assert c.command("save x replace") == ["OK"]
        assert c.command("listplaylist x") == files(B1)
        assert c.command("save y create") == ["OK"]
        assert names(c) == ["x", "y"]


def test_bad_names(player_server):
    """MPD's spl_valid_name: not empty, no slash (no line break either, which the protocol
    cannot carry). Checked before the playlist is looked for."""
    with player_server.connect() as c:
        saved(c, "x", A1)
        for line in ['save ""', 'save "a/b"', f'playlistadd "" {q(A1)}', f'playlistadd "a/b" {q(A1)}',
                     'playlistclear ""', 'playlistdelete "a/b" 0', 'playlistmove "" 0 1', 'rename "" x',
                     'rename x ""', 'rename x "a/b"', 'rm ""', 'rm "a/b"']:
            command = line.split()[0]
            assert c.command(line) == [f"ACK [2@0] {{{command}}} Bad playlist name"], line
        assert names(c) == ["x"]


def test_missing_playlists(player_server):
    with player_server.connect() as c:
        for line in ["listplaylist nope", "listplaylistinfo nope", "load nope", "playlistclear nope",
                     "playlistdelete nope 0", "playlistmove nope 0 1", "rm nope", "rename nope other"]:
            command = line.split()[0]
            assert c.command(line) == [f"ACK [50@0] {{{command}}} No such playlist"], line
        # Moving an entry onto itself does not even look for the playlist (MPD's shortcut).
        assert c.command("playlistmove nope 1 1") == ["OK"]
        assert c.command("listplaylists") == ["OK"]


def test_playlistadd(player_server):
    with player_server.connect() as c:
        assert c.command(f"playlistadd new {q(A1)}") == ["OK"]  # creates the playlist
        assert c.command('playlistadd new "Album B"') == ["OK"]  # a directory: its songs in database order
        assert c.command("listplaylist new") == files(A1, B1, B2, B3)
        assert c.command(f"playlistadd new {q(A2)} 0") == ["OK"]
        assert c.command(f"playlistadd new {q(A3)} 5") == ["OK"]  # the end is a position too
        assert c.command("listplaylist new") == files(A2, A1, B1, B2, B3, A3)
        assert c.command(f"playlistadd new {q(A3)} 7") == ["ACK [2@0] {playlistadd} Bad position"]
        assert c.command(f"playlistadd new {q(A3)} x") == ["ACK [2@0] {playlistadd} Integer expected: x"]
        assert c.command("playlistadd new nope") == ["ACK [50@0] {playlistadd} No such directory"]
        assert c.command('playlistadd new "Album B/"') == ["ACK [50@0] {playlistadd} No such directory"]
        assert c.command(f"playlistadd new {q(A1)} 0 1") == ['ACK [2@0] {playlistadd} too many arguments for "playlistadd"']
        assert c.command("listplaylist new") == files(A2, A1, B1, B2, B3, A3)
        # Nothing found: no playlist is made.
        assert c.command("playlistadd other nope") == ["ACK [50@0] {playlistadd} No such directory"]
        assert c.command("listplaylist other") == ["ACK [50@0] {listplaylist} No such playlist"]
        assert c.command('playlistadd all ""') == ["OK"]  # the whole database
        assert c.command("listplaylist all") == files(*URIS)
        # A stream URL is stored as it is, without connecting (the name is never looked up).
        assert c.command('playlistadd web "http://radio.invalid/stream.mp3"') == ["OK"]
        assert c.command("listplaylist web") == ["file: http://radio.invalid/stream.mp3", "OK"]
        assert c.command('playlistadd web "foo://bar"') == ["ACK [2@0] {playlistadd} Unsupported URI scheme"]


def test_playlistdelete(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1, A2, A3, B1)
        assert c.command("playlistdelete x 0") == ["OK"]
        assert c.command("listplaylist x") == files(A2, A3, B1)
        assert c.command("playlistdelete x 1:3") == ["OK"]
        assert c.command("listplaylist x") == files(A2)
        # RangeArg::CheckClip: the end is clipped, a start at the end deletes nothing.
        assert c.command("playlistdelete x 1") == ["OK"]
        assert c.command("playlistdelete x 0:9") == ["OK"]
        assert c.command("listplaylist x") == ["OK"]
        saved(c, "x2", A1, A2)
        assert c.command("playlistdelete x2 3") == ["ACK [2@0] {playlistdelete} Bad song index"]
        assert c.command("playlistdelete x2 5:2") == ["ACK [2@0] {playlistdelete} Malformed range: 5:2"]
        assert c.command("playlistdelete x2 x") == ["ACK [2@0] {playlistdelete} Integer or range expected: x"]
        assert c.command("playlistdelete x2") == ['ACK [2@0] {playlistdelete} wrong number of arguments for "playlistdelete"']
        assert c.command("playlistdelete x2 -1") == ["OK"]  # -1: everything
        assert c.command("listplaylist x2") == ["OK"]


def test_playlistmove(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1, A2, A3)
        assert c.command("playlistmove x 0 2") == ["OK"]
        assert c.command("listplaylist x") == files(A2, A3, A1)
        assert c.command("playlistmove x 2 0") == ["OK"]
        assert c.command("listplaylist x") == files(A1, A2, A3)
        assert c.command("playlistmove x 0 3") == ["ACK [2@0] {playlistmove} Bad range"]
        assert c.command("playlistmove x 3 0") == ["ACK [2@0] {playlistmove} Bad range"]
        assert c.command("playlistmove x 0 y") == ["ACK [2@0] {playlistmove} Integer expected: y"]
        # 0.24 reads FROM as a range (0.23: a number).
        expected = "Integer expected: y" if player_server.kind == "mpd" else "Integer or range expected: y"
        assert c.command("playlistmove x y 0") == [f"ACK [2@0] {{playlistmove}} {expected}"]
        assert c.command("listplaylist x") == files(A1, A2, A3)


def test_playlistmove_ranges(player_server):
    tonearm_only(player_server, "playlistmove START:END TO is 0.24 (0.23: Integer expected: 0:2)")
    with player_server.connect() as c:
        saved(c, "x", A1, A2, A3, B1)
        assert c.command("playlistmove x 0:2 2") == ["OK"]  # TO counts after the range is taken out
        assert c.command("listplaylist x") == files(A3, B1, A1, A2)
        assert c.command("playlistmove x 2:4 0") == ["OK"]
        assert c.command("listplaylist x") == files(A1, A2, A3, B1)
        assert c.command("playlistmove x 2: 0") == ["ACK [2@0] {playlistmove} Open-ended range not supported"]
        assert c.command("playlistmove x 1:3 3") == ["ACK [2@0] {playlistmove} Bad range"]
        assert c.command("playlistmove x 3:5 0") == ["ACK [2@0] {playlistmove} Bad range"]
        assert c.command("listplaylist x") == files(A1, A2, A3, B1)


def test_playlistclear_rename_rm(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1, A2)
        assert c.command("playlistclear x") == ["OK"]
        assert m3u(player_server, "x") == ""
        assert c.command("rename x y") == ["OK"]
        assert names(c) == ["y"]
        assert c.command("rename y y") == ["ACK [56@0] {rename} Playlist exists already"]
        saved(c, "z", B1)
        # The new name is checked first: onto an existing playlist fails even from a missing one.
        assert c.command("rename nope z") == ["ACK [56@0] {rename} Playlist exists already"]
        assert c.command("rename y z") == ["ACK [56@0] {rename} Playlist exists already"]
        assert c.command("rm y") == ["OK"]
        assert c.command("rm y") == ["ACK [50@0] {rm} No such playlist"]
        assert names(c) == ["z"]
        assert c.command("listplaylist z") == files(B1)


def test_listplaylistinfo(player_server):
    """Song blocks for database songs; anything else is its file line alone."""
    with player_server.connect() as c:
        write_m3u(player_server, "x", f"{A1}\nmissing.flac\n/elsewhere/song.flac\n")
        one = without_added(c.command(f"lsinfo {q(A1)}"))[:-1]
        assert one[0] == f"file: {A1}" and "Title: One" in one
        assert without_added(c.command("listplaylistinfo x")) == [
            *one, "file: missing.flac", "file: /elsewhere/song.flac", "OK"]
        assert c.command("listplaylist x") == files(A1, "missing.flac", "/elsewhere/song.flac")


def test_listplaylist_ranges(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1, A2, A3, B1)
        if player_server.kind == "mpd":
            # The range is MPD 0.24's.
            assert c.command("listplaylist x 1:3") == ['ACK [2@0] {listplaylist} wrong number of arguments for "listplaylist"']
            return
        assert c.command("listplaylist x 1:3") == files(A2, A3)
        assert c.command("listplaylist x 3:9") == files(B1)  # the end may pass the length
        assert c.command("listplaylist x 9:") == ["OK"]
        assert c.command("listplaylist x 2") == files(A3)
        assert c.command("listplaylist x y") == ["ACK [2@0] {listplaylist} Integer or range expected: y"]
        assert [line for line in c.command("listplaylistinfo x 3:") if line.startswith("file: ")] == [f"file: {B1}"]


def test_idle_stored_playlist(player_server):
    """Every change raises `stored_playlist`, for every client; failures and edits that change
    nothing raise none."""
    with player_server.connect() as c, player_server.connect() as watcher:
        c.command(f"add {q(A1)}")
        pending_events(watcher)
        changes = ["save x", f"playlistadd x {q(A2)}", f"playlistadd x {q(A3)} 0", "playlistmove x 0 1",
                   "playlistdelete x 0", "playlistclear x", "rename x y", 'searchaddpl y "(artist == \'Alpha\')"',
                   "rm y"]
        for line in changes:
            assert c.command(line) == ["OK"], line
            assert pending_events(watcher) == ["stored_playlist"], line
        saved(c, "z", B2)
        pending_events(watcher)
        for line in ["save z", "playlistadd z nope", "playlistmove z 0 0", "playlistmove nope 0 1", "rm nope",
                     'searchaddpl z "(artist == \'Nobody\')"', "listplaylist z", "listplaylists", "load z"]:
            c.command(line)
            assert "stored_playlist" not in pending_events(watcher), line
