"""max_connections and connection_timeout, against Tonearm and Debian's MPD."""
import time

from support.servers import Connection


def test_connections_over_max_connections_are_closed_before_the_greeting(make_server):
    server = make_server('max_connections "3"\n')
    held = [server.connect() for _ in range(3)]
    for c in held:
        assert c.command("ping") == ["OK"]
    import socket
    extra = socket.create_connection((server.host, server.port), timeout=10)
    assert extra.recv(100) == b""  # closed, no greeting
    extra.close()
    held.pop().close()
    deadline = time.monotonic() + 10
    while True:  # the server notices the close asynchronously
        fresh = Connection.connect(server.host, server.port)
        if fresh.greeting is not None:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert fresh.command("ping") == ["OK"]
    for c in held + [fresh]:
        c.close()


def test_connection_timeout_closes_a_silent_client_but_not_an_idle_one(make_server):
    server = make_server('connection_timeout "1"\n')
    with server.connect() as silent, server.connect() as idle:
        idle.send("idle message\n")  # "message": MPD raises other events by itself right after start
        assert silent.expect_closed(timeout=10) is True
        assert idle.nothing_within(1.5)  # still open, past the timeout
        assert idle.command("noidle") == ["OK"]
        assert idle.command("ping") == ["OK"]


def test_activity_keeps_a_connection_open(make_server):
    server = make_server('connection_timeout "2"\n')
    with server.connect() as c:
        for _ in range(4):
            time.sleep(0.8)
            assert c.command("ping") == ["OK"]
