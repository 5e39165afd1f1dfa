"""An unmounted music disk does not empty the library (issue 24, item 2): while the music
directory is missing, unreadable or empty, or when an update would remove most of the library,
the update changes nothing, logs why and shows it as `status`'s `error`; `rescan` forces it, and
once the music is back updates run as before. MPD deletes every song in these cases."""
import shutil

import pytest

from support import audio
from support.library import wait_for_scan
from support.playback import status
from support.polling import poll
from support.servers import TonearmServer

SONGS = 120  # half of them is more than UpdateGuard.fewestRemovalsRefused (50)


@pytest.fixture
def music(tmp_path):
    """A folder of SONGS short songs in two folders of SONGS / 2 each, `a` and `b`."""
    root = tmp_path / "music"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    source = audio.chirp(tmp_path / "chirp.wav", seconds=0.1)
    for number in range(SONGS):
        shutil.copy(source, root / ("a" if number < SONGS // 2 else "b") / f"{number:03}.wav")
    return root


def songs(c) -> int:
    return int(dict(line.split(": ", 1) for line in c.command("stats")[:-1])["songs"])


def update(c, command="update") -> dict[str, str]:
    """Runs `update` (or `rescan`) to its end and returns the status after it."""
    assert c.command(command)[-1] == "OK"
    wait_for_scan(c, songs=False)
    return status(c)


def started(make_tonearm, music, extra_config=""):
    server = make_tonearm(extra_config, music_dir=music)
    with server.connect() as c:
        wait_for_scan(c)
        assert songs(c) == SONGS
        assert c.command("add a/000.wav")[-1] == "OK"
        assert c.command("sticker set song a/000.wav rating 10") == ["OK"]
    return server


def test_a_missing_music_directory_keeps_the_library_queue_and_stickers(make_tonearm, music):
    server = started(make_tonearm, music)
    away = music.with_name("away")
    with server.connect() as c:
        music.rename(away)
        after = update(c)
        assert after["error"] == (f"update refused: music directory {music}: No such file or directory; "
                                  f"the library keeps its {SONGS} songs")
        assert songs(c) == SONGS
        assert c.command("playlist") == ["0:file: a/000.wav", "OK"]
        assert c.command("sticker get song a/000.wav rating") == ["sticker: rating=10", "OK"]
        assert "refused: music directory" in server.log_text()

        away.rename(music)
        (music / "a/000.wav").unlink()  # what changed meanwhile is found once the music is back
        after = update(c)
        assert "error" not in after
        assert songs(c) == SONGS - 1


def test_clearerror_forgets_the_refusal_until_the_next_one(make_tonearm, music):
    server = started(make_tonearm, music)
    with server.connect() as c:
        music.rename(music.with_name("away"))
        assert "error" in update(c)
        assert c.command("clearerror") == ["OK"]
        assert "error" not in status(c)
        assert "error" in update(c)


def test_an_empty_music_directory_is_refused_until_rescan(make_tonearm, music):
    """A mount point whose disk is not mounted is an empty folder."""
    server = started(make_tonearm, music)
    for folder in ("a", "b"):
        shutil.rmtree(music / folder)
    with server.connect() as c:
        after = update(c)
        assert after["error"] == (f"update refused: music directory {music} is empty; "
                                  f"the library keeps its {SONGS} songs (rescan empties it)")
        assert songs(c) == SONGS
        # The user says the music really is gone.
        assert "error" not in update(c, "rescan")
        assert songs(c) == 0
        assert c.command("playlist") == ["OK"]


def test_an_unreadable_music_directory_keeps_the_library(make_tonearm, music):
    """Root reads every folder whatever its mode; without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH it meets the permission bits as any user does."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is missing")
    server = make_tonearm(music_dir=music, wrapper=["setpriv", "--bounding-set", "-dac_override,-dac_read_search"])
    with server.connect() as c:
        wait_for_scan(c)
        music.chmod(0)
        try:
            after = update(c, "rescan")  # not even rescan deletes what cannot be read
            assert after["error"] == (f"update refused: No permission to traverse (\"execute\") directory: {music}; "
                                      f"the library keeps its {SONGS} songs")
            assert songs(c) == SONGS
        finally:
            music.chmod(0o755)
        assert "error" not in update(c)


def test_an_update_that_would_remove_most_of_the_library_is_refused_until_rescan(make_tonearm, music):
    """A disk mounted inside the music folder that is away takes most of the songs with it."""
    server = started(make_tonearm, music)
    with server.connect() as c:
        for number in range(10):  # a few: an update removes them
            (music / f"a/{number:03}.wav").unlink()
        assert "error" not in update(c)
        assert songs(c) == SONGS - 10
        shutil.rmtree(music / "b")  # 60 of the 110 left is most of them
        after = update(c)
        assert after["error"] == (f"update refused: the update would remove {SONGS // 2} of the library's "
                                  f"{SONGS - 10} songs; it keeps them (rescan removes them)")
        assert songs(c) == SONGS - 10
        assert "error" not in update(c, "rescan")
        assert songs(c) == SONGS // 2 - 10


def test_update_guard_no_removes_as_mpd_does(make_tonearm, music):
    server = started(make_tonearm, music, 'update_guard "no"\n')
    with server.connect() as c:
        music.rename(music.with_name("away"))
        assert "error" not in update(c)
        assert songs(c) == 0
        assert c.command("playlist") == ["OK"]


def test_the_directory_watcher_waits_for_the_music_directory_and_updates_when_it_is_back(make_tonearm, music):
    server = started(make_tonearm, music, 'auto_update "yes"\n')
    away = music.with_name("away")
    with server.connect() as c:
        music.rename(away)
        # The watcher notices, and the update it asks for is refused: status says why.
        poll("the refusal in status", lambda: "music directory" in status(c).get("error", ""))
        assert songs(c) == SONGS
        assert c.command("playlist") == ["0:file: a/000.wav", "OK"]
        assert c.command("sticker get song a/000.wav rating") == ["sticker: rating=10", "OK"]

        (away / "b/119.wav").unlink()  # changed while away
        away.rename(music)
        poll("the update once the music is back", lambda: "error" not in status(c) and songs(c) == SONGS - 1)
        # It watches again: a new file is found without `update`.
        shutil.copy(music / "a/001.wav", music / "a/new.wav")
        poll("the new song", lambda: songs(c) == SONGS)
    assert "auto_update: the music directory was removed, moved or unmounted" in server.log_text()


def test_the_directory_watcher_starts_once_a_missing_music_directory_appears(tmp_path, music):
    away = music.with_name("away")
    music.rename(away)
    server = TonearmServer(tmp_path / "tonearm", extra_config='auto_update "yes"\n', music_dir=music)
    music.rmdir()  # the server class makes the folder; this test needs it missing at start
    with server, server.connect() as c:
        poll("the watcher's complaint", lambda: "auto_update waits for the music directory" in server.log_text())
        away.rename(music)
        poll("the library once the music is there", lambda: songs(c) == SONGS)
        shutil.copy(music / "a/001.wav", music / "a/new.wav")
        poll("the new song", lambda: songs(c) == SONGS + 1)
