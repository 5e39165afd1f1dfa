"""ncmpcpp (Debian's 0.9) in a detached tmux session (Tests/support/terminal.py) against
Tonearm and Debian's MPD: it connects, browses the library, adds an album with its default key
bindings, plays it, and its status bar shows the song and a running clock. ncmpcpp gets a fresh
HOME whose config names the server's port.
"""
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.playback import LONG, fields, playing_file, wait_state  # noqa: E402
from support.terminal import ncmpcpp  # noqa: E402

SELECTED = "\x1b[7m"  # ncmpcpp draws the selected row in reverse video
CLOCK = re.compile(r"\[(\d+):(\d\d)/2:00\]$")  # the status bar's elapsed/total for the Long song


@pytest.fixture
def terminal(make_player_server, tmp_path):
    server = make_player_server()
    term = None
    try:
        term = ncmpcpp(server, tmp_path / "ncmpcpp" / "home")
        yield term
    finally:
        if term is not None:
            term.close()


def status_bar(lines: list[str]) -> str:
    return next((line.rstrip() for line in reversed(lines) if line.strip()), "")


def test_ncmpcpp_browses_adds_an_album_and_plays_it(terminal):
    server = terminal.server
    # It starts on the (empty) playlist screen; the library it shows next proves the connection.
    terminal.wait_for(lambda s: s[0].startswith("Playlist (0 items)"), "the empty playlist screen")
    # The media library (key 4) lists the artists; the browser (key 2) the folders.
    terminal.keys("4")
    terminal.wait_for(lambda s: s[0].startswith("Media library")
                      and [line.split("│")[0].strip() for line in s[4:7]] == ["Alpha", "Beta", "Gamma"],
                      "the media library's artists")
    terminal.keys("2")
    terminal.wait_for(lambda s: s[0].startswith("Browse: /") and [line.strip() for line in s[2:5]]
                      == ["[Album A]", "[Album B]", "[Long]"], "the browser's folders")

    # Select the album folder "Long" and add it (space), as a user would.
    terminal.keys("Down", "Down")
    terminal.wait_for(lambda s: any(SELECTED in line and line.endswith("[Long]") for line in s),
                      "[Long] selected", escapes=True)
    terminal.keys("Space")
    terminal.wait_for(lambda s: 'Directory "Long" added' in status_bar(s), "the album added")
    with server.connect() as c:
        assert [line for line in c.command("playlistinfo") if line.startswith("file: ")] == [f"file: {LONG}"]

    # The playlist screen (1) shows it; Enter plays the selected song.
    terminal.keys("1")
    terminal.wait_for(lambda s: s[0].startswith("Playlist (1 item") and "Long" in s[4],
                      "the album in the playlist")
    terminal.keys("Enter")
    with server.connect() as c:
        wait_state(c, "play", timeout=30)
        assert playing_file(c) == LONG

    # The status bar names the song and its clock runs.
    def clock(lines):
        bar = status_bar(lines)
        match = CLOCK.search(bar)
        return (int(match.group(1)) * 60 + int(match.group(2))) if match and bar.startswith("Playing:") else None

    lines = terminal.wait_for(lambda s: clock(s) is not None, "the now-playing status bar")
    assert re.match(r'Playing: Gamma "Long" - Long +\[', status_bar(lines)), status_bar(lines)
    first = clock(lines)
    terminal.wait_for(lambda s: (clock(s) or 0) > first, f"the clock to pass {first} s")


def test_ncmpcpp_toggles_the_modes(terminal):
    """The default bindings r, z, y and R switch repeat, random, single and consume on the
    server, and the header's flags show what the server reports back."""
    terminal.wait_for(lambda s: s[0].startswith("Playlist (0 items)"), "the empty playlist screen")
    terminal.keys("r", "z", "y", "R")
    terminal.wait_for(lambda s: "[rzsc]" in s[1], "the four mode flags")
    with terminal.server.connect() as c:
        current = fields(c.command("status"))
        assert [current[mode] for mode in ("repeat", "random", "single", "consume")] == ["1"] * 4
        assert c.command("random 0") == ["OK"]  # changed elsewhere: ncmpcpp follows the idle event
    terminal.wait_for(lambda s: "[rsc]" in s[1], "the random flag gone")


def test_ncmpcpp_search_engine_and_playlist_editor(terminal):
    """The search engine (3) finds titles containing "o"; the playlist editor (5) lists a stored
    playlist and its songs."""
    with terminal.server.connect() as c:
        for command in (f'add "{LONG}"', 'add "Album B"', "save mine", "clear"):
            assert c.command(command) == ["OK"], command
    terminal.wait_for(lambda s: s[0].startswith("Playlist (0 items)"), "the empty playlist screen")
    terminal.keys("3")
    terminal.wait_for(lambda s: s[0].startswith("Search engine"), "the search engine")
    terminal.keys("Down", "Down", "Down", "Enter")  # the Title field, and its prompt
    terminal.keys("o", "Enter")
    terminal.wait_for(lambda s: any(line.rstrip() == "Title        : o" for line in s), "the title filled in")
    terminal.keys("End", "Up", "Enter")  # the Search button
    lines = terminal.wait_for(lambda s: any("Search results: Found 4 songs" in line for line in s), "the results")
    heading = next(index for index, line in enumerate(lines) if "Search results:" in line)
    rows = [line for line in lines[heading + 1:] if line.strip() and not line.startswith("─")]
    found = [row.split("  ")[0] for row in rows[:-1]]  # the last row is the status line
    assert found == ["Alpha - One", "Alpha - Two", "Beta - Four", "Gamma - Long"], lines

    terminal.keys("5")
    def editor_drawn(s):
        # ncmpcpp draws the header before the columns: wait until the songs are on screen too.
        return (s[0].startswith("Playlist editor") and "Content (4 items)" in s[2]
                and all("│" in line and line.split("│")[1].strip() for line in s[4:8]))
    lines = terminal.wait_for(editor_drawn, "the playlist editor")
    assert [line.split("│")[0].strip() for line in lines[4:6]] == ["mine", ""]
    assert [line.split("│")[1].split("  ")[0] for line in lines[4:8]] == \
        ["Gamma - Long", "Beta - Four", "Beta - Five", "Beta - Six"]
