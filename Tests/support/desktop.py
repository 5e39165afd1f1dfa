"""A desktop program on a virtual X screen (Xvfb), and what its screen shows.

`VirtualScreen` starts Xvfb on a display number it picks itself (`-displayfd`), without a TCP
listener; `screenshot` saves the whole screen as a PNG with ImageMagick's `import` and returns its
pixels; `count_colours` counts the pixels near given colours. Pure Python: no imaging module."""
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from support import processes


@dataclass
class Screenshot:
    path: Path  # the PNG, for a person to look at
    width: int
    height: int
    rgb: bytes  # width × height pixels, 3 bytes each, row by row


class VirtualScreen:
    """An Xvfb screen of WIDTH×HEIGHT, 24-bit; `display` is its DISPLAY (":N")."""

    def __init__(self, width: int = 1600, height: int = 600, log: Path | None = None):
        self.width, self.height = width, height
        reader, writer = os.pipe()
        output = open(log, "wb") if log else subprocess.DEVNULL
        try:
            self.process = subprocess.Popen(
                ["Xvfb", "-displayfd", str(writer), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
                pass_fds=(writer,), stdin=subprocess.DEVNULL, stdout=output, stderr=output)
        finally:
            os.close(writer)
            if log:
                output.close()
        with os.fdopen(reader) as numbers:
            number = numbers.readline().strip()  # written once the server accepts clients
        if not number:
            self.process.kill()
            self.process.wait()
            raise RuntimeError("Xvfb did not start" + (f"; see {log}" if log else ""))
        self.display = f":{number}"

    def screenshot(self, path: Path) -> Screenshot:
        env = {**os.environ, "DISPLAY": self.display}
        subprocess.run(["import", "-window", "root", str(path)], env=env, check=True, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rgb = subprocess.run(["convert", str(path), "-depth", "8", "rgb:-"], check=True, timeout=60,
                             capture_output=True).stdout
        assert len(rgb) == self.width * self.height * 3, (len(rgb), self.width, self.height)
        return Screenshot(path, self.width, self.height, rgb)

    def close(self):
        processes.terminate(self.process)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def count_colours(shot: Screenshot, colours: dict[str, tuple[int, int, int]], tolerance: int = 8,
                  region: tuple[int, int, int, int] | None = None) -> dict[str, int]:
    """How many pixels of `shot` (or of its `region`: x, y, width, height) are within
    `tolerance` (per channel) of each named colour."""
    nearby: dict[bytes, str] = {}
    span = range(-tolerance, tolerance + 1)
    for name, (red, green, blue) in colours.items():
        for r in span:
            for g in span:
                for b in span:
                    pixel = (red + r, green + g, blue + b)
                    if all(0 <= channel <= 255 for channel in pixel):
                        nearby[bytes(pixel)] = name
    counts = dict.fromkeys(colours, 0)
    x, y, width, height = region or (0, 0, shot.width, shot.height)
    rgb = shot.rgb
    for row in range(y, y + height):
        start = (row * shot.width + x) * 3
        for offset in range(start, start + width * 3, 3):
            name = nearby.get(rgb[offset:offset + 3])
            if name is not None:
                counts[name] += 1
    return counts
