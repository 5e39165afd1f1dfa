"""Zeroconf: Tonearm announces `_mpd._tcp` through a real avahi-daemon, never on the real network.

Each test gets a network namespace of its own with a private D-Bus system bus and avahi-daemon
(Tests/support/zeroconf.py) and checks with `avahi-browse` what Tonearm, running inside it,
announces. It talks to Tonearm over TCP inside the namespace. A finalizer removes the namespace
and every process in it, whatever happened. Needs root (CI runs as root).
"""
import os
import shutil
import socket

import pytest

from support.servers import Connection
from support.zeroconf import TOOLS, Namespace, poll


@pytest.fixture
def netns(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root: creates a network namespace, a D-Bus bus and an avahi-daemon")
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if missing:
        pytest.fail(f"missing {', '.join(missing)}: make test-deps installs them")
    namespace = Namespace(tmp_path / "netns")
    try:
        namespace.create()
        yield namespace
    finally:
        namespace.destroy()


def host_name() -> str:
    return socket.gethostname()


def test_announces_the_real_port_and_again_after_a_daemon_restart(netns):
    netns.start_bus()
    netns.start_avahi()
    server = netns.tonearm('zeroconf_name "Tonearm %h"\n')
    name = f"Tonearm {host_name()}"

    found = netns.wait_for_service(name)
    assert (found.type, found.port, found.interface, found.protocol) == ("_mpd._tcp", server.port, "veth0", "IPv4")
    assert found.address == "10.213.7.1"
    poll("the announcement in the log", lambda: server.log_count(f"announced '{name}' (_mpd._tcp, port {server.port})"))

    netns.kill_avahi()
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    netns.start_avahi()
    assert netns.wait_for_service(name).port == server.port
    poll("the second announcement", lambda: server.log_count(f"announced '{name}'") == 2)
    assert server.log_count("Avahi is not available") == 1

    # SIGTERM withdraws it and exits cleanly.
    assert server.stop() == 0
    poll("the service to go", lambda: all(a.name != name for a in netns.browse()))


def test_announced_again_after_the_system_bus_restarts(netns):
    netns.start_bus()
    netns.start_avahi()
    server = netns.tonearm('zeroconf_name "Bus %h"\n')
    name = f"Bus {host_name()}"
    netns.wait_for_service(name)

    # Both go; the client must make a new connection to a new bus, not wait on the old one.
    netns.kill_avahi()
    netns.stop_bus()
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    netns.start_bus()
    netns.start_avahi()
    assert netns.wait_for_service(name).port == server.port
    assert server.log_count("Avahi is not available") == 1


def test_announced_again_under_the_daemons_new_host_name(netns):
    netns.start_bus()
    netns.start_avahi()
    server = netns.tonearm('zeroconf_name "Renamed"\n')
    assert netns.wait_for_service("Renamed").host == "tonearm-a.local"
    # The daemon re-registers (AVAHI_CLIENT_S_REGISTERING): the service is withdrawn and added
    # again once it runs, so that it points at the new host name.
    netns.run("avahi-set-host-name", "tonearm-renamed")
    poll("the service on the new host name",
         lambda: any(a.name == "Renamed" and a.host == "tonearm-renamed.local" for a in netns.browse()))
    poll("the second announcement", lambda: server.log_count("announced 'Renamed'") == 2)


def test_a_taken_name_gets_avahis_alternative(netns):
    netns.start_bus()
    netns.start_avahi()
    other = netns.popen("avahi-publish", "--service", "Living room", "_mpd._tcp", "6600")
    try:
        assert netns.wait_for_service("Living room").port == 6600
        first = netns.tonearm('zeroconf_name "Living room"\n')
        assert netns.wait_for_service("Living room #2").port == first.port
        assert ("the name 'Living room' is taken by another service on this host, renaming the service to"
                " 'Living room #2'") in first.log_text()
        # A second Tonearm of the same name steps over both.
        second = netns.tonearm('zeroconf_name "Living room"\n')
        assert netns.wait_for_service("Living room #3").port == second.port
        assert [a.port for a in netns.browse() if a.name == "Living room"] == [6600]
    finally:
        other.terminate()
        other.wait()


def test_a_name_taken_by_another_host_gets_avahis_alternative(netns, tmp_path):
    # Two hosts on one link: the peer namespace holds the other end of the veth pair, with a
    # bus and an avahi-daemon of its own, and announces the name first.
    peer = netns.split_off(tmp_path / "peer")
    for host in (netns, peer):
        host.start_bus()
        host.start_avahi()
    other = peer.popen("avahi-publish", "--service", "Kitchen", "_mpd._tcp", "6600")
    try:
        seen = netns.wait_for_service("Kitchen")
        assert (seen.address, seen.port) == ("10.213.7.2", 6600)
        server = netns.tonearm('zeroconf_name "Kitchen"\n')
        ours = netns.wait_for_service("Kitchen #2")
        assert (ours.address, ours.port) == ("10.213.7.1", server.port)
        assert "the name 'Kitchen' is taken on the network, renaming the service to 'Kitchen #2'" in server.log_text()
        # The other host sees it under that name too.
        assert peer.wait_for_service("Kitchen #2").port == server.port
    finally:
        other.terminate()
        other.wait()


def test_without_avahi_it_serves_logs_once_and_announces_when_avahi_comes(netns):
    # No D-Bus at all: every attempt fails at once and is retried in the background.
    server = netns.tonearm('zeroconf_name "Quiet %h"\n', args=["--verbose"])
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
        status = c.command("status")
        assert status[-1] == "OK" and "state: stop" in status
    poll("two retries", lambda: server.log_count("cannot connect to Avahi") >= 2)
    assert server.log_count("Avahi is not available") == 1

    # D-Bus, still no daemon: the client waits for it on the bus, nothing more is logged.
    netns.start_bus()
    netns.start_avahi()
    assert netns.wait_for_service(f"Quiet {host_name()}").port == server.port
    assert server.log_count("Avahi is not available") == 1
    assert server.log_count("Avahi is available again") == 1
    # The `kill` command takes the same way out as SIGTERM: withdrawn, exit status 0.
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
        c.send("kill\n")
        assert c.expect_closed() is True
    assert server.wait_exit() == 0
    poll("the service to go", lambda: all(a.port != server.port for a in netns.browse()))


def test_an_invalid_name_is_logged_and_the_server_serves_unannounced(netns):
    netns.start_bus()
    netns.start_avahi()
    server = netns.tonearm(f'zeroconf_name "{"x" * 64}"\n')
    with server.connect() as c:
        assert c.command("ping") == ["OK"]
    assert f'invalid zeroconf_name "{"x" * 64}"' in server.log_text()
    assert "announced '" not in server.log_text() and "Avahi" not in server.log_text()


def test_a_server_on_a_unix_socket_alone_is_not_announced(netns):
    netns.start_bus()
    netns.start_avahi()
    server = netns.tonearm('zeroconf_name "Local only"\n', unix_socket_only=True)
    poll("the reason in the log", lambda: server.log_count("Zeroconf: no TCP listener, nothing to announce"))
    with Connection.connect_unix(server.unix_socket) as c:
        assert c.command("ping") == ["OK"]
    assert "Avahi" not in server.log_text()
    assert server.stop() == 0
