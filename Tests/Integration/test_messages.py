"""Client to client (issue 6): subscribe, unsubscribe, channels, sendmessage, readmessages, with
two or three connections and idle, against Tonearm and Debian's MPD 0.23: MPD's limits (16
channels, 64 queued messages), its channel-name rule and its ACKs."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.servers import MPDServer, TonearmServer  # noqa: E402


def test_a_message_reaches_every_subscriber_and_wakes_its_idle(server):
    with server.connect() as alice, server.connect() as bob, server.connect() as carol:
        bob.send("idle message\n")
        assert alice.command("subscribe news") == ["OK"]
        assert carol.command("subscribe news") == ["OK"]
        assert alice.command("channels") == ["channel: news", "OK"]
        assert bob.nothing_within(0.2)  # not subscribed: no message for bob
        assert bob.command("noidle") == ["OK"]
        carol.send("idle message\n")
        assert bob.command('sendmessage news "hello there"') == ["OK"]
        assert carol.read_response(timeout=10) == ["changed: message", "OK"]
        assert carol.command("readmessages") == ["channel: news", "message: hello there", "OK"]
        assert carol.command("readmessages") == ["OK"]
        assert alice.command("idle message") == ["changed: message", "OK"]
        assert alice.command("readmessages") == ["channel: news", "message: hello there", "OK"]
        assert bob.command("readmessages") == ["OK"]


def test_message_idle_fires_once_until_the_queue_is_read(server):
    with server.connect() as sender, server.connect() as receiver:
        assert receiver.command("subscribe c") == ["OK"]
        assert sender.command("sendmessage c one") == ["OK"]
        assert receiver.command("idle message") == ["changed: message", "OK"]
        receiver.send("idle message\n")
        assert sender.command("sendmessage c two") == ["OK"]  # the queue was not empty: no event
        assert receiver.nothing_within(0.3)
        assert receiver.command("noidle") == ["OK"]
        assert receiver.command("readmessages") == ["channel: c", "message: one", "channel: c", "message: two", "OK"]
        receiver.send("idle message\n")
        assert sender.command("sendmessage c three") == ["OK"]
        assert receiver.read_response(timeout=10) == ["changed: message", "OK"]


def test_subscription_idle_for_every_client_but_not_when_one_leaves(server):
    with server.connect() as watcher, server.connect() as c:
        watcher.send("idle subscription\n")
        assert c.command("subscribe x") == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: subscription", "OK"]
        assert c.command("idle subscription") == ["changed: subscription", "OK"]  # its own too
        watcher.send("idle subscription\n")
        assert c.command("unsubscribe x") == ["OK"]
        assert watcher.read_response(timeout=10) == ["changed: subscription", "OK"]
        leaving = server.connect()
        assert leaving.command("subscribe gone") == ["OK"]
        assert watcher.command("idle subscription") == ["changed: subscription", "OK"]
        assert "channel: gone" in watcher.command("channels")
        watcher.send("idle subscription\n")
        leaving.send("close\n")
        assert leaving.expect_closed() is True
        assert watcher.nothing_within(0.3)
        assert watcher.command("noidle") == ["OK"]
        assert watcher.command("channels") == ["OK"]
        assert c.command("sendmessage gone hi") == ["ACK [50@0] {sendmessage} nobody is subscribed to this channel"]


@pytest.mark.parametrize("name", ["", "with space", "ä", "a/b", "a,b", "a\\\"b"])
def test_invalid_channel_names(server, name):
    with server.connect() as c:
        assert c.command(f'subscribe "{name}"') == ["ACK [2@0] {subscribe} invalid channel name"]
        assert c.command(f'sendmessage "{name}" text') == ["ACK [2@0] {sendmessage} invalid channel name"]
        assert c.command(f'unsubscribe "{name}"') == ["ACK [50@0] {unsubscribe} not subscribed to this channel"]


def test_valid_channel_names(server):
    with server.connect() as c:
        for name in ["a", "Z", "0", "_", "-", ".", ":", "mympd:partition.default_1-x"]:
            assert c.command(f"subscribe {name}") == ["OK"], name
        assert c.command("channels") == ["channel: -", "channel: .", "channel: 0", "channel: :", "channel: Z",
                                         "channel: _", "channel: a", "channel: mympd:partition.default_1-x", "OK"]


def test_subscription_and_message_errors(server):
    with server.connect() as c:
        assert c.command("subscribe") == ['ACK [2@0] {subscribe} wrong number of arguments for "subscribe"']
        assert c.command("subscribe a b") == ['ACK [2@0] {subscribe} wrong number of arguments for "subscribe"']
        assert c.command("unsubscribe") == ['ACK [2@0] {unsubscribe} wrong number of arguments for "unsubscribe"']
        assert c.command("sendmessage a") == ['ACK [2@0] {sendmessage} wrong number of arguments for "sendmessage"']
        assert c.command("channels x") == ['ACK [2@0] {channels} wrong number of arguments for "channels"']
        assert c.command("readmessages x") == ['ACK [2@0] {readmessages} wrong number of arguments for "readmessages"']
        assert c.command("subscribe a") == ["OK"]
        assert c.command("subscribe a") == ["ACK [56@0] {subscribe} already subscribed to this channel"]
        assert c.command("unsubscribe b") == ["ACK [50@0] {unsubscribe} not subscribed to this channel"]
        assert c.command("sendmessage b text") == ["ACK [50@0] {sendmessage} nobody is subscribed to this channel"]
        assert c.command("unsubscribe a") == ["OK"]
        assert c.command("sendmessage a text") == ["ACK [50@0] {sendmessage} nobody is subscribed to this channel"]


def test_sixteen_subscriptions_at_most(server):
    with server.connect() as c:
        for index in range(16):
            assert c.command(f"subscribe c{index}") == ["OK"]
        assert c.command("subscribe c16") == ["ACK [56@0] {subscribe} subscription list is full"]
        # the limit comes before the repeat check
        assert c.command("subscribe c0") == ["ACK [56@0] {subscribe} subscription list is full"]
        assert c.command("unsubscribe c15") == ["OK"]
        assert c.command("subscribe c0") == ["ACK [56@0] {subscribe} already subscribed to this channel"]
        assert c.command("subscribe c16") == ["OK"]
        assert len(c.command("channels")) == 17


def test_sixty_four_messages_at_most_per_client(server):
    with server.connect() as full, server.connect() as sender:
        assert full.command("subscribe c") == ["OK"]
        for index in range(64):
            assert sender.command(f"sendmessage c m{index}") == ["OK"]
        # the only subscriber has no room: as if nobody were subscribed
        assert sender.command("sendmessage c dropped") == ["ACK [50@0] {sendmessage} nobody is subscribed to this channel"]
        with server.connect() as other:
            assert other.command("subscribe c") == ["OK"]
            assert sender.command("sendmessage c taken") == ["OK"]
            assert other.command("readmessages") == ["channel: c", "message: taken", "OK"]
        messages = full.command("readmessages")
        assert len(messages) == 2 * 64 + 1
        assert messages[1] == "message: m0" and messages[-2] == "message: m63"


def test_message_text_is_kept_as_sent(server):
    with server.connect() as c:
        assert c.command("subscribe t") == ["OK"]
        assert c.command('sendmessage t "  spaced  \\"quoted\\" ünïcode "') == ["OK"]
        assert c.command('sendmessage t ""') == ["OK"]
        assert c.command("readmessages") == ["channel: t", 'message:   spaced  "quoted" ünïcode ', "channel: t",
                                             "message: ", "OK"]


@pytest.mark.parametrize("kind", ["tonearm", "mpd"])
def test_sendmessage_needs_control_and_the_others_read(kind, tmp_path):
    cls = TonearmServer if kind == "tonearm" else MPDServer
    config = 'password "pw@read,add,control"\ndefault_permissions "read"\n'
    with cls(tmp_path / kind, extra_config=config) as server, server.connect() as c:
        assert c.command("subscribe a") == ["OK"]
        assert c.command("channels") == ["channel: a", "OK"]
        assert c.command("readmessages") == ["OK"]
        assert c.command("sendmessage a x") == ['ACK [4@0] {sendmessage} you don\'t have permission for "sendmessage"']
        assert c.command("password pw") == ["OK"]
        assert c.command("sendmessage a x") == ["OK"]
