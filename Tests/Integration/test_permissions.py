"""password, default_permissions, local_permissions and host_permissions, against Tonearm and
Debian's MPD."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import tonearm_only  # noqa: E402
from support.servers import Connection  # noqa: E402


def test_password_grants_exactly_its_permissions(make_server):
    server = make_server('password "secret@read"\npassword "boss@read,add,control,admin"\n')
    with server.connect() as c:
        assert c.command("idle") == ['ACK [4@0] {idle} you don\'t have permission for "idle"']
        commands = c.command("commands")
        assert "command: ping" in commands and "command: idle" not in commands
        assert "command: idle" in c.command("notcommands")
        assert c.command("password wrong") == ["ACK [3@0] {password} incorrect password"]
        assert c.command("password secret") == ["OK"]
        c.send("idle message\n")  # "message": MPD raises other events by itself right after start
        assert c.nothing_within(0.2)
        assert c.command("noidle") == ["OK"]
        assert c.command("kill") == ['ACK [4@0] {kill} you don\'t have permission for "kill"']
        assert c.command("password boss") == ["OK"]
        assert "command: kill" in c.command("commands")


def test_default_and_local_permissions(make_server, tmp_path):
    socket_path = tmp_path / "s.sock"
    server = make_server(f'bind_to_address "{socket_path}"\npassword "x@admin"\n'
                         'default_permissions "read"\nlocal_permissions "read,admin"\n')
    with server.connect() as tcp:
        assert "command: idle" in tcp.command("commands")
        assert tcp.command("kill") == ['ACK [4@0] {kill} you don\'t have permission for "kill"']
    with Connection.connect_unix(socket_path) as local:
        assert "command: kill" in local.command("commands")
        assert local.command("config")[-1] == "OK"


def test_host_permissions_match_the_client_address(make_server):
    # MPD matches the address exactly (it resolves each line's host and compares strings).
    server = make_server('host_permissions "127.0.0.1 read"\nhost_permissions "10.1.2.3 read,admin"\n')
    with server.connect() as c:
        commands = c.command("commands")
        assert "command: idle" in commands and "command: kill" not in commands
    # A host_permissions line takes the default away from every other address.
    other = make_server('host_permissions "10.0.0.1 read,admin"\n')
    with other.connect() as c:
        assert c.command("idle") == ['ACK [4@0] {idle} you don\'t have permission for "idle"']


def test_host_permissions_match_a_network(make_server):
    tonearm_only(make_server, "ADDRESS/PREFIX networks are Tonearm's: MPD (0.23.12 and 0.24.13 alike) reads "
                              "the word as a host name and will not start on 127.0.0.0/8 (\"Garbage after host "
                              "name\")", beyond_mpd=True)
    server = make_server('host_permissions "127.0.0.0/8 read"\nhost_permissions "10.0.0.0/8 read,admin"\n')
    with server.connect() as c:
        commands = c.command("commands")
        assert "command: idle" in commands and "command: kill" not in commands
