"""What M.A.L.P., MPDroid, myMPD and Cantata send on their main screens, replayed against Tonearm
and Debian's MPD on the fixture library, answer by answer.

The sequences are in replays/*.replay, one file per app, each step commented with the screen and
the app's source file and function it comes from (read from the apps' public repositories; no
code of theirs is here). They are played by the conformance runner's engine
(Tests/Conformance/run.py `play`), so the format and the normalisation are the same:

- the greeting's version (`OK MPD 0.23.5` from Debian's MPD, `OK MPD 0.24.0` from Tonearm: the
  protocol versions differ by design);
- `uptime`, `playtime`, `db_update`, `Last-Modified` and `Added` are masked: they are clock
  readings (when the server started, when it scanned, when the test wrote the stored playlist);
- `Added:` song lines and `status`'s `lastloadedplaylist:` are dropped: MPD 0.24 prints them and
  Debian's 0.23 never does;
- the temporary music folder's path reads `<music_directory>`;
- binary chunks are compared by length and SHA-256.

Added here, for M.A.L.P.'s now-playing poll (a `status` a few milliseconds after `play`):
`elapsed`, `bitrate` and the elapsed half of `time` are masked, as they are clock readings too,
and `audio:` lines are dropped, as MPD prints that line only once its decoder has opened the
file, which it may not have done yet (test_player.py checks all three while a song plays).
Nothing else is normalised: song ids, queue versions and output ids come out the same on both
servers, which start from an empty queue. Each app gets a fresh pair of servers, as the replays
edit the queue, a stored playlist, stickers and outputs.

Every remaining difference must be explained by an entry of replays/allowlist.txt (the
conformance runner's allow-list format), each listed with its reason in docs/clients.md; an
entry that explains nothing any more fails the test too.
"""
import importlib.util
import re
from pathlib import Path

import pytest

from support.servers import MPDServer, TonearmServer

HERE = Path(__file__).resolve().parent
REPLAYS = HERE / "replays"
ALLOWLIST = REPLAYS / "allowlist.txt"
APPS = sorted(path.stem for path in REPLAYS.glob("*.replay"))


def _load_conformance_runner():
    """Tests/Conformance/run.py as a module: its session player, its normalisation and its
    allow-list are the ones the replays use."""
    spec = importlib.util.spec_from_file_location("conformance_run", HERE.parent / "Conformance" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conformance = _load_conformance_runner()

# What the replays add to the conformance runner's normalisation (see the module's docstring).
PLAYING_CLOCK = [(re.compile(r"^  (elapsed|bitrate): .*$"), r"  \1: <masked>"),
                 (re.compile(r"^  time: \d+:"), "  time: <masked>:")]
DECODER_STARTED = re.compile(r"^  audio: ")


def replay(app: str, server) -> list[str]:
    """The transcript of replays/APP.replay played against `server`, normalised."""
    transcript = conformance.play(REPLAYS / f"{app}.replay", server)
    normalised = []
    for line in transcript:
        if DECODER_STARTED.match(line):
            continue
        for pattern, replacement in PLAYING_CLOCK:
            line = pattern.sub(replacement, line)
        normalised.append(line)
    return normalised


def test_every_app_has_a_replay_and_the_allow_list_names_only_those():
    assert APPS == ["cantata", "malp", "mpdroid", "mympd"]
    # An entry for a misspelt app would explain nothing and never be reported as stale.
    named = {name for entry in conformance.read_allowlist(ALLOWLIST) for name in entry.sessions}
    assert named <= set(APPS), named - set(APPS)


@pytest.mark.parametrize("app", APPS)
def test_app_replay_answers_as_mpd(app, fixture_library, tmp_path):
    with MPDServer(tmp_path / "mpd", music_dir=fixture_library.root) as mpd_server:
        expected = replay(app, mpd_server)
    with TonearmServer(tmp_path / "tonearm", music_dir=fixture_library.root) as tonearm:
        actual = replay(app, tonearm)

    # The replay itself must be sound: MPD answers every step it sends (a replay that waits for
    # an idle event that never comes, or that MPD closes, is a broken replay, not a finding).
    broken = [line for line in expected if line.strip() in ("<no answer within 5 s>", "<closed>")]
    assert not broken, f"{app}.replay: MPD did not answer every step:\n" + "\n".join(expected)

    allowances = [entry for entry in conformance.read_allowlist(ALLOWLIST) if app in entry.sessions]
    problems = conformance.unexplained(app, expected, actual, allowances)
    assert not problems, (f"{app}: differences from MPD that replays/allowlist.txt does not explain:\n"
                          + "\n".join(problems))
    stale = [f"{entry.origin}: {side}: {pattern.pattern}" for entry in allowances
             for index, (side, pattern) in enumerate(entry.patterns) if index not in entry.used]
    assert not stale, f"{app}: allow-list entries that explain nothing any more:\n" + "\n".join(stale)
