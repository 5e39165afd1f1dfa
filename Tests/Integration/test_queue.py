"""Editing the queue: add, addid, delete, deleteid, clear, move, moveid, swap, swapid, shuffle,
prio, prioid, rangeid, addtagid, cleartagid, and their bad arguments.

Every test runs against Tonearm and Debian's MPD 0.23 on the short-track library
(Tests/support/playback.py, the `player_server` fixture); the expected lines are what MPD
prints, whole responses, ACK lines included.
Queue listings are compared with `brief` (file/Range/Pos/Id/Prio): the tags and formats in song
blocks are the library's business (Tests/Integration/test_database*.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.playback import (A1, A2, A3, B1, B2, B3, LONG, URIS, brief, entries, listing,  # noqa: E402
                              queue_uris, status)


def q(uri: str) -> str:
    return f'"{uri}"'


def test_add_a_song_a_directory_and_the_whole_database(player_server):
    with player_server.connect() as c:
        assert status(c)["playlist"] == "1" and status(c)["playlistlength"] == "0"
        assert c.command(f"add {q(A1)}") == ["OK"]
        assert c.command('add "Album B"') == ["OK"]  # a directory adds its songs in database order
        assert c.command("playlist") == listing(A1, B1, B2, B3)
        # Each add is one queue version, however many songs it adds.
        assert (status(c)["playlist"], status(c)["playlistlength"]) == ("3", "4")
        assert c.command("add /") == ["OK"]  # "/" and "" are the whole database
        assert c.command('add ""') == ["OK"]
        assert queue_uris(c) == [A1, B1, B2, B3, *URIS, *URIS]
        assert (status(c)["playlist"], status(c)["playlistlength"]) == ("5", "18")
        # Ids count from 1 in the order the songs were added.
        assert [line for line in c.command("playlistinfo") if line.startswith("Id: ")] == [
            f"Id: {n}" for n in range(1, 19)]


def test_add_errors(player_server):
    with player_server.connect() as c:
        assert c.command("add") == ['ACK [2@0] {add} too few arguments for "add"']
        assert c.command(f"add {q(A1)} 0 1") == ['ACK [2@0] {add} too many arguments for "add"']
        assert c.command("add nope") == ["ACK [50@0] {add} No such directory"]
        assert c.command('add "Album A/nope.flac"') == ["ACK [50@0] {add} No such directory"]
        assert c.command(f"add {q(A1)} x") == ["ACK [2@0] {add} Integer expected: x"]
        assert c.command("playlist") == ["OK"] and status(c)["playlist"] == "1"


def test_add_at_a_position(player_server):
    """An absolute position 0…length, or (MPD 0.23+) relative to the current song: +N is N songs
    after the one right after it, -N is N before it; they need a current song (one selected but
    stopped counts). MPD appends, then moves what it added: two queue versions, unless the
    position is the end."""
    with player_server.connect() as c:
        c.command('add "Album A"')
        assert status(c)["playlist"] == "2"
        assert c.command(f"add {q(LONG)} 0") == ["OK"]
        assert status(c)["playlist"] == "4"
        assert c.command(f"add {q(B1)} 4") == ["OK"]  # position == length appends
        assert status(c)["playlist"] == "5"
        assert c.command(f"add {q(B1)} 6") == ["ACK [2@0] {add} Number too large: 6"]
        assert c.command('add "Album B" 1') == ["OK"]  # a directory goes in at the position, in order
        assert c.command("playlist") == listing(LONG, B1, B2, B3, A1, A2, A3, B1)
        assert status(c)["playlist"] == "7"
        assert c.command(f"addid {q(A3)} 0") == ["Id: 9", "OK"]
        assert status(c)["playlist"] == "9"
        assert c.command(f"addid {q(A3)} 9") == ["Id: 10", "OK"]
        assert status(c)["playlist"] == "10"
        c.command("delete 0")
        c.command("delete 8")
        assert c.command(f"add {q(A1)} +0") == ["ACK [55@0] {add} No current song"]
        assert c.command(f"add {q(A1)} -0") == ["ACK [55@0] {add} No current song"]
        assert c.command("play 4") == ["OK"] and c.command("stop") == ["OK"]
        assert (status(c)["song"], status(c)["songid"]) == ("4", "1")
        c.command("clear")
        c.command('add "Album A"')
        c.command("play 1")
        c.command("stop")  # the current song stays selected: A2 at position 1
        assert c.command(f"add {q(LONG)} +0") == ["OK"]  # right after the current song
        assert c.command(f"add {q(B1)} -0") == ["OK"]  # right before it
        assert c.command(f"add {q(B2)} +1") == ["OK"]  # one after "right after"
        assert c.command(f"add {q(B3)} -1") == ["OK"]  # one before "right before"
        assert c.command("playlist") == listing(A1, B3, B1, A2, LONG, B2, A3)
        assert status(c)["song"] == "3"
        # Out of range: the message names the number without its sign.
        assert c.command(f"add {q(A1)} +9") == ["ACK [2@0] {add} Number too large: 9"]
        assert c.command(f"add {q(A1)} -9") == ["ACK [2@0] {add} Number too large: 9"]
        assert c.command(f"addid {q(A1)} +0") == ["Id: 18", "OK"]
        assert queue_uris(c)[4] == A1


# Absolute paths outside the music directory and file:// URIs: a TCP client may not add them.
REFUSED_ABSOLUTE = ["/etc/passwd", "//Album A", "file:///etc/passwd", "FILE:///etc/passwd"]
# Relative URIs with a `..`, `.` or empty segment, which name nothing in the database.
REFUSED_RELATIVE = ["../x", f"Album A/../{A1}", "Album A/", "./Album A"]


def test_add_refuses_paths_outside_the_music_directory(player_server):
    with player_server.connect() as c:
        for uri in REFUSED_ABSOLUTE:
            assert c.command(f"add {q(uri)}") == ["ACK [4@0] {add} Access denied"], uri
            assert c.command(f"addid {q(uri)}") == ["ACK [4@0] {addid} Access denied"], uri
        assert c.command("playlist") == ["OK"] and status(c)["playlist"] == "1"


def test_a_file_uri_must_hold_an_absolute_path(player_server):
    """MPD skips the `file://` prefix, in any case, and wants an absolute path after it."""
    with player_server.connect() as c:
        for uri in ("file://Album A/01 One.flac", "File://etc/passwd", "file://"):
            for command in ("add", "addid"):
                assert c.command(f"{command} {q(uri)}") == [f"ACK [2@0] {{{command}}} Malformed file:// URI"], uri


def test_add_finds_nothing_by_relative_paths_that_leave_their_folder(player_server):
    """0.23 (and Tonearm) look such a URI up in the database and find nothing; 0.24.11 answers
    ACK 2 Bad relative path (NEWS 0.24.11: fix path traversal bug)."""
    with player_server.connect() as c:
        for uri in REFUSED_RELATIVE:
            assert c.command(f"add {q(uri)}") == ["ACK [50@0] {add} No such directory"], uri
            assert c.command(f"addid {q(uri)}") == ["ACK [50@0] {addid} No such song"], uri
        assert c.command("playlist") == ["OK"] and status(c)["playlist"] == "1"


def test_addid(player_server):
    with player_server.connect() as c:
        assert c.command(f"addid {q(A1)}") == ["Id: 1", "OK"]
        assert c.command(f"addid {q(A2)}") == ["Id: 2", "OK"]
        assert c.command(f"addid {q(LONG)} 0") == ["Id: 3", "OK"]
        assert c.command(f"addid {q(B1)} 3") == ["Id: 4", "OK"]
        assert brief(c.command("playlistinfo")) == entries((LONG, 3), (A1, 1), (A2, 2), (B1, 4))
        # A song only: a directory or a missing file is "No such song".
        assert c.command('addid "Album A"') == ["ACK [50@0] {addid} No such song"]
        assert c.command("addid nope.flac") == ["ACK [50@0] {addid} No such song"]
        assert c.command(f"addid {q(A1)} 5") == ["ACK [2@0] {addid} Number too large: 5"]
        assert c.command(f"addid {q(A1)} x") == ["ACK [2@0] {addid} Integer expected: x"]
        assert c.command(f"addid {q(A1)} +0") == ["ACK [55@0] {addid} No current song"]
        assert c.command("addid") == ['ACK [2@0] {addid} too few arguments for "addid"']
        assert c.command(f"addid {q(A1)} 1 2") == ['ACK [2@0] {addid} too many arguments for "addid"']
        # An absolute path inside the music directory names the database song (LocateUri maps it
        # to the relative URI), so addid accepts it from a TCP client too.
        music = player_server.music_dir
        assert c.command(f"addid {q(f'{music}/{B2}')}") == ["Id: 5", "OK"]
        assert queue_uris(c)[-1] == B2
        # Failed adds used no id: the next one is 6.
        assert c.command(f"addid {q(B3)}") == ["Id: 6", "OK"]


def test_delete(player_server):
    with player_server.connect() as c:
        c.command("add /")
        assert c.command("delete 7") == ["OK"]  # start == length: an empty range, nothing changes
        assert status(c)["playlist"] == "2"
        assert c.command("delete 8") == ["ACK [2@0] {delete} Bad song index"]
        assert c.command("delete 3:1") == ["ACK [2@0] {delete} Malformed range: 3:1"]
        assert c.command("delete x") == ["ACK [2@0] {delete} Integer or range expected: x"]
        assert c.command("delete -2") == ["ACK [2@0] {delete} Number is negative: -2"]
        assert c.command("delete") == ['ACK [2@0] {delete} wrong number of arguments for "delete"']
        assert c.command("delete 1 2") == ['ACK [2@0] {delete} wrong number of arguments for "delete"']
        assert c.command("delete 5:10") == ["OK"]  # the end is clipped to the length
        assert c.command("delete 1:3") == ["OK"]
        assert c.command("delete 0") == ["OK"]
        assert brief(c.command("playlistinfo")) == entries((B1, 4), (B2, 5))
        assert status(c)["playlist"] == "5"
        assert c.command("delete -1") == ["OK"]  # -1 is "everything", for old clients
        assert c.command("playlist") == ["OK"]


def test_deleteid(player_server):
    with player_server.connect() as c:
        c.command('add "Album A"')
        assert c.command("deleteid 2") == ["OK"]
        assert c.command("deleteid 2") == ["ACK [50@0] {deleteid} No such song"]
        assert c.command("deleteid x") == ["ACK [2@0] {deleteid} Integer expected: x"]
        assert c.command("deleteid") == ['ACK [2@0] {deleteid} wrong number of arguments for "deleteid"']
        assert brief(c.command("playlistinfo")) == entries((A1, 1), (A3, 3))


def test_deleting_the_current_song(player_server):
    """While playing, playback goes on with the next song; while paused, it stops there."""
    with player_server.connect() as c:
        for _ in range(4):
            c.command(f"add {q(LONG)}")
        c.command("play 0")
        assert c.command("deleteid 1") == ["OK"]
        now = status(c)
        assert (now["state"], now["song"], now["songid"]) == ("play", "0", "2")
        c.command("pause 1")
        assert c.command("delete 0") == ["OK"]
        now = status(c)
        assert (now["state"], now["song"], now["songid"], now["nextsongid"]) == ("stop", "0", "3", "4")


def test_clear(player_server):
    with player_server.connect() as c:
        assert c.command("clear") == ["OK"]  # an empty queue: still a new version
        assert status(c)["playlist"] == "2"
        c.command("add /")
        c.command("play 6")
        assert c.command("clear x") == ['ACK [2@0] {clear} wrong number of arguments for "clear"']
        assert c.command("clear") == ["OK"]
        now = status(c)
        assert (now["state"], now["playlistlength"], now["playlist"]) == ("stop", "0", "4")
        assert "song" not in now and "songid" not in now
        assert c.command("currentsong") == ["OK"]
        assert c.command(f"addid {q(A1)}") == ["Id: 8", "OK"]  # ids go on counting


def test_move(player_server):
    with player_server.connect() as c:
        c.command("add /")
        assert c.command("move 0 6") == ["OK"]
        assert c.command("move 0:2 5") == ["OK"]  # a range lands with its first song at TO
        assert c.command("playlist") == listing(B1, B2, B3, LONG, A1, A2, A3)
        assert c.command("move 0: 3") == ["ACK [2@0] {move} Open-ended range not supported"]
        assert c.command("move 0:2 6") == ["ACK [2@0] {move} Number too large: 6"]
        assert c.command("move 7 0") == ["ACK [2@0] {move} Bad song index"]
        assert c.command("move 0 7") == ["ACK [2@0] {move} Number too large: 7"]
        assert c.command("move 2:1 0") == ["ACK [2@0] {move} Malformed range: 2:1"]
        assert c.command("move x 0") == ["ACK [2@0] {move} Integer or range expected: x"]
        assert c.command("move 0 x") == ["ACK [2@0] {move} Integer expected: x"]
        assert c.command("move 0") == ['ACK [2@0] {move} wrong number of arguments for "move"']
        assert c.command("move 1 +1") == ["ACK [55@0] {move} No current song"]
        assert c.command("playlist") == listing(B1, B2, B3, LONG, A1, A2, A3)
        c.command("play 3")  # LONG is the current song
        assert c.command("move 0 +0") == ["OK"]  # right after the current song
        assert c.command("playlist") == listing(B2, B3, LONG, B1, A1, A2, A3)
        assert c.command("move 6 -0") == ["OK"]  # right before it
        assert c.command("playlist") == listing(B2, B3, A3, LONG, B1, A1, A2)
        assert c.command("move 0:2 +1") == ["OK"]
        assert c.command("playlist") == listing(A3, LONG, B1, B2, B3, A1, A2)
        assert c.command("move 0:3 +0") == ["ACK [2@0] {move} Cannot move current song relative to itself"]
        assert c.command("move 1 +0") == ["ACK [2@0] {move} Cannot move current song relative to itself"]
        assert (status(c)["song"], status(c)["songid"]) == ("1", "7")


def test_moveid(player_server):
    with player_server.connect() as c:
        c.command('add "Album A"')
        c.command(f"add {q(LONG)}")
        assert c.command("moveid 1 3") == ["OK"]
        assert brief(c.command("playlistinfo")) == entries((A2, 2), (A3, 3), (LONG, 4), (A1, 1))
        assert c.command("moveid 9 0") == ["ACK [50@0] {moveid} No such song"]
        assert c.command("moveid 1 4") == ["ACK [2@0] {moveid} Number too large: 4"]
        assert c.command("moveid x 0") == ["ACK [2@0] {moveid} Integer expected: x"]
        assert c.command("moveid 1 +0") == ["ACK [55@0] {moveid} No current song"]
        c.command("playid 4")
        assert c.command("moveid 1 -0") == ["OK"]
        assert c.command("moveid 4 +0") == ["ACK [2@0] {moveid} Cannot move current song relative to itself"]
        assert c.command("playlist") == listing(A2, A3, A1, LONG)


def test_swap_and_swapid(player_server):
    with player_server.connect() as c:
        c.command('add "Album A"')
        c.command(f"add {q(LONG)}")
        assert c.command("swap 0 3") == ["OK"]
        assert brief(c.command("playlistinfo")) == entries((LONG, 4), (A2, 2), (A3, 3), (A1, 1))
        assert c.command("swap 0 4") == ["ACK [2@0] {swap} Bad song index"]
        assert c.command("swap 4 0") == ["ACK [2@0] {swap} Bad song index"]
        assert c.command("swap x 0") == ["ACK [2@0] {swap} Integer expected: x"]
        assert c.command("swap 0") == ['ACK [2@0] {swap} wrong number of arguments for "swap"']
        assert c.command("swapid 2 3") == ["OK"]
        assert c.command("playlist") == listing(LONG, A3, A2, A1)
        assert c.command("swapid 1 9") == ["ACK [50@0] {swapid} No such song"]
        assert c.command("swapid 9 1") == ["ACK [50@0] {swapid} No such song"]
        assert c.command("swapid 1 x") == ["ACK [2@0] {swapid} Integer expected: x"]
        # The current song keeps playing at its new position.
        c.command("playid 4")
        assert c.command("swap 0 2") == ["OK"]
        assert (status(c)["song"], status(c)["songid"], status(c)["state"]) == ("2", "4", "play")


def test_shuffle(player_server):
    with player_server.connect() as c:
        c.command("add /")
        assert c.command("shuffle") == ["OK"]
        assert sorted(queue_uris(c)) == sorted(URIS) and status(c)["playlist"] == "3"
        c.command("clear")
        c.command("add /")
        assert c.command("shuffle 2:5") == ["OK"]  # only that range moves
        shuffled = queue_uris(c)
        assert shuffled[:2] + shuffled[5:] == [A1, A2, B3, LONG] and sorted(shuffled[2:5]) == sorted([A3, B1, B2])
        # While playing, the current song first goes to the front of the range.
        c.command("playid 11")  # B1
        assert c.command("shuffle 2:6") == ["OK"]
        assert (status(c)["song"], status(c)["songid"]) == ("2", "11")
        assert queue_uris(c)[:2] + queue_uris(c)[6:] == [A1, A2, LONG]
        version = status(c)["playlist"]
        assert c.command("shuffle 7:9") == ["OK"]  # start == length: nothing to do
        assert c.command("shuffle 8:9") == ["ACK [2@0] {shuffle} Bad song index"]
        assert c.command("shuffle 3:2") == ["ACK [2@0] {shuffle} Malformed range: 3:2"]
        assert c.command("shuffle x") == ["ACK [2@0] {shuffle} Integer or range expected: x"]
        assert c.command("shuffle 1 2") == ['ACK [2@0] {shuffle} too many arguments for "shuffle"']
        assert status(c)["playlist"] == version


def test_prio_and_prioid(player_server):
    """Prio lines follow Id and appear only for a non-zero priority."""
    with player_server.connect() as c:
        c.command("add /")
        assert c.command("prio 5 1") == ["OK"]
        assert status(c)["playlist"] == "3"
        assert c.command("prio 10 2:4 6") == ["OK"]  # several ranges: a queue version for each
        assert status(c)["playlist"] == "5"
        assert brief(c.command("playlistinfo")) == entries(
            (A1, 1), (A2, 2, 5), (A3, 3, 10), (B1, 4, 10), (B2, 5), (B3, 6), (LONG, 7, 10))
        assert c.command("prio 0 1:3") == ["OK"]
        assert c.command("prioid 255 5 6") == ["OK"]  # several ids: a version for each
        assert status(c)["playlist"] == "8"
        assert brief(c.command("playlistinfo")) == entries(
            (A1, 1), (A2, 2), (A3, 3), (B1, 4, 10), (B2, 5, 255), (B3, 6, 255), (LONG, 7, 10))
        assert c.command("prio 256 1") == ["ACK [2@0] {prio} Number too large: 256"]
        assert c.command("prio -1 1") == ["ACK [2@0] {prio} Number too large: -1"]
        assert c.command("prio x 1") == ["ACK [2@0] {prio} Integer expected: x"]
        assert c.command("prio 5 8") == ["ACK [2@0] {prio} Bad song index"]
        assert c.command("prio 5 8:9") == ["ACK [2@0] {prio} Bad song index"]
        assert c.command("prio 5 2:1") == ["ACK [2@0] {prio} Malformed range: 2:1"]
        assert c.command("prio 5") == ['ACK [2@0] {prio} too few arguments for "prio"']
        assert c.command("prioid 256 1") == ["ACK [2@0] {prioid} Number too large: 256"]
        assert c.command("prioid 7 99") == ["ACK [50@0] {prioid} No such song"]
        assert c.command("prioid 7 x") == ["ACK [2@0] {prioid} Integer expected: x"]
        assert c.command("prioid 7") == ['ACK [2@0] {prioid} too few arguments for "prioid"']
        # Ids are applied in turn: those before a bad one keep their new priority.
        assert c.command("prioid 7 1 99 2") == ["ACK [50@0] {prioid} No such song"]
        assert brief(c.command("playlistinfo 0:2")) == entries((A1, 1, 7), (A2, 2))


def test_priority_decides_the_next_song_in_random_mode(player_server):
    """In random mode the songs after the current one play in descending priority; without
    random, the queue order stands."""
    with player_server.connect() as c:
        c.command('add "Album A"')
        c.command('add "Album B"')
        c.command("prioid 1 2")
        c.command("prioid 200 5")
        c.command("play 0")
        # Paused, so that the short song cannot end (and the next one take over) between the
        # commands on a loaded machine; a paused player keeps its current and next song.
        c.command("pause 1")
        assert status(c)["nextsongid"] == "2"  # random off: position order
        c.command("random 1")
        assert status(c)["songid"] == "1" and status(c)["nextsongid"] == "5"
        c.command("prioid 255 3")
        assert status(c)["nextsongid"] == "3"


def test_rangeid(player_server):
    """A song's playable range: START:END in seconds, either side open, ":" removes it; the
    range shows as `Range:` after `file:`, and Time/duration become the range's length."""
    def shown(c, song_id):
        return [line for line in c.command(f"playlistid {song_id}")
                if line.startswith(("file: ", "Range: ", "Time: ", "duration: ", "Pos: ", "Id: ")) or line == "OK"]

    with player_server.connect() as c:
        c.command('add "Album A"')
        c.command(f"add {q(LONG)}")
        assert c.command("rangeid 1 0.5:1.5") == ["OK"]
        assert shown(c, 1) == [f"file: {A1}", "Range: 0.500-1.500", "Time: 1", "duration: 1.000", "Pos: 0", "Id: 1",
                               "OK"]
        assert c.command("rangeid 1 1:") == ["OK"]
        assert shown(c, 1)[1:4] == ["Range: 1.000-", "Time: 1", "duration: 1.000"]
        assert c.command("rangeid 1 :1") == ["OK"]
        assert shown(c, 1)[1:4] == ["Range: 0.000-1.000", "Time: 1", "duration: 1.000"]
        assert c.command("rangeid 1 1:5") == ["OK"]  # an end past the song's end is an open end
        assert shown(c, 1)[1:4] == ["Range: 1.000-", "Time: 1", "duration: 1.000"]
        assert c.command("rangeid 1 :") == ["OK"]
        assert shown(c, 1) == [f"file: {A1}", "Time: 2", "duration: 2.000", "Pos: 0", "Id: 1", "OK"]
        assert c.command("rangeid 1 5:") == ["ACK [2@0] {rangeid} Invalid start offset"]
        for bad in ["1.5:0.5", "0.5-1.5", "x", "1:x"]:
            assert c.command(f"rangeid 1 {bad}") == ["ACK [2@0] {rangeid} Bad range"], bad
        assert c.command("rangeid 9 1:2") == ["ACK [50@0] {rangeid} No such song"]
        assert c.command("rangeid x 1:2") == ["ACK [2@0] {rangeid} Integer expected: x"]
        assert c.command("rangeid 1") == ['ACK [2@0] {rangeid} wrong number of arguments for "rangeid"']
        c.command("playid 4")
        assert c.command("rangeid 4 1:2") == ["ACK [4@0] {rangeid} Cannot edit the current song"]
        assert c.command("rangeid 2 0.25:") == ["OK"]  # others can be edited while it plays


def test_addtagid_and_cleartagid_refuse_local_files(player_server):
    with player_server.connect() as c:
        c.command(f"add {q(A1)}")
        assert c.command("addtagid 1 artist Foo") == ["ACK [4@0] {addtagid} Cannot edit tags of local file"]
        assert c.command("addtagid 1 bogus Foo") == ["ACK [2@0] {addtagid} Unknown tag type: bogus"]
        assert c.command("addtagid 9 artist Foo") == ["ACK [50@0] {addtagid} No such song"]
        assert c.command("addtagid 1 artist") == ['ACK [2@0] {addtagid} wrong number of arguments for "addtagid"']
        assert c.command("cleartagid 1 artist") == ["ACK [4@0] {cleartagid} Cannot edit tags of local file"]
        assert c.command("cleartagid 1") == ["ACK [4@0] {cleartagid} Cannot edit tags of local file"]
        assert c.command("cleartagid 1 bogus") == ["ACK [2@0] {cleartagid} Unknown tag type: bogus"]
        assert c.command("cleartagid 9") == ["ACK [50@0] {cleartagid} No such song"]
        assert c.command("cleartagid") == ['ACK [2@0] {cleartagid} too few arguments for "cleartagid"']
        assert "Artist: Alpha" in c.command("playlistid 1")
