"""Regressions the hostile-input test (test_hostile.py) found, each against Tonearm and
Debian's MPD: the answer is MPD's."""


def test_seeking_to_infinity_or_nan_is_survived(player_server):
    """Found by the hostile batches: `seekcur inf` trapped the decoder thread (a Double that
    does not fit an Int64) and took the server down. MPD answers OK and goes on."""
    with player_server.connect() as c:
        assert c.command('add ""')[-1] == "OK"
        assert c.command("play 0") == ["OK"]
        for line in ("seekcur inf", "seek 0 1e309", "seek 0 nan", "seekid 1 inf", "seek 1 1e300"):
            assert c.command(line) == ["OK"], line
        status = c.command("status")
        assert status[-1] == "OK"
        # A bounded time: no `elapsed: inf` (status itself trapped converting it once).
        assert not [line for line in status if line.startswith(("elapsed:", "time:")) and ("inf" in line or "nan" in line)]
    with player_server.connect() as c:
        assert c.command("ping") == ["OK"]


def test_picture_offsets_are_32_bit(server):
    """Found by the comparison with MPD in test_hostile.py: MPD reads OFFSET as an `unsigned`
    before it looks at the URI, so 2^32 is too large whatever the URI names (Tonearm took
    up to 2^63 - 1)."""
    with server.connect() as c:
        for command in ("albumart", "readpicture"):
            assert c.command(f'{command} "x.flac" 4294967296') == [
                f"ACK [2@0] {{{command}}} Number too large: 4294967296"]
            # The largest unsigned passes the offset check (and fails on the URI instead).
            assert "Number too large" not in c.command(f'{command} "x.flac" 4294967295')[-1]


def test_extreme_mixramp_values_survive_the_state_file(make_player_server):
    """Found by the hostile batches: after `mixrampdb -1e30` the state-file service converted
    the value to an integer for its change check and trapped, at the latest when a restart
    read the value back. MPD keeps any float and restarts with it."""
    server = make_player_server('state_file_interval "1"\n')
    with server.connect() as c:
        assert c.command("mixrampdb -1e30") == ["OK"]
        assert c.command("mixrampdelay nan") == ["OK"]
    assert server.stop() == 0
    assert "mixrampdb: -1" in (server.workdir / "state").read_text()
    server.start()
    with server.connect() as c:
        status = c.command("status")
    assert status[-1] == "OK" and any(line.startswith("mixrampdb: -1") for line in status), status


def test_an_absolute_playlist_path_with_a_scheme_inside_is_a_path(server):
    """Found by the comparison with MPD in test_hostile.py: `listplaylist "/a://x"` is an
    absolute file path for MPD (Access denied to a TCP client), not a URL."""
    with server.connect() as c:
        for command in ("listplaylist", "listplaylistinfo", "load"):
            assert c.command(f'{command} "/a://x"') == [f"ACK [4@0] {{{command}}} Access denied"]


def test_a_queue_search_with_a_base_that_names_nothing_finds_nothing(private_db_server):
    """Found by the comparison with MPD in test_hostile.py (seed 304): `playlistfind` with a
    `base` naming nothing answered `No such directory`, as the database searches do; MPD
    matches the queue's songs themselves and finds none."""
    with private_db_server.connect() as c:
        assert c.command('add "intro.flac"')[-1] == "OK"
        for command in ("playlistfind", "playlistsearch"):
            assert c.command(f'{command} "(base \'nowhere\')"') == ["OK"]


def test_prio_reads_and_applies_each_argument_in_turn(player_server):
    """Found by the comparison with MPD in test_hostile.py (seed 808): `prioid 0 49 x` named
    the unparsable `x` where MPD, which applies each id before it reads the next, says that
    id 49 does not exist; the ids before a bad argument keep their new priority."""
    with player_server.connect() as c:
        assert c.command('add ""')[-1] == "OK"
        first = next(line for line in c.command("playlistinfo 0") if line.startswith("Id: ")).split()[1]
        assert c.command("prioid 6 99999 bogus") == ["ACK [50@0] {prioid} No such song"]
        assert c.command(f"prioid 5 {first} bogus") == ["ACK [2@0] {prioid} Integer expected: bogus"]
        assert "Prio: 5" in c.command("playlistinfo 0")
        assert c.command("prio 7 1 bogus")[-1].startswith("ACK [2@0] {prio} ")
        assert "Prio: 7" in c.command("playlistinfo 1")


def test_move_reads_its_destination_before_it_checks_the_songs(player_server):
    """Found by the comparison with MPD in test_hostile.py (seeds 606, 1000): with FROM past
    the queue, MPD still reads TO first and names what is wrong with it."""
    with player_server.connect() as c:
        assert c.command('add ""')[-1] == "OK"
        assert c.command("move 99 x") == ["ACK [2@0] {move} Integer expected: x"]
        assert c.command("move 99 -1") == ["ACK [55@0] {move} No current song"]
        assert c.command("move 99 0") == ["ACK [2@0] {move} Bad song index"]
        assert c.command("move 99 5000") == ["ACK [2@0] {move} Number too large: 5000"]
        # More songs than the queue holds: MPD's unsigned room for them wraps, so any TO passes.
        assert c.command("move 0:99 3") == ["ACK [2@0] {move} Bad song index"]


def test_addid_reads_its_position_before_the_uri(server):
    """Found by the comparison with MPD in test_hostile.py (once its allowance for `addid` was
    narrowed to a true reason): Tonearm looked the URI up before it read POSITION. MPD, 0.23
    and 0.24 alike, reads POSITION first, so with both wrong it names the position."""
    with server.connect() as c:
        assert c.command('addid "nowhere.flac" bogus') == ["ACK [2@0] {addid} Integer expected: bogus"]
        assert c.command('addid "a//b" 1') == ["ACK [2@0] {addid} Number too large: 1"]
        assert c.command('addid "a//b" +1') == ["ACK [55@0] {addid} No current song"]
        # With a good position, the URI is what is wrong.
        assert c.command('addid "nowhere.flac" 0') == ["ACK [50@0] {addid} No such song"]
