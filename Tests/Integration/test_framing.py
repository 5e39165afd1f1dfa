"""MPD's line rules: bad input gets MPD's ACK or MPD's silent close, and the server then serves
the next client normally. Every test runs against Tonearm and Debian's MPD."""
import pytest


def still_serves(server):
    with server.connect() as fresh:
        assert fresh.command("ping") == ["OK"]


def test_greeting_and_ping(server):
    with server.connect() as c:
        assert c.greeting.startswith("OK MPD 0.2")
        assert c.command("ping") == ["OK"]


def test_unknown_command(server):
    with server.connect() as c:
        assert c.command("frobnicate 1 2") == ['ACK [5@0] {} unknown command "frobnicate"']
        assert c.command("ping") == ["OK"]


@pytest.mark.parametrize("line", [b"", b"PING", b" ping", b"\tping", b"1ping", b"GET / HTTP/1.1", b"\xff\xfe"])
def test_first_byte_outside_a_to_z_closes_silently(server, line):
    with server.connect() as c:
        c.send(line + b"\n")
        assert c.expect_closed() is True
    still_serves(server)


def test_line_of_8193_bytes_closes_silently(server):
    with server.connect() as c:
        c.send(b"ping " + b"x" * (8193 - 6) + b"\n")
        assert c.expect_closed() is True
    still_serves(server)


def test_line_of_8192_bytes_with_its_newline_is_read(server):
    with server.connect() as c:
        assert c.command(b"ping " + b"x" * (8192 - 6)) == ['ACK [2@0] {ping} wrong number of arguments for "ping"']


def test_unterminated_line_longer_than_the_buffer_closes(server):
    with server.connect() as c:
        c.send(b"a" * 20000)
        assert c.expect_closed() is True
    still_serves(server)


def test_trailing_blanks_and_crlf_are_ignored(server):
    with server.connect() as c:
        assert c.command(b"ping \t\r") == ["OK"]


@pytest.mark.parametrize("line, answer", [
    (b'ping "unterminated', "ACK [5@0] {} Missing closing '\"'"),
    (b'tagtypes disable "Artist"x', "ACK [5@0] {} Space expected after closing '\"'"),
    (b"ping extra", 'ACK [2@0] {ping} wrong number of arguments for "ping"'),
    (b"binarylimit", 'ACK [2@0] {binarylimit} wrong number of arguments for "binarylimit"'),
    (b"binarylimit 10", "ACK [2@0] {binarylimit} Value too small"),
    (b"binarylimit x", "ACK [2@0] {binarylimit} Integer expected: x"),
    (b"idle foo", "ACK [2@0] {idle} Unrecognized idle event: foo"),
    (b"tagtypes disable Nope", "ACK [2@0] {tagtypes} Unknown tag type"),
    (b"tagtypes bogus", "ACK [2@0] {tagtypes} Unknown sub command"),
    (b"password wrong", "ACK [3@0] {password} incorrect password"),
    (b"command_list_end", 'ACK [5@0] {} unknown command "command_list_end"'),
])
def test_bad_arguments_get_mpds_ack(server, line, answer):
    with server.connect() as c:
        assert c.command(line) == [answer]
        assert c.command("ping") == ["OK"]


def test_too_many_arguments(server):
    # MPD 0.23 takes 63 arguments, 0.24 (and Tonearm) 73: the 74th is too many in both.
    with server.connect() as c:
        assert c.command(b"ping" + b" a" * 63) == ['ACK [2@0] {ping} wrong number of arguments for "ping"']
        assert c.command(b"ping" + b" a" * 74) == ["ACK [2@0] {} Too many arguments"]
        assert c.command("ping") == ["OK"]


def test_73_arguments_reach_the_command(tonearm):
    with tonearm.connect() as c:
        assert c.command(b"ping" + b" a" * 73) == ['ACK [2@0] {ping} wrong number of arguments for "ping"']


def test_quoting_and_escapes(server):
    with server.connect() as c:
        assert c.command(b'tagtypes clear') == ["OK"]
        assert c.command(b'tagtypes enable "Artist" "Al\\bum"') == ["OK"]
        assert c.command(b"tagtypes") == ["tagtype: Artist", "tagtype: Album", "OK"]


def test_command_name_with_other_characters(server):
    with server.connect() as c:
        c.send(b"pi-ng\n")
        # A command word holds letters, digits and `_` only: MPD answers the error, then closes.
        assert c.expect_closed() == b"ACK [5@0] {} Invalid word character\n"


def test_invalid_utf8_argument_is_passed_to_the_handler(server):
    with server.connect() as c:
        assert c.command(b"tagtypes disable \xff\xfe") == ["ACK [2@0] {tagtypes} Unknown tag type"]
        assert c.command(b"password \xc3\x28") == ["ACK [3@0] {password} incorrect password"]


def test_binary_garbage_closes_and_server_survives(server):
    garbage = bytes((i * 97 + 13) % 256 for i in range(50000))
    with server.connect() as c:
        c.send(garbage)
        # The first line starts with a CR, not a-z: closed without an answer.
        assert c.expect_closed() is True
    still_serves(server)


def test_nul_byte_ends_the_argument(server):
    with server.connect() as c:
        assert c.command(b"ping\x00junk") == ["OK"]
