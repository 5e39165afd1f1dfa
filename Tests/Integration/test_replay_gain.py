"""Replay gain (`replaygain`, `replaygain_preamp`, `replaygain_missing_preamp`, `replaygain_limit`,
`replay_gain_mode`, `replay_gain_status`): the bytes a `pipe` output (`cat >> FILE`) receives.

Runs against Tonearm and Debian's MPD 0.23 with the same files and configuration. The FLAC
files are made with the ffmpeg CLI and tagged with `-metadata REPLAYGAIN_*`. The pipe output
has `mixer_type "none"`, so the replay gain is the only scaling: MPD then scales 16-bit audio
at 16 bits with its `PcmVolume` (fixed-point factor, noise-shaped dither, clipping). Each case
gives every song's factor (the scale × 1024, rounded, as MPD's `pcm_float_to_volume`), and both
servers must emit exactly what `mpd_scaled` computes from ffmpeg's decoding of the files: one
dither state running through the whole stream, from fresh at the first play.
"""
import subprocess
import sys
import time
from array import array
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.audio import Dither  # noqa: E402
from support.library import wait_for_scan  # noqa: E402
from support.playback import fields, status  # noqa: E402
from support.servers import MPDServer, TonearmServer  # noqa: E402

FFMPEG = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
UNITY = 1024

# name → tags. Each is 1 s of 44.1 kHz stereo 16-bit FLAC: tones of 440 Hz (left) and 660 Hz
# (right) at 0.75 of full scale, the peak `loud.flac` states.
FILES = {
    "minus6.flac": {"REPLAYGAIN_TRACK_GAIN": "-6.00 dB"},
    "both.flac": {"REPLAYGAIN_TRACK_GAIN": "-6.00 dB", "REPLAYGAIN_ALBUM_GAIN": "-12.00 dB"},
    "loud.flac": {"REPLAYGAIN_TRACK_GAIN": "+6.00 dB", "REPLAYGAIN_TRACK_PEAK": "0.750000"},
    "plain.flac": {},
}
TONES = "aevalsrc=0.75*sin(2*PI*440*t)|0.75*sin(2*PI*660*t):s=44100:d=1"

# (name, configuration, commands before play, songs, each song's factor)
CASES = [
    ("track: -6 dB", 'replaygain "track"\n', [], ["minus6.flac"], [513]),
    ("off by default", "", [], ["minus6.flac"], [UNITY]),
    ("replay_gain_mode switches it on", "", ["replay_gain_mode track"], ["minus6.flac"], [513]),
    ("replay_gain_mode switches it off", 'replaygain "track"\n', ["replay_gain_mode off"], ["minus6.flac"], [UNITY]),
    ("album takes the album gain", 'replaygain "album"\n', [], ["both.flac"], [257]),
    ("album falls back to the track gain", 'replaygain "album"\n', [], ["minus6.flac"], [513]),
    ("auto is album", 'replaygain "auto"\n', [], ["both.flac"], [257]),
    ("auto is track while random is on", 'replaygain "auto"\n', ["random 1"], ["both.flac"], [513]),
    ("the preamp adds to the gain", 'replaygain "track"\nreplaygain_preamp "6"\n', [], ["minus6.flac"], [UNITY]),
    # +6 dB (1.995) on a peak of 0.75 would pass full scale: the limit makes it 1 / 0.75.
    ("the limit holds the peak at full scale", 'replaygain "track"\n', [], ["loud.flac"], [1365]),
    ("without the limit, +6 dB clips", 'replaygain "track"\nreplaygain_limit "no"\n', [], ["loud.flac"], [2043]),
    ("no tags: the missing preamp", 'replaygain "track"\nreplaygain_missing_preamp "-6"\n', [], ["plain.flac"], [513]),
    ("each song its own gain, gaplessly", 'replaygain "track"\nreplaygain_missing_preamp "-3"\n', [],
     ["minus6.flac", "loud.flac", "plain.flac"], [513, 1365, 725]),
]


@pytest.fixture(scope="module")
def music(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("replay-gain-music")
    for name, tags in FILES.items():
        metadata = [a for key, value in tags.items() for a in ("-metadata", f"{key}={value}")]
        subprocess.run(FFMPEG + ["-f", "lavfi", "-i", TONES, "-c:a", "flac", "-sample_fmt", "s16", *metadata,
                                 "-fflags", "+bitexact", "-flags:a", "+bitexact", str(root / name)], check=True)
    return root


def decoded(path: Path) -> array:
    """The file's samples as ffmpeg decodes them (16-bit, interleaved)."""
    raw = subprocess.run(FFMPEG + ["-i", str(path), "-f", "s16le", "-"], check=True, capture_output=True).stdout
    samples = array("h")
    samples.frombytes(raw)
    return samples


def mpd_scaled(songs: list[array], factors: list[int]) -> bytes:
    """The songs one after the other, each scaled by its factor as MPD's `PcmVolume` scales
    16-bit samples (a factor of 1024 leaves a song alone and does not touch the dither)."""
    dither = Dither()
    result = array("h")
    for samples, factor in zip(songs, factors):
        if factor == UNITY:
            result.extend(samples)
        else:
            result.extend(dither.shift(s * factor, 26, 10) for s in samples)
    return result.tobytes()


def pipe_output(path: Path) -> str:
    return f'audio_output {{\n type "pipe"\n name "pipe"\n command "cat >> {path}"\n mixer_type "none"\n}}\n'


def played_bytes(kind: str, workdir: Path, music: Path, config: str, commands: list[str], songs: list[str],
                 expected_size: int, plays: int = 1) -> bytes:
    """Starts the server, queues `songs`, runs `commands`, plays to the end (`plays` times) and
    returns what reached the pipe (waiting, with a generous timeout, until all of it arrived)."""
    out = workdir / "out.raw"
    server_class = TonearmServer if kind == "tonearm" else MPDServer
    with server_class(workdir / kind, extra_config=config, music_dir=music, output=pipe_output(out)) as server:
        with server.connect() as c:
            wait_for_scan(c)
            for song in songs:
                assert c.command(f'add "{song}"') == ["OK"]
            for command in commands:
                assert c.command(command) == ["OK"], command
            deadline = time.monotonic() + 30
            for play in range(1, plays + 1):
                assert c.command("play 0") == ["OK"]
                # The end of the queue stops the player; wait for the audio to be out.
                while time.monotonic() < deadline and (
                        status(c)["state"] != "stop" or not out.exists() or out.stat().st_size < expected_size * play):
                    time.sleep(0.05)
    return out.read_bytes()


def mpd_replayed_the_last_song(workdir: Path, songs: list[str]) -> bool:
    """Whether MPD's log says it played the queue's last song a second time at the end, which
    Debian's MPD 0.23 now and then does (CI once saw `player: played "plain.flac"` twice after
    the three songs of the gapless case, and 705,600 bytes where 529,200 were due)."""
    log = workdir / "mpd" / "log"
    marker = 'player: played "'
    played = [line.split(marker, 1)[1].rstrip('"') for line in log.read_text().splitlines() if marker in line]
    return played == songs + songs[-1:]


@pytest.mark.parametrize("kind", ["tonearm", "mpd"])
@pytest.mark.parametrize("name, config, commands, songs, factors", CASES, ids=[c[0] for c in CASES])
def test_pipe_gets_the_scaled_samples(kind, music, tmp_path, name, config, commands, songs, factors):
    samples = [decoded(music / song) for song in songs]
    expected = mpd_scaled(samples, factors)
    got = played_bytes(kind, tmp_path, music, config, commands, songs, len(expected))
    if kind == "mpd" and len(got) > len(expected) and mpd_replayed_the_last_song(tmp_path, songs):
        got = got[:len(expected)]  # the first pass is the one MPD's scaling is compared with
    assert len(got) == len(expected), (len(got), len(expected))
    if got != expected:
        first = next(i for i in range(0, len(got), 2) if got[i:i + 2] != expected[i:i + 2]) // 2
        pytest.fail(f"sample {first} of {len(expected) // 2} differs: "
                    f"got {array('h', got[first * 2:first * 2 + 16]).tolist()}, "
                    f"expected {array('h', expected[first * 2:first * 2 + 16]).tolist()}")


@pytest.mark.parametrize("kind", ["tonearm", "mpd"])
def test_a_new_play_after_the_end_starts_the_dither_afresh(kind, music, tmp_path):
    """The end of the queue stops the player and MPD closes its outputs, and with them the
    replay gain filter's dither: the second play emits the very bytes of the first."""
    once = mpd_scaled([decoded(music / "minus6.flac")], [513])
    got = played_bytes(kind, tmp_path, music, 'replaygain "track"\n', [], ["minus6.flac"], len(once), plays=2)
    assert got == once + once


def test_scaled_samples_really_change(music):
    """The reference itself: −6 dB halves the tones, the limit keeps +6 dB below full scale,
    and without it the samples clip."""
    tone = decoded(music / "loud.flac")
    peak = max(abs(s) for s in tone)
    assert abs(peak - 0.75 * 32768) <= 2
    halved = array("h", mpd_scaled([tone], [513]))
    assert abs(max(abs(s) for s in halved) - peak * 513 / 1024) <= 3
    assert max(abs(s) for s in array("h", mpd_scaled([tone], [1365]))) < 32767
    clipped = array("h", mpd_scaled([tone], [2043]))
    assert max(clipped) == 32767 and min(clipped) == -32768


def test_status_reports_the_mode_which_the_state_file_does_not_keep(make_player_server):
    """`replay_gain_status` reports the mode as set, `auto` included; the mode starts from
    `replaygain` and, as in MPD, a restart goes back to it: the state file has no line for it."""
    server = make_player_server(extra_config='replaygain "auto"\n')
    with server.connect() as c:
        assert fields(c.command("replay_gain_status")) == {"replay_gain_mode": "auto"}
        assert c.command("replay_gain_mode track") == ["OK"]
        assert fields(c.command("replay_gain_status")) == {"replay_gain_mode": "track"}
        assert c.command("replay_gain_mode loud") == ["ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode"]
        c.command("random 1")
    server.stop()
    assert "replay" not in (server.workdir / "state").read_text()
    server.start()
    with server.connect() as c:
        assert fields(c.command("replay_gain_status")) == {"replay_gain_mode": "auto"}
