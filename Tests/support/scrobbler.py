"""A local AudioScrobbler 1.2 endpoint on 127.0.0.1, for scrobblers such as mpdscribble.

It speaks the three requests of the protocol as mpdscribble 0.24 sends them (its
src/Scrobbler.cxx): the handshake, a GET of the configured URL with `hs=true`, `p=1.2`, `c`, `v`,
`u`, `t` (a Unix time) and `a` (md5(md5(password) + t)), answered with `OK`, a session id, the
now-playing URL and the submission URL; the now-playing notification, a POST of `s`, `a`
(artist), `t` (title), `b` (album), `l` (length in seconds), `n` (track) and `m` (MusicBrainz
id); and the submission, a POST of `s` and, for each song `i` of the batch, `a[i]`, `t[i]`,
`l[i]`, `i[i]` (when it was played), `o[i]` (source), `r[i]` (rating: `L` for love; mpdscribble
sends an empty `r[i]` first and a second `r[i]=L` for a loved song), `b[i]`, `n[i]` and `m[i]`.

A wrong password token answers `BADAUTH`, a wrong session `BADSESSION`, as Last.fm did. Every
request is kept; tests wait for the ones they expect (`wait_for`).
"""
import hashlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Submission:
    """One song of a submission batch."""

    artist: str
    title: str
    album: str
    length: str
    track: str
    time: str
    source: str
    ratings: list[str] = field(default_factory=list)

    @property
    def loved(self) -> bool:
        return "L" in self.ratings


@dataclass
class NowPlaying:
    artist: str
    title: str
    album: str
    length: str
    track: str


class ScrobblerEndpoint:
    """The endpoint, started on a free port of 127.0.0.1; `url` is the handshake URL to configure."""

    SESSION = "tonearm-test-session"

    def __init__(self, username: str = "tonearm", password: str = "secret"):
        self.username = username
        self.password = password
        self.password_md5 = hashlib.md5(password.encode()).hexdigest()
        self.handshakes: list[dict[str, str]] = []
        self.now_playing: list[NowPlaying] = []
        self.submissions: list[Submission] = []
        self.errors: list[str] = []  # requests the endpoint refused, and why
        self._changed = threading.Condition()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                endpoint._handle(self, "GET", parse_qs(urlsplit(self.path).query, keep_blank_values=True))

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                endpoint._handle(self, "POST", parse_qs(body, keep_blank_values=True))

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, request: BaseHTTPRequestHandler, method: str, form: dict[str, list[str]]):
        path = urlsplit(request.path).path
        one = {key: values[-1] for key, values in form.items()}
        if method == "GET" and path == "/" and one.get("hs") == "true":
            answer = self._handshake(one)
        elif method == "POST" and path in ("/nowplaying", "/submit") and one.get("s") != self.SESSION:
            answer = "BADSESSION\n"
        elif method == "POST" and path == "/nowplaying":
            answer = self._record(lambda: self.now_playing.append(NowPlaying(
                one.get("a", ""), one.get("t", ""), one.get("b", ""), one.get("l", ""), one.get("n", ""))))
        elif method == "POST" and path == "/submit":
            answer = self._record(lambda: self.submissions.extend(self._songs(form)))
        else:
            answer = "FAILED unknown request\n"
        if not answer.startswith("OK"):
            with self._changed:
                self.errors.append(f"{method} {request.path}: {answer.strip()}")
        data = answer.encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/plain")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def _handshake(self, one: dict[str, str]) -> str:
        token = hashlib.md5((self.password_md5 + one.get("t", "")).encode()).hexdigest()
        if one.get("p") != "1.2" or one.get("u") != self.username or one.get("a") != token:
            return "BADAUTH\n"
        self._record(lambda: self.handshakes.append(one))
        return f"OK\n{self.SESSION}\n{self.url}nowplaying\n{self.url}submit\n"

    def _record(self, change) -> str:
        with self._changed:
            change()
            self._changed.notify_all()
        return "OK\n"

    @staticmethod
    def _songs(form: dict[str, list[str]]) -> list[Submission]:
        songs = []
        index = 0
        while f"a[{index}]" in form:
            def value(key: str) -> str:
                return form.get(f"{key}[{index}]", [""])[-1]
            songs.append(Submission(value("a"), value("t"), value("b"), value("l"), value("n"), value("i"),
                                    value("o"), form.get(f"r[{index}]", [])))
            index += 1
        return songs

    def wait_for(self, what: str, check, timeout: float = 60):
        """Waits until `check()` (called under the endpoint's lock) returns something true, and
        returns it; raises AssertionError after `timeout` seconds (generous: never a timing
        assertion)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not (result := check()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"waited {timeout} s for {what}; handshakes {len(self.handshakes)}, "
                                         f"now playing {self.now_playing}, submissions {self.submissions}, "
                                         f"errors {self.errors}")
                self._changed.wait(left)
            return result
