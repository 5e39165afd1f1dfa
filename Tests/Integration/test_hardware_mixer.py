"""The ALSA output's hardware mixer on a real volume control: ALSA's `pulse` device, whose
`Master` control is the volume of a private PulseAudio's null sink (Tests/support/pulse.py).
`setvol` must turn the sink, and a change made outside the server (`pactl`, as a desktop's
volume slider does) must reach `status` and idle `mixer`, as MPD's ALSA mixer reports it.
Each test runs against Tonearm and Debian's MPD.
"""
import re

import pytest

from support.playback import idle, status, wait_status

ALSA_WITH_HARDWARE_MIXER = ('audio_output {\n type "alsa"\n name "pulse"\n device "pulse"\n'
                            ' mixer_type "hardware"\n mixer_device "pulse"\n mixer_control "Master"\n}\n')


@pytest.fixture
def start(make_server, pulse):
    """Starts the server of this run (conftest's `make_server`: Tonearm or MPD) with its ALSA
    output on the `pulse` device, once the sound server runs."""
    return lambda: make_server(output=ALSA_WITH_HARDWARE_MIXER)


def sink_volume(pulse) -> int:
    """The null sink's front-left volume in percent, as pactl prints it: the channel both
    servers read back. (Through the `pulse` control, MPD 0.23's `setvol` moves only the
    front-left channel; Tonearm sets every channel.)"""
    printed = pulse.pactl("get-sink-volume", pulse.sink)
    return int(re.search(r"front-left: \d+ / +(\d+)%", printed).group(1))


def wait_sink_volume(pulse, expected: int, timeout: float = 10) -> None:
    """Waits for the sink to reach `expected`: the `pulse` control sends the change over its own
    connection to the sound server, which pactl's connection may see a moment later."""
    import time
    deadline = time.monotonic() + timeout
    while sink_volume(pulse) != expected:
        assert time.monotonic() < deadline, f"the sink stays at {sink_volume(pulse)}%, not {expected}%"
        time.sleep(0.05)


def test_the_volume_at_start_is_the_devices(start, pulse):
    pulse.pactl("set-sink-volume", pulse.sink, "35%")
    server = start()
    with server.connect() as c:
        assert status(c)["volume"] == "35"


# Debian's MPD 0.23 sets the `pulse` control only some of the time: in 3 runs of 8 here the sink
# stayed at 0 % or 100 % after its `setvol` answered OK. The tests that need its setvol to land
# run on Tonearm alone.
MPD_SETVOL_UNRELIABLE = "MPD 0.23's setvol on ALSA's pulse control lands only some of the time"


def test_setvol_and_volume_turn_the_sink(start, pulse, request):
    if "mpd" in request.node.callspec.id:
        pytest.skip(MPD_SETVOL_UNRELIABLE)
    server = start()
    with server.connect() as c:
        assert c.command("setvol 40") == ["OK"]
        wait_sink_volume(pulse, 40)
        assert c.command("volume 15") == ["OK"]
        wait_sink_volume(pulse, 55)
        assert status(c)["volume"] == "55"


def test_a_change_outside_the_server_reaches_status_and_idle(start, pulse):
    server = start()
    with server.connect() as watcher, server.connect() as c:
        assert c.command("setvol 60") == ["OK"]
        assert idle(watcher, "mixer") == ["mixer"]
        watcher.send("idle mixer\n")
        pulse.pactl("set-sink-volume", pulse.sink, "25%")
        assert watcher.read_response(timeout=20) == ["changed: mixer", "OK"]
        assert status(c)["volume"] == "25"
        # Another change while nobody waits shows in status too.
        pulse.pactl("set-sink-volume", pulse.sink, "70%")
        wait_status(c, lambda s: s["volume"] == "70", what="volume 70")


def test_a_restart_leaves_the_device_at_its_level(start, pulse, request):
    """The state file's `sw_volume` belongs to software mixers: a restart does not turn the
    card back to what `setvol` last set (someone may have turned it since)."""
    if "mpd" in request.node.callspec.id:
        pytest.skip(MPD_SETVOL_UNRELIABLE)
    server = start()
    with server.connect() as c:
        assert c.command("setvol 60") == ["OK"]
    wait_sink_volume(pulse, 60)
    server.stop()
    pulse.pactl("set-sink-volume", pulse.sink, "20%")
    server.start()
    with server.connect() as c:
        assert status(c)["volume"] == "20"
    assert sink_volume(pulse) == 20
