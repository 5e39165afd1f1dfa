"""Waiting for a condition in tests: poll with a generous timeout, never assert on time."""
import time


def poll(what: str, check, timeout: float = 20, interval: float = 0.05):
    """Calls `check` until it returns something true and returns that; raises AssertionError
    after `timeout` seconds (generous: the machine may be loaded)."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(interval)
