"""Reading the queue and adding from the database: playlist, playlistinfo, playlistid,
currentsong's block, playlistfind, playlistsearch, plchanges, plchangesposid, findadd, searchadd,
`max_playlist_length`, and which queue commands raise the `playlist` idle event.

Every test runs against Tonearm and Debian's MPD 0.23 on the short-track library (the
`player_server` fixture); the expected lines are MPD's. Tonearm prints MPD 0.24's `Added:` song
line, which 0.23 lacks: `without_added` drops it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only, without_added  # noqa: E402
from support.playback import (A1, A2, A3, B1, B2, B3, LONG, URIS, brief, entries, listing, pending_events,  # noqa: E402
                              queue_uris, status)

ONE = ["file: Album A/01 One.flac", "Last-Modified: 2020-09-13T12:26:40Z", "Format: 8000:16:1", "Title: One",
       "Artist: Alpha", "Album: Album A", "Track: 1", "Time: 2", "duration: 2.000"]
SIX = ["file: Album B/03 Six.flac", "Last-Modified: 2020-09-18T12:26:40Z", "Format: 8000:16:1", "Title: Six",
       "Artist: Beta", "Album: Album B", "Track: 3", "Time: 2", "duration: 2.000"]


def test_queue_song_block(player_server):
    """The database block, then Pos and Id, then Prio only when non-zero; a range adds `Range:`
    after `file:` and shortens duration. Starting a song resets its priority (a `playlist`
    change)."""
    with player_server.connect() as c:
        c.command(f'add "{A1}"')
        c.command(f'add "{B3}"')
        assert without_added(c.command("playlistinfo")) == [*ONE, "Pos: 0", "Id: 1", *SIX, "Pos: 1", "Id: 2", "OK"]
        c.command("prio 3 0")
        c.command("rangeid 1 0.5:")
        block = [ONE[0], "Range: 0.500-", *ONE[1:-1], "duration: 1.500", "Pos: 0", "Id: 1", "Prio: 3", "OK"]
        assert without_added(c.command("playlistid 1")) == block
        assert without_added(c.command("playlistinfo 0")) == block
        assert c.command("currentsong") == ["OK"]  # nothing selected yet
        with player_server.connect() as watcher:
            pending_events(watcher)
            c.command("playid 2")
            assert without_added(c.command("currentsong")) == [*SIX, "Pos: 1", "Id: 2", "OK"]
            c.command("prioid 9 2")
            c.command("playid 1")
            assert without_added(c.command("currentsong")) == block[:-2] + ["OK"]
            assert set(pending_events(watcher)) == {"player", "playlist"}


def test_playlist_and_playlistinfo_ranges(player_server):
    with player_server.connect() as c:
        assert c.command("playlist") == ["OK"] and c.command("playlistinfo") == ["OK"]
        c.command("add /")
        assert c.command("playlist") == listing(*URIS)
        assert c.command("playlist x") == ['ACK [2@0] {playlist} wrong number of arguments for "playlist"']
        everything = brief(c.command("playlistinfo"))
        assert everything == entries(*[(uri, n + 1) for n, uri in enumerate(URIS)])
        assert brief(c.command("playlistinfo -1")) == everything  # -1: the whole queue
        assert brief(c.command("playlistinfo 0:")) == everything
        assert brief(c.command("playlistinfo 2")) == ["file: " + A3, "Pos: 2", "Id: 3", "OK"]
        assert [line for line in brief(c.command("playlistinfo 5:9")) if line.startswith("Id: ")] == ["Id: 6", "Id: 7"]
        assert c.command("playlistinfo 7") == ["OK"]  # start == length: empty
        assert c.command("playlistinfo 7:") == ["OK"]
        assert c.command("playlistinfo 8") == ["ACK [2@0] {playlistinfo} Bad song index"]
        assert c.command("playlistinfo 3:2") == ["ACK [2@0] {playlistinfo} Malformed range: 3:2"]
        assert c.command("playlistinfo x") == ["ACK [2@0] {playlistinfo} Integer or range expected: x"]
        assert c.command('playlistinfo ""') == ["ACK [2@0] {playlistinfo} Integer or range expected: "]
        assert c.command("playlistinfo 1 2") == [
            'ACK [2@0] {playlistinfo} too many arguments for "playlistinfo"']


def test_playlistid(player_server):
    with player_server.connect() as c:
        assert c.command("playlistid") == ["OK"]
        c.command('add "Album B"')
        assert brief(c.command("playlistid")) == entries((B1, 1), (B2, 2), (B3, 3))
        assert brief(c.command("playlistid 2")) == [f"file: {B2}", "Pos: 1", "Id: 2", "OK"]
        assert c.command("playlistid 9") == ["ACK [50@0] {playlistid} No such song"]
        assert c.command("playlistid x") == ["ACK [2@0] {playlistid} Integer expected: x"]
        assert c.command("playlistid -1") == ["ACK [2@0] {playlistid} Number too large: -1"]


def test_playlistfind_and_playlistsearch(player_server):
    """playlistfind compares exactly (case-sensitive); playlistsearch ignores case and matches
    substrings in the old TAG VALUE form. Both print queue blocks."""
    with player_server.connect() as c:
        c.command("add /")
        c.command(f'add "{A1}"')
        assert brief(c.command("playlistfind title One")) == [f"file: {A1}", "Pos: 0", "Id: 1",
                                                              f"file: {A1}", "Pos: 7", "Id: 8", "OK"]
        assert c.command("playlistfind title one") == ["OK"]
        assert brief(c.command("playlistsearch title ONE")) == brief(c.command("playlistfind title One"))
        assert [line for line in c.command("playlistsearch any i") if line.startswith("Id: ")] == [
            "Id: 5", "Id: 6"]  # Five, Six: no other title, artist or album has an i
        assert brief(c.command("playlistfind \"(artist == 'Beta')\"")) == [
            f"file: {B1}", "Pos: 3", "Id: 4", f"file: {B2}", "Pos: 4", "Id: 5", f"file: {B3}", "Pos: 5", "Id: 6", "OK"]
        assert c.command("playlistfind \"(artist == 'beta')\"") == ["OK"]
        assert len(brief(c.command("playlistsearch \"(artist == 'beta')\""))) == 10
        assert brief(c.command(f'playlistfind file "{LONG}"')) == [f"file: {LONG}", "Pos: 6", "Id: 7", "OK"]
        assert [line for line in c.command('playlistfind base "Album B"') if line.startswith("Pos: ")] == [
            "Pos: 3", "Pos: 4", "Pos: 5"]
        assert c.command("playlistfind") == ['ACK [2@0] {playlistfind} too few arguments for "playlistfind"']
        assert c.command("playlistfind title") == ["ACK [2@0] {playlistfind} Incorrect number of filter arguments"]
        assert c.command("playlistfind bogus x") == ["ACK [2@0] {playlistfind} Unknown filter type"]
        assert c.command('playlistfind "(title ==)"') == ["ACK [2@0] {playlistfind} Quoted string expected"]
        assert c.command("playlistsearch bogus x") == ["ACK [2@0] {playlistsearch} Unknown filter type"]


def test_playlistfind_sort_and_window(player_server):
    tonearm_only(player_server, "sort and window for playlistfind/playlistsearch are MPD 0.24; 0.23 answers "
                                "ACK [2@0] {playlistsearch} Unknown filter type")
    with player_server.connect() as c:
        c.command("add /")
        assert [line for line in c.command('playlistsearch title t sort title') if line.startswith("Id: ")] == [
            "Id: 3", "Id: 2"]  # Three, Two
        # Five, Four, Long, One, Six, Three, Two → window 1:3
        assert [line for line in c.command('playlistsearch artist a sort title window 1:3')
                if line.startswith("Id: ")] == ["Id: 4", "Id: 7"]
        assert [line for line in c.command('playlistfind artist Beta window 2:3')
                if line.startswith("Id: ")] == ["Id: 6"]


def test_playlistfind_sorts_by_priority(player_server):
    """`sort prio` and `sort -prio` (MPD 0.24; myMPD sorts its queue this way): a stable sort,
    so equal priorities keep their queue order either way, as Debian's MPD 0.24.13 answered the
    same sequence; then the window."""
    tonearm_only(player_server, "sort for playlistfind/playlistsearch is MPD 0.24; 0.23 answers "
                                "ACK [2@0] {playlistfind} Unknown filter type")
    with player_server.connect() as c:
        for uri in (A1, A2, A3, B1):
            c.command(f'add "{uri}"')
        for command in ("prio 5 1", "prio 9 3", "prio 5 0"):
            assert c.command(command) == ["OK"]

        def positions(command):
            return [line.removeprefix("Pos: ") for line in c.command(command) if line.startswith("Pos: ")]

        everything = '"(title != \'x\')"'
        assert positions(f"playlistfind {everything} sort prio") == ["2", "0", "1", "3"]
        assert positions(f"playlistfind {everything} sort -prio") == ["3", "0", "1", "2"]
        assert positions(f"playlistsearch {everything} sort PRIO window 1:3") == ["0", "1"]
        assert positions(f"playlistsearch {everything} sort -prio window 0:2") == ["3", "0"]
        # Priorities order only what the filter matched: Four (9) before One (5).
        assert positions("playlistsearch title o sort -prio") == ["3", "0", "1"]
        assert c.command("playlistfind title T sort prios") == ["ACK [2@0] {playlistfind} Unknown sort tag"]
        # The database has no priorities.
        assert c.command("find title T sort prio") == ["ACK [2@0] {find} Unknown sort tag"]


def test_plchanges_and_plchangesposid(player_server):
    """The queue version starts at 1 and grows by one per change; each change stamps the songs
    it touched with the version before it. `plchanges V` lists the songs stamped V or later, or
    every song when V is newer than the queue."""
    with player_server.connect() as c:
        c.command('add "Album A"')  # version 1 → 2, songs stamped 1
        c.command('add "Album B"')  # 2 → 3, songs stamped 2
        every = ["cpos: 0", "Id: 1", "cpos: 1", "Id: 2", "cpos: 2", "Id: 3", "cpos: 3", "Id: 4", "cpos: 4", "Id: 5",
                 "cpos: 5", "Id: 6", "OK"]
        assert c.command("plchangesposid 0") == every
        assert c.command("plchangesposid 2") == ["cpos: 3", "Id: 4", "cpos: 4", "Id: 5", "cpos: 5", "Id: 6", "OK"]
        assert c.command("plchangesposid 3") == ["OK"]
        assert c.command("plchangesposid 4") == every  # newer than the queue
        assert c.command("plchangesposid -1") == every  # parsed unsigned: a huge version
        c.command("swap 0 5")  # 3 → 4
        assert c.command("plchangesposid 3") == ["cpos: 0", "Id: 6", "cpos: 5", "Id: 1", "OK"]
        c.command("delete 1")  # 4 → 5: the songs after it move up
        assert c.command("plchangesposid 4") == ["cpos: 1", "Id: 3", "cpos: 2", "Id: 4", "cpos: 3", "Id: 5",
                                                 "cpos: 4", "Id: 1", "OK"]
        assert c.command("plchangesposid 5") == ["OK"]
        c.command("move 0 4")  # 5 → 6
        changed = ["cpos: 0", "Id: 3", "cpos: 1", "Id: 4", "cpos: 2", "Id: 5", "cpos: 3", "Id: 1", "cpos: 4", "Id: 6"]
        assert c.command("plchangesposid 5") == changed + ["OK"]
        assert c.command("plchangesposid 5 0:3") == changed[:6] + ["OK"]
        assert c.command("plchangesposid 5 4:") == changed[8:] + ["OK"]
        assert c.command("plchangesposid 5 9:10") == ["OK"]  # never out of range
        assert brief(c.command("plchanges 5 3:4")) == [f"file: {A1}", "Pos: 3", "Id: 1", "OK"]
        assert c.command("plchanges 6") == ["OK"]
        assert c.command("plchangesposid x") == ["ACK [2@0] {plchangesposid} Integer expected: x"]
        assert c.command("plchangesposid 0 x") == ["ACK [2@0] {plchangesposid} Integer or range expected: x"]
        assert c.command("plchanges 1 1:0") == ["ACK [2@0] {plchanges} Malformed range: 1:0"]
        assert c.command("plchangesposid") == [
            'ACK [2@0] {plchangesposid} too few arguments for "plchangesposid"']
        assert c.command("plchanges 0 0:1 2") == ['ACK [2@0] {plchanges} too many arguments for "plchanges"']


def test_findadd_and_searchadd(player_server):
    with player_server.connect() as c:
        assert c.command("findadd artist Alpha") == ["OK"]
        # findadd (unlike `add DIR`) is no bulk edit since it takes a position (0.23): each song
        # it adds is a queue version of its own.
        assert status(c)["playlist"] == "4"
        assert c.command("findadd artist alpha") == ["OK"]  # case-sensitive: nothing
        assert status(c)["playlist"] == "4"  # a findadd that finds nothing changes nothing
        assert c.command("searchadd artist BETA") == ["OK"]
        assert c.command("playlist") == listing(A1, A2, A3, B1, B2, B3)
        c.command("clear")
        assert c.command("searchadd title t sort title") == ["OK"]  # Three, Two
        assert c.command("searchadd title t sort title window 0:1") == ["OK"]
        assert c.command("findadd \"(album == 'Long')\" position 1") == ["OK"]
        assert c.command("searchadd title t window 0:2 position 0") == ["OK"]  # Two, Three
        assert c.command("playlist") == listing(A2, A3, A3, LONG, A2, A3)
        assert c.command("findadd artist Alpha position 7") == ["ACK [2@0] {findadd} Number too large: 7"]
        assert c.command("findadd artist Alpha position +1") == ["ACK [55@0] {findadd} No current song"]
        assert c.command("findadd artist Alpha position x") == ["ACK [2@0] {findadd} Integer expected: x"]
        assert c.command("findadd") == ['ACK [2@0] {findadd} too few arguments for "findadd"']
        assert c.command("findadd artist") == ["ACK [2@0] {findadd} Incorrect number of filter arguments"]
        assert c.command("findadd bogus x") == ["ACK [2@0] {findadd} Unknown filter type"]
        assert c.command("searchadd title One position") == [
            "ACK [2@0] {searchadd} Incorrect number of filter arguments"]
        assert len(queue_uris(c)) == 6


def test_max_playlist_length(make_player_server):
    """A full queue answers ACK 51; adding a directory that does not fit adds what fits first."""
    server = make_player_server('max_playlist_length "4"\n')
    with server.connect() as c, server.connect() as watcher:
        assert c.command('add "Album A"') == ["OK"]
        pending_events(watcher)
        assert c.command('add "Album B"') == ["ACK [51@0] {add} Playlist is too large"]
        assert c.command("playlist") == listing(A1, A2, A3, B1)
        assert pending_events(watcher) == ["playlist"]
        assert c.command(f'addid "{A1}"') == ["ACK [51@0] {addid} Playlist is too large"]
        assert c.command(f'add "{A1}"') == ["ACK [51@0] {add} Playlist is too large"]
        assert c.command("findadd artist Alpha") == ["ACK [51@0] {findadd} Playlist is too large"]
        assert c.command("searchadd artist beta") == ["ACK [51@0] {searchadd} Playlist is too large"]
        assert pending_events(watcher) == []
        c.command("clear")
        assert c.command("add /") == ["ACK [51@0] {add} Playlist is too large"]
        assert c.command("playlist") == listing(A1, A2, A3, B1)
        assert c.command("delete 0") == ["OK"]
        assert c.command(f'addid "{LONG}"') == ["Id: 9", "OK"]


def test_playlist_events_come_from_changes_only(player_server):
    """A second client sees `playlist` once per command that changes the queue, none for a
    rejected command or one that changes nothing."""
    with player_server.connect() as c, player_server.connect() as watcher:
        changes = ["add /", f'addid "{A1}"', "delete 0", "deleteid 2", "move 0 1", "moveid 3 0", "swap 0 1",
                   "swap 0 0", "swapid 4 4", "shuffle 0:3", "prio 1 0", "prio 1 0", "prioid 2 3",
                   "rangeid 3 0.5:", "clear", "clear"]
        for command in changes:
            reply = c.command(command)
            assert reply[-1] == "OK", (command, reply)
            assert pending_events(watcher) == ["playlist"], command
        c.command("add /")
        pending_events(watcher)
        unchanged = ["delete 7", "delete 3:3", "move 0 0", "shuffle 7", "shuffle 2:3", "prio 5 7", "add nope",
                     "delete 9", "move 0 9", "addtagid 1 artist x", "playlistinfo", "plchanges 0"]
        for command in unchanged:
            c.command(command)
        assert pending_events(watcher) == []


def test_a_command_list_is_one_change_to_an_idling_client(player_server):
    """Cantata adds an album as a command list of `add`s: a client idling meanwhile is woken
    once, with nothing left pending, as MPD runs the whole list before it tells its clients."""
    with player_server.connect() as c, player_server.connect() as watcher:
        watcher.send("idle playlist\n")
        assert watcher.nothing_within(0.3)
        # Long enough that the watcher, woken by the first `add`, would be back before the last.
        songs = [A1, A2, A3] * 100
        c.send("command_list_begin\n" + "".join(f'add "{uri}"\n' for uri in songs) + "command_list_end\n")
        assert c.read_response() == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: playlist", "OK"]
        assert pending_events(watcher) == []
        assert c.command("playlist") == listing(*songs)
