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
