"""Multi-room audio with Snapcast, as docs/snapcast.md sets it up: Tonearm's `fifo` output feeds
`snapserver`'s pipe source, and a `snapclient` (its file player standing in for a room's sound
card) plays what it receives. Snapcast carries the audio as FLAC, losslessly, so the client's
recording holds the song's samples exactly, without a gap or a repeat, unless Snapcast itself
resynchronised on a loaded machine (which it logs), or nudged the room's clock by a frame here and
there (which it does not log). Everything listens on 127.0.0.1."""
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
# Where a room's clock drifts from the server's, snapclient plays up to 0.05 % faster or slower
# by dropping or repeating single frames now and then, and logs nothing of it (Snapcast 0.26,
# client/stream.cpp: `setRealSampleRate`, its log line commented out). So the song is looked
# for in pieces of 10 ms (a window of 100 ms is there when 8 of its 10 pieces are, in place to
# within 3 frames), and followed frame by frame, the nudges counted.
PIECE = FRAME * RATE // 100
PIECES = 10
PIECES_FOUND = 8
NUDGE = 3 * FRAME


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

            # The song from its second second to its last: its first and last 100 ms must be in
            # the recording, and every frame between them in order.
            begin, end = FRAME * RATE, len(source) - FRAME * RATE // 2

            def found() -> tuple[int, int] | None:
                """Where the first and last windows start in the recording so far, once both are
                and the recording holds another 100 ms after the last: a window counts as found
                with 8 of its 10 pieces, so its end may not be written yet (a run once read the
                recording 57 frames short of the song's end)."""
                data = recording.read_bytes() if recording.exists() else b""
                first = window_position(data, source, begin)
                last = window_position(data, source, end - PIECE * PIECES)
                if first is None or last is None or len(data) < last + 2 * PIECE * PIECES:
                    return None
                return (first, last)

            first, _ = poll("the song in the room's recording", found, timeout=30)
    silence, nudges, skips = follow(recording.read_bytes(), first, source, begin, end)
    # Snapcast's clock: single frames dropped or repeated, within twice its bound.
    assert nudges <= 2 * 0.0005 * (end - begin) / FRAME + 2, (nudges, silence, skips)
    # A stream that falls behind real time on a loaded machine is put back in step by Snapcast.
    # snapclient plays silence while a chunk is not there in time (it logs "No chunks available"
    # at most once a second, and not in a second in which it logged its statistics), and
    # that is allowed. Audio left out is allowed only where Snapcast logged that it caught up
    # (INFO): snapserver restarts its clock when a read of its pipe ends late ("onResync");
    # snapclient drops a block when its median lateness passes 2-5 ms (the "full()" checks).
    # (The song reaches the room a second late, snapserver's buffer; its end there is after
    # this window.)
    resyncs = snapcast_resyncs(tmp_path, since=played, until=played + timedelta(seconds=SONG + 0.9))
    assert len(skips) <= len(resyncs), (skips, resyncs)


def window_position(data: bytes, source: bytes, at: int) -> int | None:
    """Where the song's 100 ms from byte `at` start in the recording `data`: the median of where
    each of its 10-ms pieces found there puts the start, once 8 of the 10 pieces put it within 3
    frames of that (a piece with a nudged frame is not found); None until then."""
    starts = []
    for piece in range(PIECES):
        offset = at + piece * PIECE
        position = data.find(source[offset:offset + PIECE])
        if position >= 0:
            starts.append(position - piece * PIECE)
    if len(starts) < PIECES_FOUND:
        return None
    start = sorted(starts)[len(starts) // 2]
    return start if sum(1 for s in starts if abs(s - start) <= NUDGE) >= PIECES_FOUND else None


def follow(recording: bytes, at: int, source: bytes, begin: int, end: int) -> tuple[int, int, list[int]]:
    """Follows the song's bytes `begin`..`end` through the recording from `at`, where they start:
    every frame must come in order, except for silent frames put in, a frame repeated or left out
    now and then (a nudge of Snapcast's clock), or a stretch left out (a skip, by its length in
    frames). Returns (silent frames, nudges, skips); fails at a frame that is none of these."""
    silent = bytes(FRAME)
    silence = nudges = 0
    skips: list[int] = []
    r, s = at, begin
    while s < end:
        # Equal stretches are compared a piece at a time, then a frame at a time.
        if recording[r:r + PIECE] == source[s:s + PIECE]:
            r, s = r + PIECE, s + PIECE
            continue
        frame = recording[r:r + FRAME]
        assert len(frame) == FRAME, f"the recording ends at the song's frame {s // FRAME}"
        if frame == source[s:s + FRAME]:
            r, s = r + FRAME, s + FRAME
        elif frame == silent:
            silence, r = silence + 1, r + FRAME
        elif frame == source[s + FRAME:s + 2 * FRAME]:
            nudges, s = nudges + 1, s + FRAME  # one frame left out: the next one is here
        elif frame == recording[r - FRAME:r]:
            nudges, r = nudges + 1, r + FRAME  # the frame before, repeated
        else:
            # Left out: the recording goes on somewhere later in the song.
            later = source.find(recording[r:r + PIECE], s)
            assert later > s and (later - s) % FRAME == 0, \
                f"the song's frame {s // FRAME} is followed by sound that is not what comes next in the song"
            skips.append((later - s) // FRAME)
            s = later
    return silence, nudges, skips


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
