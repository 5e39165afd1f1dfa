"""Lines a client sends without waiting for the answers: every one is answered, in order, and a
client that sends far more than it reads is held up by backpressure, neither dropped nor answered
out of order, while other clients are served.

The session's bridge to its connection (`SessionBridge`) holds back the socket's reads while
inputs wait for the session, holds back the flush of an answer while more input is queued, and
makes the session wait while the client's unread output is over `max_output_buffer_size`; these
tests fail if an answer is left unflushed, lost or reordered there."""
import socket
import threading
import time


def test_lines_sent_together_are_answered_in_order(server):
    with server.connect() as c:
        c.send(b"ping\nfrobnicate\nstatus\ncommand_list_ok_begin\nping\ncommand_list_end\nping\n")
        assert c.read_response() == ["OK"]
        assert c.read_response() == ['ACK [5@0] {} unknown command "frobnicate"']
        status = c.read_response()
        assert status[-1] == "OK" and any(line.startswith("state: ") for line in status)
        assert c.read_response() == ["list_OK", "OK"]
        assert c.read_response() == ["OK"]


def test_an_answer_goes_out_when_the_lines_after_it_need_none(server):
    # The answer to `ping` is written while `command_list_begin` still waits, which answers
    # nothing: the answer must still go out before the server waits for the rest of the list.
    with server.connect() as c:
        c.send(b"ping\ncommand_list_begin\n")
        assert c.read_response() == ["OK"]
        c.send(b"ping\ncommand_list_end\n")
        assert c.read_response() == ["OK"]


def test_lines_behind_a_library_read_are_answered_after_it(db_server):
    # `lsinfo` reads the library in the session's task, while `ping` is answered by the
    # connection's handler as its line arrives: a `ping` that arrives while an `lsinfo` is
    # being read must still wait its turn. Sent in one go, the lines arrive in reads that end
    # anywhere, some of them while a listing is under way.
    rounds = 400
    with db_server.connect() as c:
        listing = c.command("lsinfo")
        assert len(listing) > 1 and listing[-1] == "OK"
        sender = threading.Thread(target=c.send, args=(b"lsinfo\nping\n" * rounds,))
        sender.start()
        answers = [c.read_response() for _ in range(2 * rounds)]
        sender.join()
        assert answers == [listing, ["OK"]] * rounds


def test_thousands_of_lines_sent_before_any_answer_is_read_are_all_answered(server):
    count = 20000
    with server.connect() as c:
        sender = threading.Thread(target=c.send, args=(b"ping\n" * count,))
        sender.start()
        # The client reads late; nothing here is timed.
        time.sleep(0.3)
        answers = [c.read_line() for _ in range(count)]
        sender.join()
        assert answers == ["OK"] * count
        assert c.command("ping") == ["OK"]


def test_a_client_that_does_not_read_is_held_up_alone_and_answered_in_full(make_tonearm):
    # 64 KiB of unread output at most: 3,000 `commands` answers are about 6 MB.
    server = make_tonearm('max_output_buffer_size "64"\n')
    count = 3000
    with server.connect() as slow, server.connect() as other:
        sender = threading.Thread(target=slow.send, args=(b"commands\n" * count,))
        sender.start()
        time.sleep(0.3)
        for _ in range(20):
            assert other.command("ping") == ["OK"]
        answered = 0
        while answered < count:
            line = slow.read_line()
            assert line is not None, f"closed after {answered} answers"
            if line == "OK":
                answered += 1
            else:
                assert line.startswith("command: "), line
        sender.join()
        assert slow.command("ping") == ["OK"]


def test_lines_sent_before_the_client_shuts_down_its_side_are_answered(server):
    # `echo status | nc -N host 6600`: the lines and the end of file arrive before the server
    # has even sent its greeting; the connection closes only after the answers.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"ping\nstatus\n")
        s.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := s.recv(65536):
            received += chunk
    lines = received.decode().splitlines()
    assert lines[0].startswith("OK MPD ")
    assert lines[1] == "OK"
    assert lines[-1] == "OK" and any(line.startswith("state: ") for line in lines[2:])
