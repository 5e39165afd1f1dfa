"""Fixtures: a started Tonearm (and, for rules shared with MPD, Debian's MPD) per test."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.servers import MPDServer, TonearmServer  # noqa: E402


@pytest.fixture
def make_tonearm(tmp_path):
    """Starts Tonearm servers with extra configuration; stops them after the test."""
    started = []

    def make(extra_config="", **options):
        server = TonearmServer(tmp_path / f"tonearm{len(started)}", extra_config=extra_config, **options)
        started.append(server)
        return server.start()

    yield make
    for server in started:
        if server.process.poll() is None:
            server.stop()


@pytest.fixture
def tonearm(make_tonearm):
    return make_tonearm()


@pytest.fixture(params=["tonearm", "mpd"])
def server(request, tmp_path):
    """Each test using this runs against Tonearm and against Debian's MPD: these rules are
    MPD's, so the same assertions must hold for both."""
    kind = TonearmServer if request.param == "tonearm" else MPDServer
    with kind(tmp_path / request.param) as started:
        yield started
