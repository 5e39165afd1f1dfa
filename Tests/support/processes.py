"""Stopping the helper processes tests start (clients, sound servers)."""
import subprocess


def terminate(process: subprocess.Popen | None, timeout: float = 10):
    """SIGTERM, then SIGKILL if it has not exited within `timeout` seconds; nothing if it has
    already exited."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
