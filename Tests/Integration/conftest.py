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


@pytest.fixture(scope="session")
def fixture_library(tmp_path_factory):
    """The generated fixture music library (Tests/support/library.py), made once per session
    and shared read-only by every server on it."""
    from support.library import generate
    return generate(tmp_path_factory.getbasetemp() / "fixture-library")


@pytest.fixture(scope="session", params=["tonearm", "mpd"])
def db_server(request, fixture_library, tmp_path_factory):
    """Tonearm and Debian's MPD (one test run each) on the fixture library, each with its own
    database file, started once per session; the first start scans the music folder, and this
    waits until that scan is finished. Tests must not change the library or the servers' state
    (per-connection settings such as tagtypes or binarylimit are fine)."""
    from support.library import wait_for_scan
    kind = TonearmServer if request.param == "tonearm" else MPDServer
    workdir = tmp_path_factory.mktemp(f"db-{request.param}")
    with kind(workdir, music_dir=fixture_library.root) as started:
        started.kind = request.param
        with started.connect() as c:
            wait_for_scan(c)
        yield started


@pytest.fixture(params=["tonearm", "mpd"])
def private_db_server(request, fixture_library, tmp_path):
    """Like db_server, on a private copy of the fixture library that the test may change."""
    from support.library import copy, wait_for_scan
    library = copy(fixture_library, tmp_path / "music")
    kind = TonearmServer if request.param == "tonearm" else MPDServer
    with kind(tmp_path / request.param, music_dir=library.root) as started:
        started.kind = request.param
        started.library = library
        with started.connect() as c:
            wait_for_scan(c)
        yield started


# Where Tonearm still differs from MPD on the database, test by test (node id prefix → what
# differs). Each runs as a strict xfail on the Tonearm side only: the MPD side keeps proving the
# expectation, and the day Tonearm matches, the xfail fails and the entry must go.
KNOWN_DIFFERENCES = {
    "test_database.py::test_lsinfo_orders_songs_by_album_disc_track_then_name[tonearm":
        "name collation is case-folded bytes, not ICU",
    "test_database.py::test_lsinfo_of_a_song_and_of_what_is_not_a_directory[tonearm":
        "URI edge cases (trailing slash, non-song files)",
    "test_database.py::test_song_block_field_order_multi_values_and_track_numbers[tonearm":
        "tag lines in file order; MPD's decoders order some formats by tag type",
    "test_database.py::test_id3_and_riff_tags_are_read[tonearm": "tag line order for ID3 and RIFF",
    "test_database.py::test_listall[tonearm": "listall DIR does not print the directory line first",
    "test_database.py::test_listallinfo[tonearm": "listallinfo DIR does not print the directory line first",
    "test_database.py::test_listfiles_lists_every_file_with_sizes[tonearm": "listfiles sorts by name",
    "test_database.py::test_listfiles_errors[tonearm": "listfiles error texts",
    "test_database_art.py::test_albumart_uses_the_directory_of_the_uri[tonearm": "albumart URI edge cases",
    "test_database_art.py::test_readpicture_and_readcomments_of_what_is_no_song[tonearm":
        "readpicture/readcomments say 'No such file' where MPD says 'No such song'",
    "test_database_search.py::test_malformed_filters[tonearm-find \"((artist == 'x') AND title":
        "0.24 parser: '(' expected where 0.23 skips a byte",
    "test_database_search.py::test_malformed_filters[tonearm-find \"(base 'nope')\"":
        "base of a missing directory matches nothing instead of ACK 50",
    "test_database_search.py::test_malformed_filters[tonearm-find \"(base 'Various/Sort')\"":
        "base of a missing directory matches nothing instead of ACK 50",
    "test_database_search.py::test_malformed_filters[tonearm-find base nope":
        "base of a missing directory matches nothing instead of ACK 50",
    "test_database_search.py::test_malformed_filters[tonearm-find \"(artist =~ '[')\"":
        "regex errors carry no PCRE message",
}


def pytest_collection_modifyitems(items):
    for item in items:
        node = item.nodeid.split("Tests/Integration/", 1)[-1]
        for prefix, reason in KNOWN_DIFFERENCES.items():
            if node.startswith(prefix):
                item.add_marker(pytest.mark.xfail(strict=True, reason=f"known difference: {reason}"))
