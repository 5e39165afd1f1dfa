"""How the audio threads are scheduled, on Tonearm and on Debian's MPD 0.23.

MPD's output threads ask for real-time scheduling (`SCHED_FIFO` at priority 40, with
`SCHED_RESET_ON_FORK`), its decoder does not; Tonearm's do the same (Playback's
`AudioThreadScheduling`), which is what lets the first chunk after `play` reach the device
without waiting for a CPU on a loaded machine. Tonearm's decoder also runs five steps nicer
than the rest (MPD's at the process' niceness), so that a command a pipe output starts on
the decoder's CPU does not wait for its burst. The commands a `pipe` output starts run with
normal scheduling on both. Without the privilege (root, CAP_SYS_NICE or an RLIMIT_RTPRIO of
40) both servers play on at normal priority.

Read from /proc/PID/task (each thread's name and policy) while the servers play; the pipe's
command reports its own policy with `chrt -p`.
"""
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.playback import wait_state  # noqa: E402
from support.polling import poll  # noqa: E402

SCHED_RESET_ON_FORK = 0x40000000
#: Whether the servers may have real-time threads: asked of the kernel in a child process, since
#: root alone is not enough where CAP_SYS_NICE was dropped (containers), and a non-root user may
#: have an RLIMIT_RTPRIO.
PRIVILEGED = subprocess.run([sys.executable, "-c", "import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(40))"],
                            stderr=subprocess.DEVNULL).returncode == 0
#: Thread names: MPD's `output:NAME` and `decoder:PLUGIN`, Tonearm's `tonearm.out.N` and
#: `tonearm.decoder`.
OUTPUT_PREFIX = {"mpd": "output:", "tonearm": "tonearm.out."}
DECODER_PREFIX = {"mpd": "decoder", "tonearm": "tonearm.decoder"}


def threads(pid: int) -> list[tuple[str, int, int, int]]:
    """(name, policy, priority, niceness) of every thread of `pid`."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().rstrip("\n")
            tid = int(task.name)
            nice = int((task / "stat").read_text().rsplit(")", 1)[1].split()[16])
            found.append((name, os.sched_getscheduler(tid), os.sched_getparam(tid).sched_priority, nice))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return found


def test_output_threads_are_realtime_and_their_commands_are_not(make_audio_server, tmp_path):
    report = tmp_path / "command-scheduling.txt"
    output = ('audio_output {\n type "pipe"\n name "pipe"\n'
              f' command "chrt -p $$ > {report}; exec cat > /dev/null"\n}}\n')
    server = make_audio_server(output)
    kind = "mpd" if type(server).__name__ == "MPDServer" else "tonearm"
    with server.connect() as c:
        assert c.command('add "long.flac"') == ["OK"]
        assert c.command("play") == ["OK"]
        text = poll("the pipe's command to report its scheduling",
                    lambda: report.exists() and "priority" in report.read_text() and report.read_text())
        seen = threads(server.process.pid)
        wait_state(c, "stop")

    # The command: normal scheduling, whatever its parent thread has.
    assert "policy: SCHED_OTHER" in text, text

    outputs = [t for t in seen if t[0].startswith(OUTPUT_PREFIX[kind])]
    decoders = [t for t in seen if t[0].startswith(DECODER_PREFIX[kind])]
    assert outputs and decoders, seen
    process_nice = int(Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    for name, policy, priority, _ in outputs:
        if PRIVILEGED:
            assert (policy, priority) == (os.SCHED_FIFO | SCHED_RESET_ON_FORK, 40), name
        else:
            assert policy == os.SCHED_OTHER, name
    for name, policy, _, nice in decoders:
        assert policy == os.SCHED_OTHER, name
        assert nice == (min(19, process_nice + 5) if kind == "tonearm" else process_nice), name
