"""What an update job logs at the default level (issue 25): progress lines while it runs and
a summary line when it ends, with the job id `update` answered, the songs added, updated and
removed, and the unreadable files counted and named. The progress interval is five seconds;
these tests set `TONEARM_SCAN_PROGRESS_INTERVAL` (seconds, read for the tests only) to 0 so
that a small library logs progress lines too, without asserting anything about timing."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.polling import poll  # noqa: E402

SONGS = [f"{folder}/{index:02}.flac" for folder in ("A", "B/C") for index in range(6)]
BROKEN = "Bad/broken.flac"


@pytest.fixture(scope="module")
def music(tmp_path_factory):
    """Twelve songs in A and B/C (one file encoded once, copied) and a corrupt FLAC in Bad:
    five folders with the root."""
    root = tmp_path_factory.mktemp("music")
    first = root / SONGS[0]
    first.parent.mkdir(parents=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=d=1",
                    "-metadata", "title=Tone", str(first)], check=True)
    for uri in SONGS[1:]:
        (root / uri).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(first, root / uri)
    (root / BROKEN).parent.mkdir()
    (root / BROKEN).write_bytes(b"fLaC" + bytes(range(256)) * 4)
    return root


def summary(server, job: int) -> re.Match:
    """The summary line of update job `job` (or of `job` and its URI), once it is logged."""
    pattern = re.compile(rf"update job {job}(?: \(\"[^\"]*\"\))?: (.*) in ([0-9.]+) s \(([0-9,]+) files/s\)$", re.M)
    return poll(f"the summary of update job {job}", lambda: pattern.search(server.log_text()), timeout=30)


def idle(connection):
    poll("the update to finish",
         lambda: not any(line.startswith("updating_db:") for line in connection.command("status")), timeout=30)


def update(connection, command="update") -> int:
    """Runs `command` after the running job and returns the job id it answered."""
    idle(connection)
    reply = connection.command(command)
    assert reply[0].startswith("updating_db: ") and reply[-1] == "OK", reply
    return int(reply[0].split(": ")[1])


def test_a_scan_logs_progress_and_a_summary_with_its_counts(make_tonearm, music, tmp_path, monkeypatch):
    monkeypatch.setenv("TONEARM_SCAN_PROGRESS_INTERVAL", "0")
    copy = tmp_path / "music"
    shutil.copytree(music, copy)
    server = make_tonearm(music_dir=copy)

    # The first start's scan is job 1.
    assert summary(server, 1).group(1).startswith(
        "13 files in 5 folders, 12 added, 0 updated, 0 removed, 1 unreadable (Bad/broken.flac: ")
    log = server.log_text()
    assert re.search(r"update job 1: \d+ files in \d+ folders found so far, [0-9.]+ s$", log, re.M), log
    assert re.search(r"update job 1: \d+ of 13 files checked in 5 folders, \d+ added, 0 updated, 0 removed, "
                     r"\d unreadable, [0-9.]+ s \([0-9,]+ files/s\)$", log, re.M), log

    (copy / SONGS[3]).unlink()
    with server.connect() as c:
        job = update(c)
        assert job != 1
        assert summary(server, job).group(1).startswith(
            "12 files in 5 folders, 0 added, 0 updated, 1 removed, 1 unreadable (Bad/broken.flac: ")
        job = update(c, "rescan")
        assert summary(server, job).group(1).startswith(
            "12 files in 5 folders, 0 added, 11 updated, 0 removed, 1 unreadable (Bad/broken.flac: ")
        job = update(c, "update A")
        assert summary(server, job).group(0).startswith(
            f'update job {job} ("A"): 5 files in 1 folder, 0 added, 0 updated, 0 removed, 0 unreadable in ')


def test_the_default_level_shows_the_summary_of_a_scan_that_changed_nothing(
        make_tonearm, music, tmp_path, monkeypatch):
    monkeypatch.delenv("TONEARM_SCAN_PROGRESS_INTERVAL", raising=False)
    copy = tmp_path / "music"
    shutil.copytree(music, copy)
    server = make_tonearm(music_dir=copy)
    summary(server, 1)
    with server.connect() as c:
        job = update(c)
        assert summary(server, job).group(1).startswith(
            "13 files in 5 folders, 0 added, 0 updated, 0 removed, 1 unreadable (Bad/broken.flac: ")
    # A scan this small is over long before the five seconds between progress lines.
    assert "found so far" not in server.log_text() and "files checked" not in server.log_text()


def test_a_directory_watcher_update_logs_its_summary(make_tonearm, music, tmp_path, monkeypatch):
    monkeypatch.setenv("TONEARM_SCAN_PROGRESS_INTERVAL", "0")
    copy = tmp_path / "music"
    shutil.copytree(music, copy)
    server = make_tonearm('auto_update "yes"\n', music_dir=copy)
    summary(server, 1)
    with server.connect() as c:
        idle(c)
    for index in range(3):
        shutil.copyfile(copy / SONGS[0], copy / f"B/new{index}.flac")
    (copy / SONGS[0]).unlink()
    # No update command: the watcher queues jobs for A and B (with B/C: 9 songs), and each logs
    # its summary.
    line = re.compile(r'update job (\d+) \("B"\): 9 files in 2 folders, 3 added, 0 updated, 0 removed, '
                      r"0 unreadable in [0-9.]+ s \([0-9,]+ files/s\)$", re.M)
    assert poll("the watcher's update of B", lambda: line.search(server.log_text()), timeout=30)
    assert poll("the watcher's update of A", lambda: re.search(
        r'update job \d+ \("A"\): 5 files in 1 folder, 0 added, 0 updated, 1 removed, 0 unreadable in ',
        server.log_text()), timeout=30)
