"""A network namespace with a private D-Bus system bus and avahi-daemon, for Zeroconf tests.

`Namespace` creates a network namespace (`ip netns add`, a veth pair with 10.213.7.1/24 and
.2/24, loopback up) and, inside it, a mount namespace with a tmpfs over /run: its D-Bus system
bus (a configuration of its own, no service activation) and its avahi-daemon (`--no-drop-root`,
IPv4 on veth0 only) use /run/dbus and /run/avahi-daemon there, so the host's /run is never
touched. Every process (the bus, the daemon, `avahi-browse`, `avahi-publish`, Tonearm) joins
both namespaces through `nsenter`; multicast DNS stays on the veth pair. `destroy()` kills every
process left in the namespace and deletes it; the mount namespace and its tmpfs go with the last
process. Root only.
"""
import ctypes
import os
import re
import signal
import socket
import subprocess
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

from support import polling
from support.servers import Connection, TonearmServer

TIMEOUT = 60
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <pidfile>/run/dbus/pid</pidfile>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""

AVAHI_CONFIG = """[server]
host-name={host_name}
use-ipv4=yes
use-ipv6=no
allow-interfaces={interface}
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
"""

TOOLS = ["ip", "nsenter", "dbus-daemon", "avahi-daemon", "avahi-browse", "avahi-publish"]


def poll(what: str, check, timeout: float = TIMEOUT, interval: float = 0.2):
    """``support.polling.poll`` with this module's timeout and a slower pace (daemons)."""
    return polling.poll(what, check, timeout, interval)


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True)


def running(pid: int) -> bool:
    """Whether `pid` is a live process; a zombie (which a container's init may never reap) is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def unescape(label: str) -> str:
    """avahi-browse -p writes `\\DDD` (decimal) for special bytes and `\\X` for a literal X."""
    raw = re.sub(rb"\\(\d{3})", lambda m: bytes([int(m.group(1))]), label.encode())
    return re.sub(rb"\\(.)", rb"\1", raw).decode("utf-8", "replace")


@dataclass
class Announcement:
    """One resolved line (`=`) of `avahi-browse -rpt`."""
    interface: str
    protocol: str
    name: str
    type: str
    host: str
    address: str
    port: int


class Namespace:
    """A network namespace with a private /run, and the daemons started inside it."""

    def __init__(self, workdir: Path, interface: str = "veth0", host_name: str = "tonearm-a"):
        self.workdir = workdir
        self.name = f"tonearm-zc-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.servers: list[TonearmServer] = []
        self.peers: list[Namespace] = []
        self.holder = None
        self.bus_pid = None
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "bus.conf").write_text(BUS_CONFIG)
        (workdir / "avahi-daemon.conf").write_text(AVAHI_CONFIG.format(interface=interface, host_name=host_name))

    def create(self):
        """The namespace with both ends of the veth pair (veth0 10.213.7.1, veth1 10.213.7.2)."""
        _ip("netns", "add", self.name)
        _ip("-n", self.name, "link", "add", "veth0", "type", "veth", "peer", "name", "veth1")
        _ip("-n", self.name, "addr", "add", "10.213.7.1/24", "dev", "veth0")
        _ip("-n", self.name, "addr", "add", "10.213.7.2/24", "dev", "veth1")
        for link in ("lo", "veth0", "veth1"):
            _ip("-n", self.name, "link", "set", link, "up")
        self._hold()

    def split_off(self, workdir: Path) -> "Namespace":
        """A second namespace that takes veth1: two hosts on one link, each with its own bus
        and avahi-daemon (host name `tonearm-b`). Destroyed with this one."""
        peer = Namespace(workdir, interface="veth1", host_name="tonearm-b")
        self.peers.append(peer)
        _ip("netns", "add", peer.name)
        _ip("-n", self.name, "link", "set", "veth1", "netns", peer.name)
        _ip("-n", peer.name, "addr", "add", "10.213.7.2/24", "dev", "veth1")
        for link in ("lo", "veth1"):
            _ip("-n", peer.name, "link", "set", link, "up")
        peer._hold()
        return peer

    def _hold(self):
        # `ip netns exec` gives the holder a mount namespace of its own (slave of the host's),
        # so the tmpfs over /run exists only there; everything else joins it by the holder's pid.
        self.holder = subprocess.Popen(
            ["ip", "netns", "exec", self.name, "sh", "-c",
             "mount -t tmpfs tonearm-zeroconf /run && mkdir /run/dbus /run/avahi-daemon"
             " && echo ready && exec sleep infinity"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        ready = self.holder.stdout.readline()
        if ready.strip() != b"ready":
            raise RuntimeError(f"namespace holder failed: {self.holder.stderr.read().decode()}")

    def command(self, *cmd) -> list[str]:
        return ["nsenter", f"--target={self.holder.pid}", "--mount", "--net", "--", *cmd]

    def run(self, *cmd, check=True, timeout=TIMEOUT) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(*cmd), capture_output=True, text=True, check=check,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    def popen(self, *cmd) -> subprocess.Popen:
        return subprocess.Popen(self.command(*cmd), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    # D-Bus and avahi-daemon

    def start_bus(self):
        out = self.run("dbus-daemon", f"--config-file={self.workdir / 'bus.conf'}", "--fork", "--print-pid")
        self.bus_pid = int(out.stdout.split()[0])

    def stop_bus(self):
        os.kill(self.bus_pid, signal.SIGTERM)
        poll("dbus-daemon to exit", lambda: not running(self.bus_pid))

    def start_avahi(self):
        self.run("avahi-daemon", "--daemonize", "--no-drop-root", "--no-chroot",
                 "--file", str(self.workdir / "avahi-daemon.conf"))
        poll("avahi-daemon to run", lambda: self.run("avahi-daemon", "--check", check=False).returncode == 0)

    def kill_avahi(self):
        self.run("avahi-daemon", "--kill")
        poll("avahi-daemon to exit", lambda: self.run("avahi-daemon", "--check", check=False).returncode != 0)

    # Browsing

    def browse(self) -> list[Announcement]:
        """The resolved `_mpd._tcp` services; empty while the daemon is not there."""
        out = self.run("avahi-browse", "--resolve", "--parsable", "--terminate", "--no-db-lookup", "_mpd._tcp", check=False)
        found = []
        for line in out.stdout.splitlines():
            fields = line.split(";")
            if fields[0] == "=" and len(fields) >= 9:
                found.append(Announcement(fields[1], fields[2], unescape(fields[3]), fields[4], fields[6],
                                          fields[7], int(fields[8])))
        return found

    def wait_for_service(self, name: str) -> Announcement:
        return poll(f"'{name}' in avahi-browse",
                    lambda: next((a for a in self.browse() if a.name == name), None))

    # Tonearm

    def tonearm(self, extra_config: str, args=(), unix_socket_only=False) -> "NamespacedTonearm":
        """A started Tonearm; on 127.0.0.1 with `--port 0` or, with `unix_socket_only`, on the
        Unix socket `server.unix_socket` alone (then without waiting for it to listen)."""
        workdir = self.workdir / f"tonearm{len(self.servers)}"
        options = {}
        if unix_socket_only:
            options["bind"] = f'bind_to_address "{workdir}/socket"\n'
        server = NamespacedTonearm(self, workdir, extra_config=extra_config, args=args, **options)
        self.servers.append(server)
        if not unix_socket_only:
            return server.start()
        server.unix_socket = workdir / "socket"
        server.write_config()
        server._launch([server.binary, "--config", str(server.config_path), *server.args])
        return server

    def destroy(self):
        try:
            for peer in self.peers:
                peer.destroy()
        finally:
            self._destroy_own()

    def _destroy_own(self):
        for server in self.servers:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()
        pids = subprocess.run(["ip", "netns", "pids", self.name], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.holder:
            self.holder.kill()
            self.holder.wait()
        poll("the namespace's processes to exit", lambda: not subprocess.run(
            ["ip", "netns", "pids", self.name], capture_output=True, text=True).stdout.split(), timeout=20)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)


class NamespacedTonearm(TonearmServer):
    """Tonearm inside the namespace, with Zeroconf on (the other tests turn it off)."""

    def __init__(self, namespace: Namespace, workdir: Path, **options):
        super().__init__(workdir, **options)
        self.namespace = namespace

    def common_config(self) -> str:
        return super().common_config().replace('zeroconf_enabled "no"\n', "")

    def _launch(self, command, **options):
        super()._launch(self.namespace.command(*command), **options)

    def connect(self) -> Connection:
        """A TCP connection to the server's loopback port inside the namespace."""
        opened = {}

        def inside():
            try:
                with open(f"/run/netns/{self.namespace.name}") as ns:
                    if _libc.setns(ns.fileno(), CLONE_NEWNET) != 0:
                        raise OSError(ctypes.get_errno(), "setns")
                opened["socket"] = socket.create_connection((self.host, self.port), timeout=10)
            except Exception as error:  # handed to the caller's thread
                opened["error"] = error

        # setns changes the calling thread's namespace only: a thread of its own, thrown away.
        thread = threading.Thread(target=inside)
        thread.start()
        thread.join()
        if "error" in opened:
            raise opened["error"]
        return Connection(opened["socket"])

    def log_count(self, text: str) -> int:
        return self.log_text().count(text)
