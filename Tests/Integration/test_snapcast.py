"""Multi-room audio with Snapcast, as docs/snapcast.md sets it up: Tonearm's `fifo` output feeds
`snapserver`'s pipe source, and a `snapclient` (its file player standing in for a room's sound
card) plays what it receives. Snapcast carries the audio as FLAC, losslessly, so the client's
recording holds the song's samples exactly, without a gap or a repeat, unless Snapcast itself
resynchronised on a loaded machine (which it logs). Everything listens on 127.0.0.1."""
import os
import shutil
import subprocess
import wave
from datetime import datetime, timedelta

import pytest

from support import audio
from support.playback import wait_elapsed
from support.polling import poll
from support.servers import TonearmServer, free_port

pytestmark = pytest.mark.realtime

RATE = 48000
FRAME = 4  # 16-bit stereo
SONG = 6  # seconds


@pytest.fixture
def snapcast(tmp_path):
    """Starts processes in `tmp_path` and stops them after the test."""
    if shutil.which("snapserver") is None or shutil.which("snapclient") is None:
        pytest.skip("snapserver and snapclient are missing: apt-get install snapserver snapclient")
    started = []

    def start(command, name):
        log = open(tmp_path / f"{name}.log", "wb")
        # snapserver keeps its state under $HOME whatever its data folder says.
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
                                   env={**os.environ, "HOME": str(tmp_path)})
        started.append(process)
        return process

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=20)


def test_a_snapclient_plays_what_tonearm_plays_through_snapserver(tmp_path, snapcast):
    music = tmp_path / "music"
    music.mkdir()
    audio.chirp(music / "chirp.wav", rate=RATE, seconds=SONG)
    with wave.open(str(music / "chirp.wav")) as song:
        source = song.readframes(song.getnframes())
    fifo = tmp_path / "snapfifo"
    output = ('audio_output {\n type "fifo"\n name "Snapcast"\n'
              f' path "{fifo}"\n format "{RATE}:16:2"\n mixer_type "software"\n}}\n')
    with TonearmServer(tmp_path / "tonearm", music_dir=music, output=output) as server:
        stream_port = free_port()
        snapcast(["snapserver", "-c", "/dev/null", f"--server.datadir={tmp_path}",
                  f"--stream.source=pipe://{fifo}?name=default&sampleformat={RATE}:16:2",
                  "--http.enabled=false", "--tcp.bind_to_address=127.0.0.1", f"--tcp.port={free_port()}",
                  "--stream.bind_to_address=127.0.0.1", f"--stream.port={stream_port}"], "snapserver")
        recording = tmp_path / "room.pcm"
        snapcast(["snapclient", "-h", "127.0.0.1", "-p", str(stream_port), "--hostID", "room",
                  f"--player=file:filename={recording}"], "snapclient")
        # Snapcast streams in real time: a room that joins late never hears what was sent before
        # (a loaded machine once missed the song's first second). Play once the client has its
        # settings and its clock from the server.
        client_log = tmp_path / "snapclient.log"
        poll("snapclient in step with snapserver",
             lambda: client_log.exists() and "diff to server" in client_log.read_text(errors="replace"), timeout=30)
        with server.connect() as c:
            assert c.command('add "chirp.wav"') == ["OK"]
            played = datetime.now()
            assert c.command("play") == ["OK"]
            wait_elapsed(c, 5.5, timeout=30)

            # One window of 100 ms every second of the song: each must be in the recording,
            # each as far after the one before as in the song.
            windows = range(FRAME * RATE, len(source) - FRAME * RATE // 10, FRAME * RATE)

            def found() -> list[int] | None:
                """Where each window is in the recording so far; None until all are."""
                data = recording.read_bytes() if recording.exists() else b""
                positions = [data.find(source[at:at + FRAME * RATE // 10]) for at in windows]
                return None if -1 in positions else positions

            positions = poll("the song in the room's recording", found, timeout=30)
    assert positions == sorted(positions), positions
    shifts = [position - at for position, at in zip(positions, windows)]
    jumps = sum(1 for before, after in zip(shifts, shifts[1:]) if before != after)
    # A stream that falls behind real time on a loaded machine is put back in step by Snapcast,
    # which logs it at INFO: snapserver restarts its clock when a read of its pipe ends late
    # ("onResync"); snapclient plays silence when a chunk is not there in time ("No chunks
    # available", "Not enough frames available") and then drops or pads a block to
    # catch up, as it does when its median lateness passes 2-5 ms (the "full()" checks). A shift
    # without such a line during the song is audio lost or repeated on the way. (The song reaches
    # the room a second late, snapserver's buffer; its end there is after this window.)
    resyncs = snapcast_resyncs(tmp_path, since=played, until=played + timedelta(seconds=SONG + 0.9))
    assert jumps <= len(resyncs), (shifts, resyncs)


def snapcast_resyncs(folder, since: datetime, until: datetime) -> list[str]:
    """The lines, logged between `since` and `until`, in which snapserver or snapclient say
    the stream was late or put back in step."""
    marks = ("onResync", "No chunks available", "Not enough frames available", "full()", "abs(age > 500)")
    lines = []
    for name in ("snapserver.log", "snapclient.log"):
        log = folder / name
        for line in log.read_text(errors="replace").splitlines() if log.exists() else []:
            try:
                logged = datetime.strptime(line[:23], "%Y-%m-%d %H-%M-%S.%f")
            except ValueError:
                continue
            if since <= logged <= until and any(mark in line for mark in marks):
                lines.append(line)
    return lines
