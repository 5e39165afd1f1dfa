"""A `pipe` output's command that appends its input to a file no faster than SPEED times real
time (CD audio): `python3 throttle.py FILE [SPEED]`.

MPD's player pairs the chunks of a crossfade only while the next song's chunks are decoded
ahead of the outputs; an unpaced pipe output drains its buffer faster than that, so MPD
crossfades less than asked or not at all depending on the moment. Writing at a few times real
time keeps the decoder ahead, as a sound card does, and a test still runs in seconds.
"""
import sys
import time

BYTES_PER_SECOND = 44100 * 4


def main():
    path, speed = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 8
    rate = BYTES_PER_SECOND * speed
    start, written = time.monotonic(), 0
    with open(path, "ab", buffering=0) as out:
        while True:
            data = sys.stdin.buffer.read1(16384)
            if not data:
                break
            out.write(data)
            written += len(data)
            ahead = written / rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)


if __name__ == "__main__":
    main()
