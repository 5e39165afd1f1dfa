"""Command lists and idle, against Tonearm and Debian's MPD."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only  # noqa: E402


def test_command_list_runs_every_command(server):
    with server.connect() as c:
        c.send("command_list_begin\nping\ntagtypes clear\nping\ncommand_list_end\n")
        assert c.read_response() == ["OK"]


def test_command_list_ok_marks_each_command(server):
    with server.connect() as c:
        c.send("command_list_ok_begin\nping\nping\ncommand_list_end\n")
        assert c.read_response() == ["list_OK", "list_OK", "OK"]


def test_an_error_stops_the_list_and_names_its_index(server):
    with server.connect() as c:
        c.send("command_list_ok_begin\nping\nping\nfoo\ntagtypes clear\ncommand_list_end\n")
        assert c.read_response() == ["list_OK", "list_OK", 'ACK [5@2] {} unknown command "foo"']
        # tagtypes clear after the error did not run
        assert c.command("tagtypes")[0] == "tagtype: Artist"


def test_empty_list(server):
    with server.connect() as c:
        assert c.command("command_list_begin\ncommand_list_end") == ["OK"]


def test_nested_begin_is_an_error_inside_the_list(server):
    with server.connect() as c:
        c.send("command_list_begin\ncommand_list_begin\ncommand_list_end\n")
        assert c.read_response() == ['ACK [5@0] {} unknown command "command_list_begin"']


def test_idle_inside_a_list_closes(server):
    tonearm_only(server, "0.23.17 (and so 0.24) closes on an exact idle or noidle inside a command list "
                         "(NEWS: explicitly disallow \"idle\" and \"noidle\" in command lists; "
                         "Client::ProcessLine's IsAsyncCommmand); 0.23.12 collects idle and waits in it "
                         "when the list runs, and ignores noidle there as a stray one")
    with server.connect() as c:
        c.send("command_list_begin\nidle\n")
        assert c.expect_closed() is True
    with server.connect() as c:
        c.send("command_list_begin\nnoidle\n")
        assert c.expect_closed() is True


def test_overflowing_command_list_closes(make_server):
    server = make_server('max_command_list_size "1"\n')
    with server.connect() as c:
        c.send(b"command_list_begin\n" + b"ping\n" * 100)  # 500 bytes: fits in 1 KiB
        c.send(b"command_list_end\n")
        assert c.read_response() == ["OK"]
        c.send(b"command_list_begin\n" + b"ping\n" * 300)  # 1500 bytes: too much
        assert c.expect_closed() is True
    with server.connect() as fresh:
        assert fresh.command("ping") == ["OK"]


def test_idle_then_noidle(server):
    # "message": MPD raises other events by itself right after start.
    with server.connect() as c:
        c.send("idle message\n")
        assert c.nothing_within(0.3)
        assert c.command("noidle") == ["OK"]
        assert c.command("ping") == ["OK"]


def test_idle_with_subsystems_and_unknown_name(server):
    with server.connect() as c:
        c.send("idle message subscription\n")
        assert c.nothing_within(0.2)
        assert c.command("noidle") == ["OK"]
        assert c.command("idle player bogus") == ["ACK [2@0] {idle} Unrecognized idle event: bogus"]


def test_stray_noidle_gets_no_answer(server):
    with server.connect() as c:
        c.send("noidle\n")
        assert c.nothing_within(0.3)
        assert c.command("ping") == ["OK"]


def test_command_while_idle_closes(server):
    with server.connect() as c:
        c.send("idle message\n")
        assert c.nothing_within(0.2)
        c.send("ping\n")
        assert c.expect_closed() is True
    with server.connect() as fresh:
        assert fresh.command("ping") == ["OK"]
