"""Stopping the helper processes tests start (clients, sound servers, desktop programs)."""
import os
import signal
import subprocess


def terminate(process: subprocess.Popen | None, timeout: float = 10, group: bool = False):
    """SIGTERM, then SIGKILL if it has not exited within `timeout` seconds; nothing if it has
    already exited. With `group`, the signals go to the process group it leads (start it with
    `start_new_session=True`), whose other members may outlive it: a program under
    dbus-run-session, and the bus."""
    if process is None or (process.poll() is not None and not group):
        return

    def send(sig: int):
        if not group:
            process.send_signal(sig)
            return
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass

    send(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        process.wait()
