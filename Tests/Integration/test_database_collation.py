"""Sorting names the way MPD does: `list`, `list … group` and `find … sort` on names with
accents, ligatures, punctuation, digits, letter case and other scripts, compared line by line
with Debian's MPD on the same folder.

MPD sorts with ICU collation; Tonearm compares case-folded text, then bytes. This checks that
the two agree on the kinds of names a real library has."""
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import wait_for_scan  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

NAMES = ["Élan", "eagle", "Eagle", "_under", "(paren)", "10 Years", "2 Unlimited", "Zebra", "äb", "ab", "Ab",
         "a b", "a-b", "ab!", "Øystein", "oz", "Über", "uber", "Ze", "[bracket]", "'quote", "ß", "ss", "st",
         "Ñu", "nu", "nz", "¡Hola", "@sign", "#hash", "ÿ", "y", "z", "Æon", "aeon", "afo", "Çà", "ca", "cb",
         "日本", "Ärger", "arg", "arh", "ĳ", "éa", "eb", "Ea"]

COMMANDS = ["list artist", "list album group artist", "find \"(artist != 'x')\" sort artist",
            "find \"(artist != 'x')\" sort -title"]

# What differs by nature between the two servers' song blocks, not by sorting.
UNCOMPARED = ("Last-Modified:", "Added:", "Format:")


@pytest.fixture(scope="module")
def names_library(tmp_path_factory):
    music = tmp_path_factory.mktemp("collation") / "music"
    music.mkdir()
    for i, name in enumerate(NAMES):
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "0.1",
                        "-metadata", f"artist={name}", "-metadata", f"title={name}", "-metadata", f"album={name}",
                        str(music / f"{i:02d}.flac")], check=True)
    return music


@pytest.fixture(scope="module")
def answers(names_library, tmp_path_factory):
    """Each server's answer to each of COMMANDS."""
    result = {}
    for kind in (MPDServer, TonearmServer):
        with kind(tmp_path_factory.mktemp(kind.__name__), music_dir=names_library) as server, server.connect() as c:
            wait_for_scan(c)
            assert f"songs: {len(NAMES)}" in c.command("stats")
            result[kind] = {command: [line for line in c.command(command) if not line.startswith(UNCOMPARED)]
                            for command in COMMANDS}
    return result


@pytest.mark.parametrize("command", COMMANDS)
def test_names_sort_as_in_mpd(answers, command):
    mpd, tonearm = answers[MPDServer][command], answers[TonearmServer][command]
    assert len([line for line in mpd if line.startswith(("Artist:", "Album:"))]) >= len(set(NAMES)) - 1
    assert tonearm == mpd
