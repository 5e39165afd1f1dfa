"""python-mpd2 (Debian's python3-mpd 3.0) against Tonearm and Debian's MPD: its strict parser over
a broad set of commands, command lists through its API, binary album art, stickers and `idle`
through its asyncio client. The library raises ProtocolError on any reply it cannot parse (a
line that is no `key: value` pair, a bare `OK` inside a list, a missing `binary:` payload).
"""
import asyncio
import sys
from pathlib import Path

import mpd
import mpd.asyncio
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.library import embedded_picture  # noqa: E402
from support.playback import A1, A2, LONG, SOFTWARE_MIXER  # noqa: E402

BJORK = "Björk/Debut/01 Human Behaviour.flac"


def connect(server) -> mpd.MPDClient:
    client = mpd.MPDClient()
    client.timeout = 30
    client.connect(server.host, server.port)
    return client


def test_strict_parser_over_many_commands(db_server):
    """Every reply parses; a few shapes are checked beyond that."""
    client = connect(db_server)
    try:
        assert client.status()["state"] == "stop"
        assert int(client.stats()["songs"]) > 10
        assert client.playlistinfo() == []
        assert client.currentsong() == {}
        assert client.plchanges(0) == [] and client.playlistid() == []
        assert {entry.get("file") for entry in client.listfiles("Björk/Debut")} >= {"cover.jpg", "02 Crying.mp3"}
        assert "Björk" in [entry.get("directory") for entry in client.lsinfo()]
        songs = [entry for entry in client.listallinfo() if "file" in entry]
        assert BJORK in [song["file"] for song in songs]
        assert client.listall("Björk") == [{"directory": "Björk"}, {"directory": "Björk/Debut"},
                                           {"file": BJORK}, {"file": "Björk/Debut/02 Crying.mp3"}]
        assert client.outputs() == [{"outputid": "0", "outputname": "null", "plugin": "null",
                                     "outputenabled": "1"}]
        assert any("suffix" in decoder for decoder in client.decoders())
        commands = client.commands()
        assert {"status", "idle", "albumart", "readpicture", "sticker", "list"} <= set(commands)
        assert client.notcommands() == []
        assert "Artist" in client.tagtypes()
        assert all(handler.endswith("://") for handler in client.urlhandlers())
        albums = client.list("album", "group", "albumartist")
        assert {"albumartist": "Björk", "album": "Debut"} in albums
        # python-mpd2 folds a grouped count into one dict of lists.
        grouped = client.count("group", "artist")
        assert set(grouped) == {"artist", "songs", "playtime"}
        assert grouped["songs"][grouped["artist"].index("Björk")] == "2"
        assert client.count("artist", "Björk") == {"songs": "2", "playtime": "2"}
        assert [song["file"] for song in client.find("artist", "Björk")] == [BJORK, "Björk/Debut/02 Crying.mp3"]
        assert [song["file"] for song in client.search("(title contains 'crying')")] == ["Björk/Debut/02 Crying.mp3"]
        assert client.listplaylists() == []
        assert client.replay_gain_status() == "off"
        assert client.channels() == []
        assert client.readmessages() == []
        assert client.readcomments(BJORK)["artist"] == "Björk"  # python-mpd2 lowercases keys
        client.ping()
        with pytest.raises(mpd.CommandError, match=r"\[50@0\] \{lsinfo\} No such directory"):
            client.lsinfo("Nowhere")
    finally:
        client.disconnect()


def test_binary_album_art(db_server, fixture_library):
    """`albumart` and `readpicture` return the bytes of the file, read in several chunks
    (python-mpd2 asks again with the next offset until it has `size` bytes)."""
    client = connect(db_server)
    try:
        cover = fixture_library.path("Björk/Debut/cover.jpg").read_bytes()
        assert len(cover) > 8192  # more than one chunk at the default binarylimit
        # python-mpd2 checks the chunks against `size:` and then drops that key.
        assert client.albumart(BJORK) == {"binary": cover}
        assert client.readpicture(BJORK) == {"type": "image/png",
                                             "binary": embedded_picture(fixture_library.path(BJORK))}
        assert client.readpicture("intro.flac") == {}
        with pytest.raises(mpd.CommandError, match=r"\[50@0\] \{albumart\}"):
            client.albumart("intro.flac")
        with pytest.raises(mpd.CommandError, match=r"\[50@0\] \{readpicture\} No such song"):
            client.readpicture("missing.flac")
    finally:
        client.disconnect()


def test_stickers(private_db_server):
    client = connect(private_db_server)
    try:
        client.sticker_set("song", BJORK, "rating", "8")
        client.sticker_set("song", BJORK, "mood", "odd")
        client.sticker_set("song", "intro.flac", "rating", "3")
        assert client.sticker_get("song", BJORK, "rating") == "8"
        assert client.sticker_list("song", BJORK) == {"mood": "odd", "rating": "8"}
        assert client.sticker_find("song", "", "rating") == [
            {"file": BJORK, "sticker": "rating=8"}, {"file": "intro.flac", "sticker": "rating=3"}]
        assert client.sticker_find("song", "Björk", "rating") == [{"file": BJORK, "sticker": "rating=8"}]
        assert client.sticker_find("song", "", "rating", "=", "3") == [{"file": "intro.flac", "sticker": "rating=3"}]
        client.sticker_delete("song", BJORK, "rating")
        with pytest.raises(mpd.CommandError, match=r"\[50@0\] \{sticker\} no such sticker"):
            client.sticker_get("song", BJORK, "rating")
        assert client.sticker_list("song", BJORK) == {"mood": "odd"}
    finally:
        client.disconnect()


@pytest.fixture
def mixer_server(make_player_server):
    return make_player_server(output=SOFTWARE_MIXER)


def test_command_lists(mixer_server):
    client = connect(mixer_server)
    try:
        client.command_list_ok_begin()
        client.add(A1)
        client.addid(A2)
        client.addid(LONG, 0)
        client.setvol(30)
        client.status()
        client.playlistinfo()
        results = client.command_list_end()
        assert len(results) == 6
        assert results[0] is None and results[3] is None
        long_id = results[2]
        status = results[4]
        assert status["playlistlength"] == "3" and status["volume"] == "30"
        assert [song["file"] for song in results[5]] == [LONG, A1, A2]
        assert results[5][0]["id"] == long_id
        # A failing command ends the list: python-mpd2 raises its ACK, the rest is not run.
        client.command_list_ok_begin()
        client.clear()
        client.play(99)
        client.add(A1)
        with pytest.raises(mpd.CommandError, match=r"\[2@1\] \{play\} Bad song index"):
            client.command_list_end()
        assert client.playlistinfo() == []
    finally:
        client.disconnect()


def test_asyncio_idle(mixer_server):
    """python-mpd2's asyncio client idles by itself between commands; `idle()` yields the
    changed subsystems as another client changes them."""
    async def scenario():
        watcher = mpd.asyncio.MPDClient()
        await watcher.connect(mixer_server.host, mixer_server.port)
        actor = mpd.asyncio.MPDClient()
        await actor.connect(mixer_server.host, mixer_server.port)
        try:
            seen: set[str] = set()

            async def watch():
                async for changes in watcher.idle(["mixer", "playlist", "options"]):
                    seen.update(changes)
                    if seen >= {"mixer", "playlist", "options"}:
                        return

            task = asyncio.create_task(watch())
            await asyncio.sleep(0)  # the task registers its interests; events from now on wait for it
            await actor.setvol(40)
            await actor.add(A1)
            await actor.play(0)
            await actor.random(1)
            await asyncio.wait_for(task, 30)
            assert seen == {"mixer", "playlist", "options"}  # not `player`: it did not ask for it
            assert (await watcher.status())["volume"] == "40"
        finally:
            watcher.disconnect()
            actor.disconnect()

    asyncio.run(scenario())


def test_queue_and_stored_playlists_through_the_api(mixer_server):
    """python-mpd2 sends ranges given as tuples: `(1, 3)` as `"1:3"`, `(5,)` as `"5:"`, `()` as `":"`."""
    client = connect(mixer_server)

    def files(songs):
        return [song["file"] for song in songs]
    try:
        client.add("/")
        assert files(client.playlistinfo((1, 3))) == [A2, "Album A/03 Three.mp3"]
        assert files(client.playlistinfo((5,))) == ["Album B/03 Six.flac", LONG]
        with pytest.raises(mpd.CommandError, match=r"\[2@0\] \{playlistinfo\} Integer or range expected: :"):
            client.playlistinfo(())
        client.delete((5,))
        client.move((0, 2), 3)
        assert files(client.playlistinfo()) == ["Album A/03 Three.mp3", "Album B/01 Four.flac", "Album B/02 Five.mp3",
                                                A1, A2]
        client.prio(5, (0,))
        client.prioid(7, 1)
        client.rangeid(1, (1, 2))  # python-mpd2 sends whole seconds only
        song = client.playlistid(1)[0]
        assert (song["prio"], song["range"]) == ("7", "1.000-")  # its end is the song's end
        client.rangeid(1, ())
        assert "range" not in client.playlistid(1)[0]
        client.swap(0, 1)
        assert files(client.plchanges(0, (0, 2))) == ["Album B/01 Four.flac", "Album A/03 Three.mp3"]
        assert files(client.playlistfind("artist", "Beta")) == ["Album B/01 Four.flac", "Album B/02 Five.mp3"]
        assert files(client.playlistsearch("title", "O")) == ["Album B/01 Four.flac", A1, A2]

        client.save("p")
        client.playlistadd("p", LONG)
        client.playlistdelete("p", 0)
        client.playlistmove("p", 0, 1)
        assert client.listplaylist("p") == ["Album B/02 Five.mp3", "Album A/03 Three.mp3", A1, A2, LONG]
        client.rename("p", "q")
        client.playlistclear("q")
        assert [entry["playlist"] for entry in client.listplaylists()] == ["q"]
        client.searchaddpl("r", "title", "o")
        assert client.listplaylist("r") == [A1, A2, "Album B/01 Four.flac", LONG]
        with pytest.raises(mpd.CommandError, match=r"\[50@0\] \{listplaylistinfo\} No such playlist"):
            client.listplaylistinfo("nope")

        client.replay_gain_mode("auto")
        client.crossfade(2)
        client.mixrampdb(-17)
        client.mixrampdelay(2)
        status = client.status()
        assert (client.replay_gain_status(), status["xfade"], status["mixrampdb"], status["mixrampdelay"]) == \
            ("auto", "2", "-17", "2")
    finally:
        client.disconnect()
