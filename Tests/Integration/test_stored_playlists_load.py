"""Playing and searching playlists: load (range, position, lastloadedplaylist, a full queue),
playlist files in the music folder (.m3u, .m3u8, .pls, read relative to their folder),
playlistlength and searchplaylist (0.24), searchaddpl, stored playlists in `lsinfo` of the
root, max_playlist_length and save_absolute_paths_in_playlists.

Against Tonearm and Debian's MPD 0.23 on the short-track library, as
test_stored_playlists.py; 0.24-only behaviour is tonearm_only or server-dependent with a
comment."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only, without_added  # noqa: E402
from support.playback import A1, A2, A3, B1, B2, B3, LONG, queue_uris, status  # noqa: E402
from test_stored_playlists import files, m3u, q, saved, write_m3u  # noqa: E402


def last_loaded(c) -> str | None:
    """`lastloadedplaylist` (MPD 0.24 prints it always; Debian's 0.23 never)."""
    return status(c).get("lastloadedplaylist")


def test_load(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1, A2, A3)
        version = int(status(c)["playlist"])
        assert c.command("load x") == ["OK"]
        assert queue_uris(c) == [A1, A2, A3]
        assert int(status(c)["playlist"]) == version + 1  # one queue change for the whole playlist
        if player_server.kind == "tonearm":
            assert last_loaded(c) == "x"
        assert c.command("load x 1:2") == ["OK"]  # a range of the playlist's entries
        assert c.command("load x 2:9") == ["OK"]  # clipped to its length
        assert c.command("load x 7") == ["OK"]  # past the end: nothing
        assert queue_uris(c) == [A1, A2, A3, A2, A3]
        version = int(status(c)["playlist"])
        assert c.command("load x 0:1 1") == ["OK"]  # POSITION needs the range before it
        assert queue_uris(c) == [A1, A1, A2, A3, A2, A3]
        assert int(status(c)["playlist"]) == version + 1  # the move is part of the same change
        assert c.command("load x y") == ["ACK [2@0] {load} Integer or range expected: y"]
        assert c.command("load x 0: y") == ["ACK [2@0] {load} Integer expected: y"]
        assert c.command("load x 0: 7") == ["ACK [2@0] {load} Number too large: 7"]
        assert c.command("load nope 0: y") == ["ACK [2@0] {load} Integer expected: y"]  # arguments first
        assert c.command("load /etc/passwd") == ["ACK [4@0] {load} Access denied"]
        # 0.23 (and Tonearm) look such a name up and find nothing; 0.24.11 answers Bad relative path.
        for name in ['""', "../x", '"Album A/"', '"Album A//x.m3u"']:
            assert c.command(f"load {name}") == ["ACK [50@0] {load} No such playlist"], name
        assert queue_uris(c) == [A1, A1, A2, A3, A2, A3]
        c.command("clear")
        if player_server.kind == "tonearm":
            assert last_loaded(c) == ""  # clear forgets it


def test_load_skips_what_is_not_in_the_database(player_server):
    with player_server.connect() as c:
        write_m3u(player_server, "x", f"#EXTM3U\n{A1}\nmissing.flac\n\n  {B1}  \n/etc/passwd\n"
                                      f"Album A/../{A2}\n./{A3}\n")
        assert c.command("load x") == ["OK"]
        assert queue_uris(c) == [A1, B1, A2, A3]
        assert c.command("listplaylist x") == files(A1, "missing.flac", B1, "/etc/passwd", A2, A3)


def test_load_into_a_full_queue(make_player_server):
    server = make_player_server(extra_config='max_playlist_length "3"\n')
    with server.connect() as c:
        write_m3u(server, "x", f"{A1}\n{A2}\n{A3}\n{B1}\n{B2}\n")
        c.command(f"add {q(LONG)}")
        assert c.command("load x") == ["ACK [51@0] {load} Playlist is too large"]
        assert queue_uris(c) == [LONG, A1, A2]  # what fitted stays
        if server.kind == "tonearm":
            assert status(c)["lastloadedplaylist"] == ""


def test_stored_playlist_limit(make_player_server):
    server = make_player_server(extra_config='max_playlist_length "3"\n')
    tonearm_only(server, "MPD (0.23.12 and 0.24.13 alike) only guesses a playlist's length from its file size "
                         "when it appends (size / 4097 >= max_playlist_length), so it lets the playlist grow; "
                         "Tonearm counts the entries", beyond_mpd=True)
    with server.connect() as c:
        assert c.command('playlistadd x "Album A"') == ["OK"]
        assert c.command(f"playlistadd x {q(B1)}") == ["ACK [51@0] {playlistadd} Stored playlist is too large"]
        assert c.command(f"playlistadd x {q(B1)} 0") == ["ACK [51@0] {playlistadd} Stored playlist is too large"]
        assert c.command('searchaddpl x "(artist == \'Beta\')"') == [
            "ACK [51@0] {searchaddpl} Stored playlist is too large"]
        c.command(f"add {q(B1)}")
        assert c.command("save x append") == ["ACK [51@0] {save} Stored playlist is too large"]
        assert c.command("listplaylist x") == files(A1, A2, A3)  # untouched
        assert c.command("playlistdelete x 0") == ["OK"]
        assert c.command("save x append") == ["OK"]
        assert c.command("listplaylist x") == files(A2, A3, B1)


def test_music_folder_playlists(player_server):
    """A playlist file in the music folder is read relative to its folder, whether or not the
    database has seen it; a stored playlist of the same name comes first."""
    music = player_server.music_dir
    (music / "Album B" / "list.m3u").write_text(
        f"01 Four.flac\n../{A1}\nmissing.flac\n/elsewhere/x.flac\n{music}/{A2}\n")
    (music / "Album B" / "list.pls").write_text(
        "[playlist]\nNumberOfEntries=2\nFile2=02 Five.mp3\nFile1=01 Four.flac\nTitle1=Four\n")
    (music / "Album B" / "ext.m3u8").write_text("#EXTM3U\n#EXTINF:2,Beta - Six\n03 Six.flac\n")
    (music / "top.m3u").write_text(f"{A1}\n")
    with player_server.connect() as c:
        assert c.command('listplaylist "Album B/list.m3u"') == files(B1, A1, "Album B/missing.flac", "/elsewhere/x.flac", A2)
        assert c.command('listplaylist "Album B/list.pls"') == files(B1, B2)
        assert c.command('listplaylist "Album B/ext.m3u8"') == files(B3)
        assert c.command('load "Album B/list.m3u"') == ["OK"]
        assert queue_uris(c) == [B1, A1, A2]
        if player_server.kind == "tonearm":
            assert status(c)["lastloadedplaylist"] == "Album B/list.m3u"
        info = without_added(c.command('listplaylistinfo "Album B/list.pls"'))
        assert [line for line in info if line.startswith(("file: ", "Title: "))] == [
            f"file: {B1}", "Title: Four", f"file: {B2}", "Title: Five"]
        assert c.command("listplaylist top.m3u") == files(A1)
        saved(c, "top.m3u", B3)  # the stored playlist "top.m3u" (file top.m3u.m3u) hides it
        assert c.command("listplaylist top.m3u") == files(B3)
        for missing in ['"Album B/nope.m3u"', '"Album B"', f"{q(B1)}", "http://example.com/x.m3u"]:
            assert c.command(f"listplaylist {missing}") == ["ACK [50@0] {listplaylist} No such playlist"], missing
        assert c.command("listplaylist /etc/passwd") == ["ACK [4@0] {listplaylist} Access denied"]


def test_playlistlength(player_server):
    tonearm_only(player_server, "playlistlength is MPD 0.24 (0.23: unknown command)")
    with player_server.connect() as c:
        write_m3u(player_server, "x", f"{A1}\n{A2}\nmissing.flac\n{LONG}\n")
        # Every entry counts; only database songs add time (2 s tracks and a 120 s one).
        assert c.command("playlistlength x") == ["songs: 4", "playtime: 124", "OK"]
        write_m3u(player_server, "empty", "")
        assert c.command("playlistlength empty") == ["songs: 0", "playtime: 0", "OK"]
        assert c.command("playlistlength nope") == ["ACK [50@0] {playlistlength} No such playlist"]
        assert c.command("playlistlength") == ['ACK [2@0] {playlistlength} wrong number of arguments for "playlistlength"']


def test_searchplaylist(player_server):
    tonearm_only(player_server, "searchplaylist is MPD 0.24 (0.23: unknown command)")
    with player_server.connect() as c:
        write_m3u(player_server, "x", f"{B1}\n{A1}\nmissing.flac\n{A2}\n{A1}\n")

        def found(line):
            reply = c.command(line)
            assert reply[-1] == "OK", reply
            return [entry for entry in reply if entry.startswith(("file: ", "Pos: "))]

        # Case-insensitive like search; Pos is the entry's index in the playlist.
        assert found("searchplaylist x \"(artist == 'ALPHA')\"") == [
            f"file: {A1}", "Pos: 1", f"file: {A2}", "Pos: 3", f"file: {A1}", "Pos: 4"]
        assert found("searchplaylist x \"(artist == 'alpha')\" window 1:2") == [f"file: {A2}", "Pos: 3"]
        assert found("searchplaylist x artist beta") == [f"file: {B1}", "Pos: 0"]
        assert c.command("searchplaylist x artist beta window 0:1") == [
            'ACK [2@0] {searchplaylist} too many arguments for "searchplaylist"']
        assert c.command("searchplaylist x \"(artist == 'x')\" window y") == [
            "ACK [2@0] {searchplaylist} Integer or range expected: y"]
        assert c.command('searchplaylist x "(bad"') == ["ACK [2@0] {searchplaylist} Unknown filter type: bad"]
        assert c.command("searchplaylist nope \"(artist == 'x')\"") == [
            "ACK [50@0] {searchplaylist} No such playlist"]


def test_searchaddpl(player_server):
    with player_server.connect() as c:
        assert c.command('searchaddpl s "(artist == \'alpha\')"') == ["OK"]  # case-insensitive; creates
        assert c.command("listplaylist s") == files(A1, A2, A3)
        assert c.command('searchaddpl s "(artist == \'Beta\')" sort -track window 0:2 position 1') == ["OK"]
        assert c.command("listplaylist s") == files(A1, B3, B2, A2, A3)
        assert c.command('searchaddpl s "(artist == \'Beta\')" position 6') == ["ACK [2@0] {searchaddpl} Bad position"]
        assert c.command('searchaddpl s "(artist == \'Beta\')" position y') == ["ACK [2@0] {searchaddpl} Integer expected: y"]
        assert c.command('searchaddpl s "(bad"') == ["ACK [2@0] {searchaddpl} Unknown filter type: bad"]
        assert c.command("searchaddpl s") == ['ACK [2@0] {searchaddpl} too few arguments for "searchaddpl"']
        # Nothing matches: nothing is written, and (as in MPD) the name is not even checked.
        assert c.command('searchaddpl t "(artist == \'Nobody\')"') == ["OK"]
        assert c.command("listplaylist t") == ["ACK [50@0] {listplaylist} No such playlist"]
        assert c.command('searchaddpl "" "(artist == \'Nobody\')"') == ["OK"]
        assert c.command('searchaddpl "" "(artist == \'Beta\')"') == ["ACK [2@0] {searchaddpl} Bad playlist name"]
        assert c.command("listplaylist s") == files(A1, B3, B2, A2, A3)


def test_lsinfo_of_the_root_lists_stored_playlists(player_server):
    with player_server.connect() as c:
        saved(c, "x", A1)
        reply = c.command("lsinfo")
        assert reply[-3] == "playlist: x" and reply[-2].startswith("Last-Modified: ") and reply[-1] == "OK"
        assert c.command('lsinfo "Album A"')[-3:-1] != ["playlist: x"]
        if player_server.kind == "tonearm":
            # MPD 0.24's protocol feature turns the deprecated listing off.
            c.command("protocol enable hide_playlists_in_root")
            assert "playlist: x" not in c.command("lsinfo")


def test_save_absolute_paths(make_player_server):
    server = make_player_server(extra_config='save_absolute_paths_in_playlists "yes"\n')
    with server.connect() as c:
        c.command(f"add {q(A1)}")
        assert c.command("save x") == ["OK"]
        assert m3u(server, "x") == f"{server.music_dir}/{A1}\n"
        assert c.command(f"playlistadd x {q(B1)}") == ["OK"]
        assert m3u(server, "x") == f"{server.music_dir}/{A1}\n{server.music_dir}/{B1}\n"
        # Paths below the music directory read back as library URIs.
        assert c.command("listplaylist x") == files(A1, B1)
        c.command("clear")
        assert c.command("load x") == ["OK"]
        assert queue_uris(c) == [A1, B1]


def test_edits_leave_only_the_playlist_file(player_server):
    """Each change replaces the file whole (a temporary file and a rename in Tonearm; MPD
    commits an unnamed temporary file): nothing else is left in the directory."""
    with player_server.connect() as c:
        saved(c, "x", A1)
        for n in range(5):
            c.command(f"playlistadd x {q(B1)} 0")
            c.command("playlistmove x 0 1")
            c.command("playlistdelete x 0")
        assert sorted(p.name for p in (player_server.workdir / "playlists").iterdir()) == ["x.m3u"]
