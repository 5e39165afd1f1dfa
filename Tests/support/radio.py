"""Remote streams for the radio tests (issue 18): a real Icecast station and a small HTTP server
with plain files, remote playlists, an HLS station and faults, all on 127.0.0.1.

Why real servers: what a music server does with a stream depends on what the station sends —
Icecast's `icy-name` header, the `icy-metaint` blocks with `StreamTitle`, a live MP3 that never
ends, a source that goes away — and on how a plain web server behaves when it fails. Both are
made here on loopback, so the same test runs against Tonearm and Debian's MPD and compares what
each shows. Nothing here sends a byte to any other address.

- `Icecast`: Debian's `icecast2` on a free port with its own configuration in a temporary folder,
  fed by `ffmpeg -re` (a 440 Hz sine as 128 kb/s MP3, 44.1 kHz stereo, station name "Test FM").
  `set_title` changes the live title through Icecast's admin metadata endpoint, as a radio's
  playout system does; `stop_source` kills the source client mid-stream.
- `FixtureHTTPServer`: a threaded `http.server` serving files generated with the `ffmpeg` CLI
  (FLAC, WAV, MP3, an HLS playlist and its segments), remote `.m3u`/`.pls`/`.xspf` playlists of
  those files, and fault endpoints (404, a redirect loop, an endless and a huge playlist, a
  truncated file, and a listener that accepts and never answers).
- `refused_port`: a port on 127.0.0.1 where nothing listens, for "connection refused".
"""
import base64
import http.server
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from support import audio
from support.processes import terminate
from support.servers import free_port

STATION_NAME = "Test FM"
SOURCE_PASSWORD = "source-secret"
ADMIN_PASSWORD = "admin-secret"
MOUNT = "/live.mp3"


def refused_port() -> int:
    """A port on 127.0.0.1 that refuses connections: bound once (so the kernel gave it to no one
    else at that moment), then closed, so nothing listens there."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _local_only(url: str) -> str:
    """Every URL the helpers open must point at loopback: a typo must not reach the internet."""
    host = urllib.parse.urlsplit(url).hostname
    assert host == "127.0.0.1", f"refusing to open {url}: the tests talk to 127.0.0.1 only"
    return url


class Icecast:
    """Debian's icecast2 on 127.0.0.1 with a private configuration, and an ffmpeg source.

    Icecast refuses to run as root unless it may change to another user, so as root the
    configuration has it become `nobody`, and its log folder (and the folders above it) must be
    reachable by that user: it lives in its own `mkdtemp` folder, not under pytest's private
    tmp_path. As another user no change of owner is configured (only root may).

    Use it as a context manager: on entry the server listens and the source at `MOUNT` is live
    (`wait_until_live`); on exit both are stopped and the folder removed."""

    def __init__(self, sources: int = 4):
        self.port = free_port()
        self.max_sources = sources
        self.folder: Path | None = None
        self.process: subprocess.Popen | None = None
        self.sources: dict[str, subprocess.Popen] = {}

    # The server

    def _config(self) -> str:
        security = ("<security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group>"
                    "</changeowner></security>") if os.geteuid() == 0 else "<security><chroot>0</chroot></security>"
        return (
            "<icecast>\n"
            f" <limits><sources>{self.max_sources}</sources><clients>50</clients></limits>\n"
            f" <authentication><source-password>{SOURCE_PASSWORD}</source-password>"
            f"<admin-user>admin</admin-user><admin-password>{ADMIN_PASSWORD}</admin-password></authentication>\n"
            " <hostname>127.0.0.1</hostname>\n"
            f" <listen-socket><port>{self.port}</port><bind-address>127.0.0.1</bind-address></listen-socket>\n"
            " <paths><basedir>/usr/share/icecast2</basedir>"
            f"<logdir>{self.folder / 'log'}</logdir>"
            "<webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>\n"
            " <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel>"
            "</logging>\n"
            f" {security}\n"
            "</icecast>\n")

    def start(self):
        if not shutil.which("icecast2"):
            raise RuntimeError("icecast2 is missing: apt-get install icecast2 (make test-deps)")
        self.folder = Path(tempfile.mkdtemp(prefix="tonearm-icecast-"))
        self.folder.chmod(0o755)
        (self.folder / "log").mkdir()
        (self.folder / "log").chmod(0o777)
        config = self.folder / "icecast.xml"
        config.write_text(self._config())
        config.chmod(0o644)
        self.process = subprocess.Popen(["icecast2", "-c", str(config)], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"icecast2 exited with {self.process.returncode}: "
                                   f"{self.process.stderr.read().decode(errors='replace')}\n{self.error_log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"icecast2 does not listen on {self.port}:\n{self.error_log()}")
                time.sleep(0.05)
        self.start_source()
        return self

    def error_log(self) -> str:
        path = self.folder / "log" / "error.log" if self.folder else None
        return path.read_text(errors="replace") if path and path.exists() else ""

    def close(self):
        for mount in list(self.sources):
            self.stop_source(mount)
        terminate(self.process)
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # Sources

    def url(self, mount: str = MOUNT) -> str:
        """The listeners' URL of a mount point."""
        return f"http://127.0.0.1:{self.port}{mount}"

    def start_source(self, mount: str = MOUNT, name: str = STATION_NAME, seconds: int = 3600):
        """Starts `ffmpeg -re` sending a sine as MP3 (128 kb/s, 44.1 kHz stereo) to `mount`, as a
        station's encoder does, and waits until listeners can tune in."""
        command = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-re",
                   "-f", "lavfi", "-i", f"sine=f=440:d={seconds}", "-ac", "2", "-ar", "44100",
                   "-c:a", "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-ice_name", name,
                   "-f", "mp3", f"icecast://source:{SOURCE_PASSWORD}@127.0.0.1:{self.port}{mount}"]
        self.sources[mount] = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                               stderr=subprocess.PIPE)
        self.wait_until_live(mount)

    def stop_source(self, mount: str = MOUNT):
        """Kills the source client of `mount` (SIGKILL: an encoder that crashes or loses its
        network, not one that says goodbye); Icecast then ends the listeners' streams."""
        process = self.sources.pop(mount, None)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def wait_until_live(self, mount: str = MOUNT, timeout: float = 20):
        """Waits until a listener of `mount` gets `200` and audio bytes: until then Icecast
        answers 404 (the source has not connected yet)."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            source = self.sources.get(mount)
            if source is not None and source.poll() is not None:
                message = source.stderr.read().decode(errors="replace")
                raise RuntimeError(f"the ffmpeg source of {mount} exited: {message}")
            try:
                with urllib.request.urlopen(_local_only(self.url(mount)), timeout=3) as response:
                    if response.status == 200 and response.read(1024):
                        return
            except (urllib.error.URLError, OSError) as error:
                last = error
            time.sleep(0.1)
        raise RuntimeError(f"{mount} is not live after {timeout} s ({last}):\n{self.error_log()}")

    def set_title(self, text: str, mount: str = MOUNT):
        """Changes the live title (the `StreamTitle` of the ICY metadata blocks) through Icecast's
        admin endpoint, as a playout system does when the next song starts."""
        query = urllib.parse.urlencode({"mount": mount, "mode": "updinfo", "song": text, "charset": "UTF-8"})
        request = urllib.request.Request(_local_only(f"http://127.0.0.1:{self.port}/admin/metadata?{query}"))
        credentials = base64.b64encode(f"admin:{ADMIN_PASSWORD}".encode()).decode()
        request.add_header("Authorization", f"Basic {credentials}")
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read().decode(errors="replace")
        assert response.status == 200 and "Metadata update successful" in body, body


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Files from the server's folder, plus the fault endpoints (`FixtureHTTPServer`)."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".flac": "audio/flac", ".wav": "audio/wav", ".mp3": "audio/mpeg",
        ".m3u": "audio/x-mpegurl", ".pls": "audio/x-scpls", ".xspf": "application/xspf+xml",
        ".m3u8": "application/vnd.apple.mpegurl", ".ts": "video/mp2t", ".aac": "audio/aac",
    }
    protocol_version = "HTTP/1.1"

    def __init__(self, *args, fixture=None, **kwargs):
        self.fixture = fixture
        super().__init__(*args, directory=str(fixture.root), **kwargs)

    def log_message(self, format, *args):
        """Records the path of every answered request (send_response and send_error log it)."""
        self.fixture.requests.append(self.path)

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        special = {
            "/missing": self._missing, "/redirect-loop": self._redirect_loop, "/endless.m3u": self._endless,
            "/huge.m3u": self._huge, "/truncated.flac": self._truncated, "/dropping.mp3": self._dropping,
        }.get(path)
        if special is None:
            return super().do_GET()
        try:
            special()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _missing(self):
        self.send_error(404, "Not Found")

    def _redirect_loop(self):
        self.send_response(302)
        self.send_header("Location", f"{self.fixture.base}/redirect-loop")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _endless(self):
        """A playlist that never ends: lines of comments until the client hangs up (or the fixture
        closes), without a Content-Length, as a misconfigured stream URL that returns a text
        stream would. Bounded by the fixture's stop event, so the thread never outlives it."""
        self.send_response(200)
        self.send_header("Content-Type", "audio/x-mpegurl")
        self.send_header("Connection", "close")
        self.end_headers()
        line = b"#EXTINF:-1,endless\n" + f"{self.fixture.base}/tone.wav\n".encode()
        chunk = line * 512
        while not self.fixture.stopping.is_set():
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True

    def _huge(self):
        """A playlist of HUGE_BYTES, entries of the same small file: a server must stop reading or
        cap the queue, not hold it all."""
        line = f"{self.fixture.base}/tone.wav\n".encode()
        count = FixtureHTTPServer.HUGE_BYTES // len(line)
        self.send_response(200)
        self.send_header("Content-Type", "audio/x-mpegurl")
        self.send_header("Content-Length", str(count * len(line)))
        self.end_headers()
        chunk, sent = line * 4096, 0
        while sent < count and not self.fixture.stopping.is_set():
            n = min(4096, count - sent)
            self.wfile.write(chunk if n == 4096 else line * n)
            sent += n
        self.close_connection = True

    def _truncated(self):
        """A FLAC file whose Content-Length promises all of `long.flac` but whose connection ends
        after a third of it: the web-server form of "the source stops mid-song"."""
        data = (self.fixture.root / "long.flac").read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "audio/flac")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data[:len(data) // 3])
        self.wfile.flush()
        self.close_connection = True


    def _dropping(self):
        """A live MP3 station (no Content-Length, paced at its 128 kb/s) whose first connection for
        a given URL (query string included) is dropped after DROP_AFTER seconds; later ones
        stream on: a listener that reconnects keeps playing, one that does not loses it."""
        with self.fixture.lock:
            first = self.path not in self.fixture.dropped
            self.fixture.dropped.add(self.path)
        data = (self.fixture.root / "stream.mp3").read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "audio/mpeg")
        self.send_header("icy-name", "Dropping FM")
        self.send_header("Connection", "close")
        self.end_headers()
        step, interval = 4000, 0.25  # 16 000 bytes a second: 128 kb/s
        limit = int(FixtureHTTPServer.DROP_AFTER / interval) * step if first else len(data)
        for offset in range(0, min(limit, len(data)), step):
            if self.fixture.stopping.is_set():
                break
            self.wfile.write(data[offset:offset + step])
            self.wfile.flush()
            time.sleep(interval)
        self.close_connection = True


class FixtureHTTPServer:
    """A threaded HTTP server on 127.0.0.1:<free port> for the radio tests.

    Files (made once, at start, with the `ffmpeg` CLI into `root`):
    - `tone.flac`, `tone.wav`: the audio tests' 2 s two-channel chirp (Tests/support/audio.py),
      lossless, so that what reaches a pipe output can be compared bit for bit with `source`;
    - `tone.mp3`: the same chirp as MP3; `long.flac`: a 20 s sine (for the truncated file);
    - `list.m3u`, `list.pls`, `list.xspf`: remote playlists of those three files' absolute URLs
      (`PLAYLIST_FILES`, in that order);
    - `hls/index.m3u8` and its segments: a 6 s AAC "HLS station" (VOD playlist of 2 s segments);
      `hls/elsewhere.m3u8`: the same playlist naming its segments on the second TLS listener.

    Fault endpoints (`url(name)`): `/missing` answers 404; `/redirect-loop` redirects (302) to
    itself for ever; `/endless.m3u` is a 200 playlist that never ends; `/huge.m3u` is a
    HUGE_BYTES playlist; `/truncated.flac` promises more than it sends, then closes;
    `/dropping.mp3?KEY` is a live MP3 whose first connection (per KEY) drops after DROP_AFTER
    seconds (from a 60 s `stream.mp3`). `stall_url`
    is a second listener that accepts, reads the request and never answers; `https_url(path)`
    serves the same files over TLS with a self-signed certificate.

    `requests` lists the paths asked for (to prove a server really fetched something)."""

    HUGE_BYTES = 50 * 1024 * 1024
    DROP_AFTER = 3
    PLAYLIST_FILES = ["tone.flac", "tone.wav", "tone.mp3"]

    def __init__(self, root: Path):
        self.root = Path(root)
        self.requests: list[str] = []
        self.stopping = threading.Event()
        self.httpd = self.httpsd = self.other_httpsd = None
        self.stall_socket = None
        self.stalled: list[socket.socket] = []
        self.lock = threading.Lock()
        self.dropped: set[str] = set()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def https_url(self, path: str) -> str:
        """The same file over TLS (a self-signed certificate for 127.0.0.1, made at start)."""
        return f"https://127.0.0.1:{self.https_port}/{path.lstrip('/')}"

    @property
    def stall_url(self) -> str:
        return f"http://127.0.0.1:{self.stall_port}/stall"

    def start(self):
        handler = lambda *args, **kwargs: _Handler(*args, fixture=self, **kwargs)  # noqa: E731
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._generate()
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        self._start_https(handler)
        self.stall_socket = socket.socket()
        self.stall_socket.bind(("127.0.0.1", 0))
        self.stall_socket.listen(16)
        self.stall_port = self.stall_socket.getsockname()[1]
        threading.Thread(target=self._stall, daemon=True).start()
        return self

    def _start_https(self, handler):
        """Two more listeners serving the same files over TLS, each with a self-signed
        certificate of its own made by the `openssl` CLI: the `https://` scheme is tested on
        loopback too. A server under test must be told not to verify them (MPD: `verify_peer
        "no"` in the curl input block), or to trust `https_certificate`, which is the first
        one's only. `hls/elsewhere.m3u8` is the HLS playlist with its segments on the second."""
        self.httpsd, self.https_port, self.https_certificate = self._tls_listener(handler, "https")
        self.other_httpsd, other_port, _ = self._tls_listener(handler, "other-https")
        playlist = (self.root / "hls" / "index.m3u8").read_text()
        (self.root / "hls" / "elsewhere.m3u8").write_text(re.sub(
            r"^(segment\d+\.ts)$", rf"https://127.0.0.1:{other_port}/hls/\1", playlist, flags=re.M))

    def _tls_listener(self, handler, name: str):
        """A listener on 127.0.0.1 with a new self-signed certificate: (server, port, certificate)."""
        cert, key = self.root.parent / f"{name}-cert.pem", self.root.parent / f"{name}-key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                        "-out", str(cert), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-days", "2"], check=True, capture_output=True)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler, bind_and_activate=False)
        server.daemon_threads = True
        server.socket = context.wrap_socket(server.socket, server_side=True)
        server.server_bind()
        server.server_activate()
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        return server, server.server_address[1], cert

    def _stall(self):
        """Accepts every connection and reads what the client sends, never answering: a server
        whose backend hangs. Connections stay open until `close`."""
        while not self.stopping.is_set():
            try:
                connection, _ = self.stall_socket.accept()
            except OSError:
                return
            self.stalled.append(connection)
            connection.settimeout(0.5)
            try:
                connection.recv(65536)
            except OSError:
                pass

    def release_stalled(self):
        """Closes every connection the stalling listener holds: a client still waiting on one gets
        an end of stream. Tests call it when done, so that a server that waits for ever (MPD
        0.23) can move on and stop."""
        while self.stalled:
            self.stalled.pop().close()

    def _generate(self):
        self.root.mkdir(parents=True, exist_ok=True)
        work = self.root.parent / (self.root.name + "-work")
        work.mkdir(exist_ok=True)
        self.source = audio.chirp(work / "chirp.wav", 44100, 2)
        for suffix in ("flac", "wav", "mp3"):
            audio.encode(self.source, self.root / f"tone.{suffix}")
        audio.ffmpeg("-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=20", "-ac", "2",
                     "-c:a", "flac", *audio.BITEXACT, self.root / "long.flac")
        audio.ffmpeg("-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=60", "-ac", "2",
                     "-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0", self.root / "stream.mp3")
        (self.root / "hls").mkdir(exist_ok=True)
        audio.ffmpeg("-f", "lavfi", "-i", "sine=frequency=550:sample_rate=44100:duration=6", "-ac", "2",
                     "-c:a", "aac", "-b:a", "128k", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                     "-hls_playlist_type", "vod", "-hls_segment_filename", self.root / "hls" / "segment%d.ts",
                     self.root / "hls" / "index.m3u8")
        urls = [self.url(name) for name in self.PLAYLIST_FILES]
        (self.root / "list.m3u").write_text("#EXTM3U\n" + "".join(
            f"#EXTINF:2,{name}\n{url}\n" for name, url in zip(self.PLAYLIST_FILES, urls)))
        (self.root / "list.pls").write_text("[playlist]\n" + "".join(
            f"File{i}={url}\nTitle{i}={name}\nLength{i}=2\n"
            for i, (name, url) in enumerate(zip(self.PLAYLIST_FILES, urls), 1))
            + f"NumberOfEntries={len(urls)}\nVersion=2\n")
        (self.root / "list.xspf").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<playlist version="1" xmlns="http://xspf.org/ns/0/">\n'
            " <trackList>\n" + "".join(f"  <track><location>{url}</location><title>{name}</title></track>\n"
                                       for name, url in zip(self.PLAYLIST_FILES, urls))
            + " </trackList>\n</playlist>\n")

    def close(self):
        self.stopping.set()
        for server in (self.httpd, self.httpsd, self.other_httpsd):
            if server is not None:
                server.shutdown()
                server.server_close()
        if self.stall_socket is not None:
            self.stall_socket.close()
        self.release_stalled()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
