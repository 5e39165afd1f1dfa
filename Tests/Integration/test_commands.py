"""The connection-level commands."""
import pytest


def test_commands_lists_exactly_what_is_implemented(tonearm):
    with tonearm.connect() as c:
        names = [line.removeprefix("command: ") for line in c.command("commands")[:-1]]
    assert names == sorted(names)
    assert {"ping", "close", "kill", "password", "commands", "notcommands", "tagtypes", "binarylimit",
            "protocol", "config", "urlhandlers", "decoders", "idle"} <= set(names)
    # every listed command is known: none answers "unknown command"
    with tonearm.connect() as c:
        for name in names:
            if name in ("close", "kill", "idle"):
                continue
            assert "unknown command" not in c.command(name)[-1], name
    assert {"play", "currentsong", "add", "status", "setvol", "plchanges", "outputs", "enableoutput", "outputset"} <= set(names)
    # Stored playlists: Tonearm always has a playlist_directory (it has a default), so, unlike an
    # MPD without one, it advertises all of them.
    assert {"listplaylist", "listplaylistinfo", "listplaylists", "load", "playlistadd", "playlistclear",
            "playlistdelete", "playlistlength", "playlistmove", "rename", "rm", "save", "searchaddpl",
            "searchplaylist"} <= set(names)
    # The test servers have a sticker_file, so the sticker commands are offered (MPD hides them
    # without one: test_stickers.py); client-to-client messages always are.
    assert {"sticker", "stickernames", "stickernamestypes", "stickertypes"} <= set(names)
    assert {"subscribe", "unsubscribe", "channels", "readmessages", "sendmessage"} <= set(names)
    assert {"partition", "listpartitions", "newpartition", "delpartition", "moveoutput", "outputset"} <= set(names)


def test_tagtypes_are_per_connection(tonearm):
    with tonearm.connect() as first, tonearm.connect() as second:
        assert first.command("tagtypes disable Artist Album") == ["OK"]
        first_tags = first.command("tagtypes")
        assert "tagtype: Artist" not in first_tags and "tagtype: Title" in first_tags
        assert "tagtype: Artist" in second.command("tagtypes")
        assert first.command("tagtypes reset Title") == ["OK"]
        assert first.command("tagtypes") == ["tagtype: Title", "OK"]
        assert first.command("tagtypes all") == ["OK"]
        assert first.command("tagtypes") == second.command("tagtypes")
        available = first.command("tagtypes available")
        assert available[-1] == "OK" and "tagtype: MUSICBRAINZ_TRACKID" in available


def test_protocol_features(tonearm):
    with tonearm.connect() as c:
        assert c.command("protocol available") == ["feature: hide_playlists_in_root", "OK"]
        assert c.command("protocol") == ["OK"]
        assert c.command("protocol enable hide_playlists_in_root") == ["OK"]
        assert c.command("protocol") == ["feature: hide_playlists_in_root", "OK"]
        assert c.command("protocol clear") == ["OK"]
        assert c.command("protocol") == ["OK"]
        assert c.command("protocol enable nonsense")[0].startswith("ACK [2@0] {protocol}")


def test_binarylimit_bounds(tonearm):
    with tonearm.connect() as c:
        assert c.command("binarylimit 64") == ["OK"]
        assert c.command("binarylimit 63") == ["ACK [2@0] {binarylimit} Value too small"]
        assert c.command(f"binarylimit {8192 * 1024 - 4096}") == ["OK"]
        # MPD 0.24 caps it at max_output_buffer_size - 4096 (0.23 has no cap)
        assert c.command(f"binarylimit {8192 * 1024}") == ["ACK [2@0] {binarylimit} Number too large: 8388608"]


def test_binarylimit_parsing_as_mpd(server):
    with server.connect() as c:
        assert c.command("binarylimit 99999999999") == ["ACK [2@0] {binarylimit} Number too large: 99999999999"]
        assert c.command("binarylimit -1") == ["ACK [2@0] {binarylimit} Number too large: -1"]
        assert c.command("binarylimit 8192") == ["OK"]


def test_decoders_come_from_ffmpeg(tonearm):
    with tonearm.connect() as c:
        lines = c.command("decoders")
    assert lines[0] == "plugin: ffmpeg" and lines[-1] == "OK"
    for suffix in ("flac", "mp3", "ogg", "opus", "wav", "m4a"):
        assert f"suffix: {suffix}" in lines
    assert any(line.startswith("mime_type: audio/") for line in lines)


def test_config_and_file_urls_are_for_local_clients_only(make_tonearm, tmp_path):
    socket_path = tmp_path / "tonearm.sock"
    server = make_tonearm(f'bind_to_address "{socket_path}"\n')
    with server.connect() as tcp:
        assert tcp.command("config") == ["ACK [4@0] {config} Command only permitted to local clients"]
        assert tcp.command("urlhandlers") == ["handler: http://", "handler: https://", "OK"]
    from support.servers import Connection
    with Connection.connect_unix(socket_path) as local:
        assert local.greeting == "OK MPD 0.24.0"
        assert local.command("config") == [f"music_directory: {server.music_dir}",
                                           f"playlist_directory: {server.workdir}/playlists", "OK"]
        assert local.command("urlhandlers") == ["handler: file://", "handler: http://", "handler: https://", "OK"]
    assert oct(socket_path.stat().st_mode & 0o777) == "0o666"


def test_close_ends_the_connection(tonearm):
    with tonearm.connect() as c:
        c.send("close\n")
        assert c.expect_closed() is True


def test_kill_stops_the_server_cleanly(tonearm):
    with tonearm.connect() as c:
        c.send("kill\n")
        assert c.expect_closed() is True
    assert tonearm.wait_exit() == 0


@pytest.mark.parametrize("line", ["ping", "commands", "tagtypes"])
def test_same_answer_as_mpd_for_simple_commands(server, line):
    with server.connect() as c:
        assert c.command(line)[-1] == "OK"


def test_config_over_tcp_is_refused_as_by_mpd(server):
    with server.connect() as c:
        assert c.command("config") == ["ACK [4@0] {config} Command only permitted to local clients"]
