"""Smart playlists (issue 22, beyond MPD; docs/smart-playlists.md): rules in NAME.smartpl that
every client reads as a stored playlist, evaluated at each read. Tonearm only.

Runs on a private copy of the short-track library (Tests/support/playback.py): seven songs,
A1…A3 by Alpha, B1…B3 by Beta, LONG by Gamma, all added by the first scan. Real clients (mpc,
python-mpd2, ncmpcpp) read and make them; raw connections check every stored playlist command
on them, the refused edits, the bad rules, and idle `stored_playlist` when a library update or
new statistics change their songs, at most once a second. Waits are generous; nothing asserts
how long something took.
"""
import shutil
import sys
import threading
import time
from pathlib import Path

import mpd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.clients import mpc, mpc_out  # noqa: E402
from support.library import wait_for_scan  # noqa: E402
from support.playback import A1, A2, A3, B1, B2, B3, LONG, URIS, wait_state  # noqa: E402
from support.polling import poll  # noqa: E402
from support.terminal import ncmpcpp  # noqa: E402

DEFAULTS = ["Most played", "Never played", "Recently added", "Top rated"]
ON = 'default_smart_playlists "yes"\n'
OFF = 'default_smart_playlists "no"\n'
NAMES = {A1: "Alpha - One", A2: "Alpha - Two", A3: "Alpha - Three", B1: "Beta - Four", B2: "Beta - Five",
         B3: "Beta - Six", LONG: "Gamma - Long"}
REFUSED = 'Cannot edit smart playlist "{}": its rule chooses its songs'


def q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.fixture
def music(short_library, tmp_path):
    """A copy of the short-track library that a test may add files to."""
    copy = tmp_path / "music"
    shutil.copytree(short_library, copy)
    return copy


@pytest.fixture
def start(make_tonearm, music):
    """Starts a Tonearm on `music` (the defaults on unless `extra` says otherwise) and waits for
    its first scan."""
    def start(extra: str = ON, **options):
        server = make_tonearm(extra, music_dir=music, **options)
        with server.connect() as c:
            wait_for_scan(c)
        return server
    return start


@pytest.fixture
def server(start):
    return start()


def names(c) -> list[str]:
    lines = c.command("listplaylists")
    assert lines[-1] == "OK", lines
    return [line.removeprefix("playlist: ") for line in lines if line.startswith("playlist: ")]


def files(lines: list[str]) -> list[str]:
    assert lines[-1] == "OK", lines
    return [line.removeprefix("file: ") for line in lines if line.startswith("file: ")]


def smartpl(server, name: str) -> Path:
    return server.workdir / "playlists" / f"{name}.smartpl"


def rate(c, uri: str, value):
    assert c.command(f"sticker set song {q(uri)} rating {value}") == ["OK"]


# --- Real clients ----------------------------------------------------------------------------

def test_mpc_lists_the_default_set_and_prints_its_songs(server):
    assert mpc_out(server, "lsplaylists").splitlines() == DEFAULTS
    # Every song came with the first scan: all recently added, none played, none rated.
    assert mpc_out(server, "playlist", "Recently added").splitlines() == [NAMES[uri] for uri in URIS]
    assert mpc_out(server, "playlist", "Never played").splitlines() == [NAMES[uri] for uri in URIS]
    assert mpc_out(server, "playlist", "Most played") == ""
    assert mpc_out(server, "playlist", "Top rated") == ""
    with server.connect() as c:
        rate(c, B2, 10)
        rate(c, A1, 8)
        rate(c, A3, 6)  # below the default's 8
    assert mpc_out(server, "playlist", "Top rated").splitlines() == [NAMES[B2], NAMES[A1]]


def test_mpc_loads_a_smart_playlist_into_the_queue(server):
    with server.connect() as c:
        for uri, value in ((B1, 9), (A2, 10), (LONG, 8)):
            rate(c, uri, value)
    assert mpc_out(server, "load", "Top rated") == 'loading: Top rated\n'
    assert mpc_out(server, "playlist").splitlines() == [NAMES[A2], NAMES[B1], NAMES[LONG]]
    with server.connect() as c:
        status = dict(line.split(": ", 1) for line in c.command("status")[:-1])
        assert status["lastloadedplaylist"] == "Top rated"


def test_mpc_defines_one_through_the_tonearm_channel(server):
    """mpc sends only the commands it knows; the server runs a `smartplaylist` sent as a message
    on its `tonearm` channel, with the same ACK when the rule is bad."""
    rule = 'smartplaylist Alpha "(artist == \\"Alpha\\")" sort Title'
    assert mpc_out(server, "sendmessage", "tonearm", rule) == ""
    assert "Alpha" in mpc_out(server, "lsplaylists").splitlines()
    assert mpc_out(server, "playlist", "Alpha").splitlines() == sorted(
        NAMES[uri] for uri in (A1, A2, A3))
    refused = mpc(server, "sendmessage", "tonearm", 'smartplaylist Broken "(artist ==")')
    assert refused.returncode == 1 and "Broken" not in mpc_out(server, "lsplaylists")


def test_the_defaults_follow_the_configuration(start):
    server = start(OFF)
    assert mpc_out(server, "lsplaylists") == ""
    assert not list((server.workdir / "playlists").glob("*.smartpl"))


def test_a_default_removed_or_renamed_does_not_come_back(start):
    server = start()
    with server.connect() as c:
        assert c.command('rm "Top rated"') == ["OK"]
        assert c.command('rename "Never played" Unheard') == ["OK"]
    server.stop()
    server.start()
    with server.connect() as c:
        assert names(c) == ["Most played", "Recently added", "Unheard"]


def test_python_mpd2_creates_one_and_reads_it_back(server):
    class SmartClient(mpd.MPDClient):
        """python-mpd2 sends only the commands it knows; `add_command` teaches it these two."""

    SmartClient.add_command("smartplaylist", mpd.MPDClient._parse_nothing)
    SmartClient.add_command("smartplaylistinfo", mpd.MPDClient._parse_playlists)
    client = SmartClient()
    client.timeout = 30
    client.connect(server.host, server.port)
    try:
        assert "smartplaylist" in client.commands() and "smartplaylistinfo" in client.commands()
        client.smartplaylist("Beta by title", "(artist == 'beta')", "sort", "Title", "limit", "2")
        assert [entry["playlist"] for entry in client.listplaylists()] == sorted(DEFAULTS + ["Beta by title"])
        assert [song["file"] for song in client.listplaylistinfo("Beta by title")] == [B2, B1]
        assert [song["title"] for song in client.listplaylistinfo("Beta by title")] == ["Five", "Four"]
        [info] = client.smartplaylistinfo("Beta by title")
        assert {key: info[key] for key in ("playlist", "filter", "sort", "limit")} == {
            "playlist": "Beta by title", "filter": "(artist == 'beta')", "sort": "Title", "limit": "2"}
        with pytest.raises(mpd.CommandError, match=r"\[2@0\] \{smartplaylist\} Unknown filter type: colour"):
            client.smartplaylist("x", "(colour == 'red')")
        with pytest.raises(mpd.CommandError, match=r"\[4@0\] \{playlistadd\} Cannot edit smart playlist"):
            client.playlistadd("Beta by title", A1)
    finally:
        client.disconnect()
    assert smartpl(server, "Beta by title").read_text().splitlines()[1:] == [
        "filter: (artist == 'beta')", "sort: Title", "limit: 2"]


@pytest.fixture
def terminal(start, tmp_path):
    term = None
    try:
        term = ncmpcpp(start(OFF), tmp_path / "ncmpcpp-home")
        yield term
    finally:
        if term is not None:
            term.close()


def test_ncmpcpps_playlist_editor_lists_one_and_shows_its_songs(terminal):
    with terminal.server.connect() as c:
        assert c.command('smartplaylist "Alpha backwards" "(artist == \'alpha\')" sort -Title') == ["OK"]
    terminal.wait_for(lambda s: s[0].startswith("Playlist (0 items)"), "the empty playlist screen")
    terminal.keys("5")

    def editor_drawn(s):
        # The header comes before the columns: wait until the songs are on screen too.
        return (s[0].startswith("Playlist editor") and "Content (3 items)" in s[2]
                and all("│" in line and line.split("│")[1].strip() for line in s[4:7]))
    lines = terminal.wait_for(editor_drawn, "the playlist editor")
    assert lines[4].split("│")[0].strip() == "Alpha backwards"
    assert [line.split("│")[1].split("  ")[0] for line in lines[4:7]] == \
        ["Alpha - Two", "Alpha - Three", "Alpha - One"]


# --- The stored playlist commands ------------------------------------------------------------

def test_every_reading_command_evaluates_the_rule(start):
    server = start(OFF)
    with server.connect() as c:
        assert c.command('smartplaylist alpha "(artist == \'alpha\')"') == ["OK"]
        listing = c.command("listplaylists")
        assert listing[0] == "playlist: alpha" and listing[1].startswith("Last-Modified: 20") and listing[2:] == ["OK"]
        assert files(c.command("listplaylist alpha")) == [A1, A2, A3]
        assert files(c.command("listplaylist alpha 1:")) == [A2, A3]
        assert files(c.command("listplaylist alpha 2:9")) == [A3]
        info = c.command("listplaylistinfo alpha 0:2")
        assert files(info) == [A1, A2] and "Title: Two" in info and "Pos: 0" not in info
        assert c.command("playlistlength alpha") == ["songs: 3", "playtime: 6", "OK"]
        found = c.command('searchplaylist alpha "(title contains \'T\')"')
        assert files(found) == [A2, A3] and [line for line in found if line.startswith("Pos: ")] == \
            ["Pos: 1", "Pos: 2"]
        assert files(c.command('searchplaylist alpha "(title contains \'T\')" window 1:2')) == [A3]
        # lsinfo at the root lists stored playlists, smart ones too, unless the client hides them.
        assert "playlist: alpha" in c.command("lsinfo")
        assert c.command("protocol enable hide_playlists_in_root") == ["OK"]
        assert "playlist: alpha" not in c.command("lsinfo")

        assert c.command(f"add {q(LONG)}") == ["OK"]
        assert c.command("load alpha 1:3 0") == ["OK"]
        assert files(c.command("playlistinfo")) == [A2, A3, LONG]
        assert c.command("load alpha 0:1 +0") == ["ACK [55@0] {load} No current song"]


def test_the_rule_is_evaluated_again_at_each_read(server):
    with server.connect() as c:
        assert c.command('smartplaylist liked "(sticker:like == 1)"') == ["OK"]
        assert files(c.command("listplaylist liked")) == []
        assert c.command(f"sticker set song {q(B3)} like 1") == ["OK"]
        assert files(c.command("listplaylist liked")) == [B3]
        assert c.command(f"sticker delete song {q(B3)} like") == ["OK"]
        assert files(c.command("listplaylist liked")) == []


def test_edits_are_refused_and_leave_the_rule_alone(start):
    server = start(OFF)
    with server.connect() as c:
        assert c.command('smartplaylist s "(base \'Album A\')" limit 2') == ["OK"]
        before = smartpl(server, "s").read_text()
        for command in (f"playlistadd s {q(B1)}", f"playlistadd s {q(B1)} 0", "playlistclear s",
                        "playlistdelete s 0", "playlistdelete s 0:1", "playlistmove s 0 1",
                        "save s append", "save s replace", "searchaddpl s \"(artist == 'Beta')\""):
            name = command.split(" ")[0]
            assert c.command(command) == [f"ACK [4@0] {{{name}}} " + REFUSED.format("s")], command
        assert c.command("save s") == ["ACK [56@0] {save} Playlist already exists"]
        assert c.command("save s create") == ["ACK [56@0] {save} Playlist already exists"]
        # A move to where the range starts changes nothing, and MPD does not look for the playlist.
        assert c.command("playlistmove s 1 1") == ["OK"]
        assert smartpl(server, "s").read_text() == before
        assert not (server.workdir / "playlists" / "s.m3u").exists()
        assert files(c.command("listplaylist s")) == [A1, A2]


def test_rename_and_rm_work_and_rm_takes_the_stickers(start):
    server = start(OFF)
    with server.connect() as c, server.connect() as watcher:
        assert c.command('smartplaylist old "(base \'Long\')"') == ["OK"]
        assert c.command('sticker set playlist old colour blue') == ["OK"]
        watcher.send("idle stored_playlist\n")
        assert c.command("rename old new") == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: stored_playlist", "OK"]
        assert names(c) == ["new"] and files(c.command("listplaylist new")) == [LONG]
        assert c.command("listplaylist old") == ["ACK [50@0] {listplaylist} No such playlist"]
        assert c.command("sticker set playlist new colour red") == ["OK"]
        assert c.command("save stored") == ["OK"]
        assert c.command("rename new stored") == ["ACK [56@0] {rename} Playlist exists already"]
        watcher.send("idle stored_playlist\n")
        assert c.command("rm new") == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: stored_playlist", "OK"]
        assert names(c) == ["stored"] and not smartpl(server, "new").exists()
        assert c.command("sticker list playlist new") == ['ACK [2@0] {sticker} no such playlist: "new"']
        assert c.command("sticker find playlist \"\" colour") == ["playlist: old", "sticker: colour=blue", "OK"]


def test_missing_names(server):
    with server.connect() as c:
        for command in ("listplaylist nope", "listplaylistinfo nope", "load nope", "playlistlength nope",
                        "rm nope", "rename nope other", "searchplaylist nope \"(base '')\""):
            name = command.split(" ")[0]
            assert c.command(command) == [f"ACK [50@0] {{{name}}} No such playlist"], command
        assert c.command("smartplaylistinfo nope") == ["ACK [50@0] {smartplaylistinfo} No such smart playlist"]
        assert c.command("playlistclear nope") == ["ACK [50@0] {playlistclear} No such playlist"]
        assert c.command('smartplaylist "a/b" "(base \'\')"') == ["ACK [2@0] {smartplaylist} Bad playlist name"]


def test_a_stored_playlist_keeps_its_name(start):
    server = start(OFF)
    with server.connect() as c:
        assert c.command(f"add {q(A1)}") == ["OK"] and c.command("save mine") == ["OK"]
        assert c.command('smartplaylist mine "(base \'\')"') == \
            ["ACK [56@0] {smartplaylist} Playlist already exists"]
        assert files(c.command("listplaylist mine")) == [A1]


# --- Bad rules --------------------------------------------------------------------------------

@pytest.mark.parametrize("arguments, answer", [
    ("\"(colour == 'red')\"", "ACK [2@0] {smartplaylist} Unknown filter type: colour"),
    ("\"(sticker:rating = 5)\"",
     "ACK [2@0] {smartplaylist} Unknown sticker operator: = 5); expected ==, !=, <, <=, >, >="),
    ("\"(sticker:rating > lots)\"", "ACK [2@0] {smartplaylist} Integer or relative time expected: lots"),
    ("\"(added-since '-3 months')\"", "ACK [2@0] {smartplaylist} Failed to parse date"),
    ("\"(artist == 'x')\" sort Colour", "ACK [2@0] {smartplaylist} Unknown sort tag"),
    ("\"(artist == 'x')\" sort -sticker:", "ACK [2@0] {smartplaylist} Bad sticker name: "),
    ("\"(artist == 'x')\" limit 0", "ACK [2@0] {smartplaylist} limit must be 1 or more"),
    ("artist x", "ACK [2@0] {smartplaylist} A smart playlist's filter is an expression in parentheses: artist"),
    ("\"(title =~ '(')\"", "ACK [2@0] {smartplaylist} Error in regex at offset 1: missing closing parenthesis"),
])
def test_a_bad_rule_from_the_command_gets_a_clear_ack(server, arguments, answer):
    with server.connect() as c:
        assert c.command(f"smartplaylist x {arguments}") == [answer]
        assert c.command("ping") == ["OK"]
        assert "x" not in names(c) and not smartpl(server, "x").exists()


def test_a_bad_rule_in_a_file_is_logged_with_its_line_and_left_out(start):
    server = start(OFF)
    folder = server.workdir / "playlists"
    (folder / "broken.smartpl").write_text("# mine\nfilter: (artist == 'alpha')\nsort: -Colour\n")
    (folder / "regex.smartpl").write_text("filter: (title =~ 'a[')\n")
    (folder / "fine.smartpl").write_text("filter: (base 'Album B')\nlimit: 1\n")
    with server.connect() as c:
        for _ in range(3):
            assert names(c) == ["fine"]
        assert files(c.command("listplaylist fine")) == [B1]
        assert c.command("listplaylist broken") == [
            'ACK [53@0] {listplaylist} Bad smart playlist "broken": broken.smartpl:3: Unknown sort tag']
        assert c.command("load regex") == [
            'ACK [53@0] {load} Bad smart playlist "regex": regex.smartpl:1: Error in regex at offset 2: '
            'missing terminating ] for character class']
        assert c.command("ping") == ["OK"]
    path = folder / "broken.smartpl"
    poll("the log line", lambda: f"{path}:3: Unknown sort tag" in server.log_text())
    # Logged once however often it is listed, and again once the file changes.
    assert server.log_text().count(f"{path}:3:") == 1
    assert f"{folder / 'regex.smartpl'}:1: Error in regex at offset 2" in server.log_text()
    path.write_text("filter: (artist == 'alpha')\nlimit: none\n")
    with server.connect() as c:
        assert names(c) == ["fine"]
        # Still its name's: `rm` takes it away.
        assert c.command("rm broken") == ["OK"]
    assert f"{path}:2: Integer expected: none" in server.log_text()
    assert server.process.poll() is None


# --- Idle ------------------------------------------------------------------------------------

def last_modified(c, name: str) -> str:
    """The `Last-Modified` that `listplaylists` gives `name` (ISO 8601, which sorts as it reads)."""
    lines = c.command("listplaylists")
    return lines[lines.index(f"playlist: {name}") + 1].removeprefix("Last-Modified: ")


def idle_event(watcher, timeout: float = 15) -> list[str]:
    return watcher.read_response(timeout=timeout)


def test_new_statistics_raise_stored_playlist(server):
    """A song played to its end gets a playCount: "Most played" gains it, "Never played" loses it."""
    with server.connect() as c, server.connect() as watcher:
        assert c.command(f"add {q(A1)}") == ["OK"]
        watcher.send("idle stored_playlist\n")
        assert watcher.nothing_within(1.5)
        assert c.command("play") == ["OK"]
        wait_state(c, "stop", timeout=30)
        assert idle_event(watcher) == ["changed: stored_playlist", "OK"]
        assert files(c.command('listplaylist "Most played"')) == [A1]
        assert A1 not in files(c.command('listplaylist "Never played"'))


def test_a_rating_that_changes_a_playlist_raises_it_and_one_that_does_not_does_not(server):
    with server.connect() as c, server.connect() as watcher:
        watcher.send("idle stored_playlist\n")
        rate(c, A2, 3)  # below "Top rated"'s 8: no playlist changes
        assert c.command(f"sticker set song {q(A2)} mood calm") == ["OK"]
        assert watcher.nothing_within(3)
        before = last_modified(c, "Top rated")
        untouched = last_modified(c, "Most played")
        rate(c, A2, 9)
        assert idle_event(watcher) == ["changed: stored_playlist", "OK"]
        assert files(c.command('listplaylist "Top rated"')) == [A2]
        # Its Last-Modified is when its songs changed (more than a second after the file was
        # written: the waits above), so that a client that caches by it reads it again.
        assert last_modified(c, "Top rated") > before
        assert last_modified(c, "Most played") == untouched


def test_a_library_update_raises_it(server, music):
    """A new file is recently added and never played: two playlists change, and the clients
    hear one event."""
    again = "Album A/04 Again.flac"
    with server.connect() as c, server.connect() as watcher:
        watcher.send("idle stored_playlist\n")
        shutil.copy(music / A1, music / again)
        assert c.command("update")[-1] == "OK"
        assert idle_event(watcher) == ["changed: stored_playlist", "OK"]
        assert len(files(c.command('listplaylist "Recently added"'))) == 8
        assert again in files(c.command('listplaylist "Never played"'))
        # Nothing else is due: no second event.
        watcher.send("idle stored_playlist\n")
        assert watcher.nothing_within(2.5)


def test_events_come_at_most_once_a_second(server):
    """Ratings changed ten times a second for three seconds, each change moving A3 in or out of
    "Top rated": without the limit each change could raise an event; with it, a client that
    idles again at once hears about one a second, and the last state is right."""
    times: list[float] = []
    stop = threading.Event()

    def listen():
        with server.connect() as watcher:
            while not stop.is_set():
                watcher.send("idle stored_playlist\n")
                if watcher.read_response(timeout=30) == ["changed: stored_playlist", "OK"]:
                    times.append(time.monotonic())

    listener = threading.Thread(target=listen)
    listener.start()
    with server.connect() as c:
        for index in range(30):
            rate(c, A3, 9 if index % 2 == 0 else 2)
            time.sleep(0.1)
        rate(c, A3, 10)
        poll("the last change heard", lambda: files(c.command('listplaylist "Top rated"')) == [A3])
        # The event due for the last change comes within a second; then one more change ends
        # the listener's last idle.
        time.sleep(3)
        stop.set()
        rate(c, A3, 1)
        listener.join(timeout=30)
    assert not listener.is_alive()
    assert len(times) >= 2, times
    # Events at least a second apart: no more than one a second of the time they span, with a
    # margin of one for how the first and the last were delivered. 32 changes would otherwise
    # give up to 32 events.
    assert len(times) <= (times[-1] - times[0]) + 2, times
    assert len(times) < 16, times


def test_random_rules_get_an_answer_and_never_stop_the_server(start):
    """Seeded random rules, as command arguments and as files: every command answers OK or an
    ACK, and the server keeps serving."""
    import random
    server = start(OFF)
    pieces = ["(", ")", " ", "'", '"', "\\", "!", "==", "!=", "<", "<=", ">", ">=", "=~", "AND", "sticker:",
              "sticker", ":", "playCount", "rating", "artist", "base", "added-since", "modified-since",
              "-30d", "-1w", "-9999999999999999999d", "7", "-", "sort", "limit", "contains ", "x", "\t", "é"]
    generator = random.Random(2622)
    folder = server.workdir / "playlists"
    with server.connect() as c:
        for index in range(300):
            text = "".join(generator.choice(pieces) for _ in range(generator.randint(1, 14)))
            reply = c.command(f"smartplaylist r{index} {q(text)}")
            assert reply == ["OK"] or (len(reply) == 1 and reply[0].startswith("ACK [2@0] {smartplaylist} ")), \
                (text, reply)
            key = generator.choice(["filter", "sort", "limit", "filter"])
            (folder / f"f{index}.smartpl").write_text(f"{key}: {text}\n")
        for name in [f"f{index}" for index in range(0, 300, 7)] + [f"r{index}" for index in range(0, 300, 7)]:
            reply = c.command(f"listplaylist {name}")
            assert reply[-1] == "OK" or reply[-1].startswith(("ACK [53@0]", "ACK [50@0]")), (name, reply)
        assert c.command("listplaylists")[-1] == "OK"
        assert c.command("ping") == ["OK"]
    assert server.process.poll() is None
