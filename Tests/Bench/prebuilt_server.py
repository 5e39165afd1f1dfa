#!/usr/bin/env python3
"""The output-bound limit of a query: the same bytes, sent by a server that has them ready.

`library_bench.py` captures a server's whole answer to one command (through its own client)
and hands it to `measure`, which starts this file as a separate process (its own interpreter,
so that it never waits for the client's global interpreter lock): it listens on 127.0.0.1 on
an ephemeral port, sends an MPD greeting to its one client and answers each line equal to the
command with the prebuilt answer in one `sendall`, any other line with an ACK. The client then
times the command exactly as it times a real server. What remains is the cost of moving the
bytes: the kernel's loopback TCP and the client's reads.

The server is not the bottleneck: between commands it does nothing but wait in `recv`, and
it measures its own CPU time (`time.thread_time`) from the command line's arrival to the end
of its `sendall`, which `measure` returns so that the caller can print it beside the limit.

Run as a script it is that server: `prebuilt_server.py ANSWER_FILE COMMAND` prints its port,
then, when the client has gone, the CPU seconds of each answer, one line each.
"""
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GREETING = b"OK MPD 0.23.5\n"


def serve(answer: bytes, command: bytes):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    print(listener.getsockname()[1], flush=True)
    connection, _ = listener.accept()
    listener.close()
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    connection.sendall(GREETING)
    cpu, pending = [], b""
    while True:
        chunk = connection.recv(4096)
        if not chunk:
            break
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            start = time.thread_time()
            if line == command:
                connection.sendall(answer)  # the whole answer in one call
                cpu.append(time.thread_time() - start)
            else:
                connection.sendall(b"ACK [5@0] {} unknown command\n")
    connection.close()
    for seconds in cpu:
        print(f"{seconds:.9f}", flush=True)


def measure(answer: bytes, command: str, repeat: int, client_class, timeout: float = 60):
    """Times `command` `repeat` times against a prebuilt server holding `answer`, with
    `client_class` (the benchmark's client): (wall times in seconds, the server's CPU seconds
    per answer). Raises the client's errors; checks that the client reads back `answer`."""
    with tempfile.NamedTemporaryFile(prefix="tonearm-prebuilt-", suffix=".answer") as file:
        file.write(answer)
        file.flush()
        process = subprocess.Popen(
            [sys.executable, __file__, file.name, command], stdout=subprocess.PIPE, text=True)
        try:
            port = int(process.stdout.readline())
            client = client_class(port, timeout)
            try:
                if client.request(command) != answer:
                    raise RuntimeError("the prebuilt server's answer came back different")
                times = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    client.request(command)
                    times.append(time.perf_counter() - start)
            finally:
                client.close()
            cpu = [float(line) for line in process.stdout.read().split()]
            process.wait(timeout=timeout)
            return times, cpu
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


if __name__ == "__main__":
    serve(Path(sys.argv[1]).read_bytes(), sys.argv[2].encode())
