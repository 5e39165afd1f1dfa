"""Partitions (§2.10): `partition`, `listpartitions`, `newpartition`, `delpartition`,
`moveoutput`, each with its bad inputs; per-partition queues, players, mixers and outputs;
idle events kept to the partition they belong to; and, beyond MPD, partitions kept across a
restart in the state file.

The command tests run against Tonearm and Debian's MPD 0.23 (the answers are the same in
0.24). Where 0.23 and 0.24 differ (0.24 keeps idle `player`, and the `output` of enabling or
disabling an output, inside the partition; 0.23 sends them to everyone), and for the state file
beyond MPD, the test is Tonearm's alone and says why."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support import audio  # noqa: E402
from support.library import tonearm_only  # noqa: E402
from support.playback import (A1, A2, B1, LONG, brief, entries, pending_events, queue_uris,  # noqa: E402
                              status, wait_elapsed, wait_state, wait_status)

TWO_NULLS = audio.null_output("one") + audio.null_output("two", extra=' mixer_type "software"\n')


def outputs(c) -> list[tuple[str, str, str, str]]:
    """`outputs` as (id, name, plugin, enabled) tuples."""
    lines = c.command("outputs")
    assert lines[-1] == "OK", lines
    values = [line.split(": ", 1)[1] for line in lines[:-1] if not line.startswith("attribute: ")]
    return [tuple(values[i:i + 4]) for i in range(0, len(values), 4)]


def test_new_list_switch_and_their_errors(server):
    with server.connect() as c:
        assert c.command("listpartitions") == ["partition: default", "OK"]
        assert c.command("newpartition x") == ["OK"]
        assert c.command("newpartition x") == ["ACK [56@0] {newpartition} name already exists"]
        assert c.command("newpartition bad.name") == ["ACK [2@0] {newpartition} bad name"]
        assert c.command('newpartition ""') == ["ACK [2@0] {newpartition} bad name"]
        assert c.command('newpartition "with space"') == ["ACK [2@0] {newpartition} bad name"]
        assert c.command("newpartition") == ["ACK [2@0] {newpartition} wrong number of arguments for \"newpartition\""]
        assert c.command("newpartition A-b_9") == ["OK"]
        assert c.command("listpartitions") == ["partition: default", "partition: x", "partition: A-b_9", "OK"]
        assert c.command("listpartitions x") == [
            "ACK [2@0] {listpartitions} wrong number of arguments for \"listpartitions\""]
        assert c.command("partition nope") == ["ACK [50@0] {partition} partition does not exist"]
        assert status(c)["partition"] == "default"
        assert c.command("partition x") == ["OK"]
        assert status(c)["partition"] == "x"
        assert c.command("partition default") == ["OK"]
        assert status(c)["partition"] == "default"


def test_too_many_partitions(server):
    with server.connect() as c:
        for number in range(15):
            assert c.command(f"newpartition p{number}") == ["OK"], number
        assert c.command("newpartition p15") == ["ACK [5@0] {newpartition} too many partitions"]
        # The checks come in MPD's order: the name first, then the limit.
        assert c.command("newpartition p0") == ["ACK [56@0] {newpartition} name already exists"]
        assert c.command("newpartition bad.name") == ["ACK [2@0] {newpartition} bad name"]
        assert c.command("delpartition p3") == ["OK"]
        assert c.command("newpartition p15") == ["OK"]
        assert len(c.command("listpartitions")) == 17


def test_delpartition_and_its_refusals(server):
    with server.connect() as c, server.connect() as other:
        assert c.command("delpartition default") == ["ACK [5@0] {delpartition} cannot delete the default partition"]
        assert c.command("delpartition nope") == ["ACK [50@0] {delpartition} no such partition"]
        assert c.command("delpartition bad.name") == ["ACK [2@0] {delpartition} bad name"]
        assert c.command("newpartition x") == ["OK"]
        assert other.command("partition x") == ["OK"]
        assert c.command("delpartition x") == ["ACK [5@0] {delpartition} partition still has clients"]
        assert other.command("partition default") == ["OK"]
        assert c.command("delpartition x") == ["OK"]
        assert c.command("listpartitions") == ["partition: default", "OK"]
        assert other.command("partition x") == ["ACK [50@0] {partition} partition does not exist"]
    # A client that leaves leaves its partition too.
    with server.connect() as c:
        assert c.command("newpartition y") == ["OK"]
        with server.connect() as leaving:
            assert leaving.command("partition y") == ["OK"]
        # The server notices the close in its own time.
        deadline = time.monotonic() + 20
        while c.command("delpartition y") != ["OK"]:
            assert time.monotonic() < deadline, "the closed client still counts"
            time.sleep(0.05)
        assert c.command("listpartitions") == ["partition: default", "OK"]


def test_partition_commands_need_their_permissions(make_server):
    server = make_server('password "secret@read"\ndefault_permissions "read"\n')
    with server.connect() as c:
        assert c.command("listpartitions") == ["partition: default", "OK"]
        assert c.command("newpartition x") == ["ACK [4@0] {newpartition} you don't have permission for \"newpartition\""]
        assert c.command("delpartition x") == ["ACK [4@0] {delpartition} you don't have permission for \"delpartition\""]
        assert c.command("moveoutput null") == ["ACK [4@0] {moveoutput} you don't have permission for \"moveoutput\""]
        assert c.command("partition default") == ["OK"]


def test_partition_idle_reaches_every_client(server):
    with server.connect() as c, server.connect() as watcher, server.connect() as elsewhere:
        assert c.command("newpartition x") == ["OK"]
        assert pending_events(watcher, "partition") == ["partition"]
        assert pending_events(elsewhere, "partition") == ["partition"]
        assert elsewhere.command("partition x") == ["OK"]
        watcher.send("idle partition\n")
        assert watcher.nothing_within(0.2)
        assert c.command("delpartition x") == ["ACK [5@0] {delpartition} partition still has clients"]
        assert elsewhere.command("partition default") == ["OK"]
        assert c.command("delpartition x") == ["OK"]
        assert watcher.read_response() == ["changed: partition", "OK"]
        assert pending_events(elsewhere, "partition") == ["partition"]
        # Failed commands raise nothing.
        assert c.command("newpartition bad.name")[0].startswith("ACK")
        assert pending_events(watcher, "partition") == []


def test_switching_marks_the_partition_state_pending(server):
    """`partition NAME` makes the client reload: playlist, player, mixer, output and options
    are pending for it afterwards (without waking an idle, which it cannot be in)."""
    with server.connect() as c:
        assert c.command("newpartition x") == ["OK"]
        pending_events(c)
        assert c.command("partition x") == ["OK"]
        assert pending_events(c) == ["playlist", "player", "mixer", "output", "options"]


def test_naming_the_partition_a_client_is_in_marks_nothing(server):
    """Cantata sends `partition "default"` on each of its two connections when it starts; a
    client that stays where it is has nothing to reload, and MPD marks nothing pending
    (`Client::SetPartition`). Tonearm made Cantata reload its queue, status and outputs."""
    state = "playlist player mixer output options"  # not `update`: the first scan may still end
    with server.connect() as c:
        assert c.command('partition "default"') == ["OK"]
        assert pending_events(c, state) == []
        assert c.command("newpartition x") == ["OK"]
        assert c.command("partition x") == ["OK"]
        assert pending_events(c, state) == state.split()
        assert c.command("partition x") == ["OK"]
        assert pending_events(c, state) == []


def test_each_partition_has_its_own_queue_and_options(player_server):
    with player_server.connect() as c, player_server.connect() as d:
        assert c.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert c.command(f'add "{A1}"') == ["OK"]
        assert d.command(f'add "{B1}"') == ["OK"]
        assert d.command(f'add "{A2}"') == ["OK"]
        assert d.command("repeat 1") == ["OK"]
        assert queue_uris(c) == [A1]
        assert queue_uris(d) == [B1, A2]
        assert brief(d.command("playlistinfo")) == entries((B1, 1), (A2, 2))
        assert status(c)["repeat"] == "0" and status(d)["repeat"] == "1"
        assert status(c)["playlistlength"] == "1" and status(d)["playlistlength"] == "2"


def test_queue_and_option_events_stay_in_their_partition(player_server):
    with player_server.connect() as c, player_server.connect() as d, player_server.connect() as other:
        assert c.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        pending_events(d)
        pending_events(other)
        other.send("idle playlist options\n")
        assert d.command(f'add "{A1}"') == ["OK"]
        assert d.command("random 1") == ["OK"]
        assert other.nothing_within(0.3)
        assert pending_events(d, "playlist options") == ["playlist", "options"]
        assert c.command(f'add "{A1}"') == ["OK"]
        assert other.read_response() == ["changed: playlist", "OK"]


def test_player_events_stay_in_their_partition(make_player_server):
    """0.24 keeps idle `player` to the partition (0.23 still sends it to every client)."""
    server = make_player_server()
    tonearm_only(server, "0.24 keeps idle player to the player's partition (NEWS 0.24: limit \"player\" idle "
                         "events to the current partition; commit 4f8b4c605 player/Control: Change idle events "
                         "from global to partition scope); 0.23's player raises it with the global idle_add")
    with server.connect() as c, server.connect() as d:
        assert d.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert d.command(f'add "{A1}"') == ["OK"]
        pending_events(c)
        c.send("idle player mixer\n")
        assert d.command("play") == ["OK"]
        assert d.command("stop") == ["OK"]
        assert c.nothing_within(0.3)
        assert pending_events(d, "player") == ["player"]
        c.send("noidle\n")
        assert c.read_response() == ["OK"]


def test_moveoutput_lists_stand_ins_as_mpd_does(make_player_server):
    server = make_player_server(output=TWO_NULLS)
    with server.connect() as c, server.connect() as d:
        assert outputs(c) == [("0", "one", "null", "1"), ("1", "two", "null", "1")]
        assert c.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert outputs(d) == []
        assert d.command("moveoutput nope") == ["ACK [50@0] {moveoutput} No such output"]
        assert d.command("moveoutput") == ["ACK [2@0] {moveoutput} wrong number of arguments for \"moveoutput\""]
        assert d.command("moveoutput two") == ["OK"]
        assert outputs(d) == [("0", "two", "null", "1")]
        assert outputs(c) == [("0", "one", "null", "1"), ("1", "two", "dummy", "0")]
        # Moving it where it is changes nothing.
        assert d.command("moveoutput two") == ["OK"]
        assert outputs(d) == [("0", "two", "null", "1")]
        assert c.command("delpartition x") == ["ACK [5@0] {delpartition} partition still has clients"]
        assert d.command("disableoutput 0") == ["OK"]
        assert d.command("enableoutput 1") == ["ACK [50@0] {enableoutput} No such audio output"]
        assert d.command("moveoutput one") == ["OK"]
        assert outputs(d) == [("0", "two", "null", "0"), ("1", "one", "null", "1")]
        assert outputs(c) == [("0", "one", "dummy", "0"), ("1", "two", "dummy", "0")]
        # The stand-in remembers a state of its own, as MPD's dummy does.
        assert c.command("enableoutput 1") == ["OK"]
        assert outputs(c) == [("0", "one", "dummy", "0"), ("1", "two", "dummy", "1")]
        # Back home, each takes its old place and keeps the state it had in x.
        assert c.command("moveoutput two") == ["OK"]
        assert c.command("moveoutput one") == ["OK"]
        assert outputs(c) == [("0", "one", "null", "1"), ("1", "two", "null", "0")]
        assert outputs(d) == [("0", "two", "dummy", "0"), ("1", "one", "dummy", "0")]
        assert d.command("partition default") == ["OK"]
        assert c.command("delpartition x") == ["OK"]


def test_a_partition_with_outputs_cannot_be_deleted(make_player_server):
    server = make_player_server(output=TWO_NULLS)
    with server.connect() as c:
        assert c.command("newpartition x") == ["OK"]
        assert c.command("partition x") == ["OK"]
        assert c.command("moveoutput one") == ["OK"]
        assert c.command("partition default") == ["OK"]
        assert c.command("delpartition x") == ["ACK [5@0] {delpartition} partition still has outputs"]
        assert c.command("moveoutput one") == ["OK"]
        assert c.command("delpartition x") == ["OK"]


def test_moveoutput_raises_output_everywhere_and_moves_the_mixer(make_player_server):
    server = make_player_server(output=TWO_NULLS)
    with server.connect() as c, server.connect() as d, server.connect() as third:
        assert c.command("newpartition x") == ["OK"]
        assert c.command("newpartition y") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert third.command("partition y") == ["OK"]
        for client in (c, d, third):
            pending_events(client)
        # (No `status` in the default partition before the move: MPD would answer the next
        # one from its one-second volume cache.)
        assert "volume" not in status(d)
        assert d.command("setvol 50") == ["ACK [5@0] {setvol} No mixer"]
        assert d.command("moveoutput two") == ["OK"]
        for client in (c, d, third):
            assert "output" in pending_events(client, "output")
        # "two" had the software mixer: the volume went with it. (MPD may still answer from
        # its one-second volume cache, filled by the fixture's scan wait.)
        wait_status(c, lambda s: "volume" not in s, what="no volume")
        assert c.command("setvol 50") == ["ACK [5@0] {setvol} No mixer"]
        assert status(d)["volume"] == "100"
        assert d.command("setvol 40") == ["OK"]
        assert status(d)["volume"] == "40"


def test_enable_and_disable_raise_output_in_the_partition_only(make_player_server):
    server = make_player_server(output=TWO_NULLS)
    tonearm_only(server, "0.24 raises enable/disable/toggleoutput's idle output in the output's partition only "
                         "(commit 553c2e9e2 output/Command: trigger IDLE_OUTPUT only for the current partition, "
                         "MPD issue #1622; not in NEWS); 0.23's OutputCommand.cxx uses the global idle_add")
    with server.connect() as c, server.connect() as d:
        assert d.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert d.command("moveoutput one") == ["OK"]
        pending_events(c)
        pending_events(d)
        assert d.command("disableoutput 0") == ["OK"]
        assert pending_events(d, "output") == ["output"]
        assert pending_events(c, "output") == []


def test_two_partitions_play_at_the_same_time(make_player_server):
    """Each partition's player runs on its own output: elapsed advances in both at once."""
    server = make_player_server(output=TWO_NULLS)
    with server.connect() as c, server.connect() as d:
        assert d.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert d.command("moveoutput two") == ["OK"]
        assert c.command(f'add "{LONG}"') == ["OK"]
        assert d.command(f'add "{A1}"') == ["OK"]
        assert d.command(f'add "{LONG}"') == ["OK"]
        assert d.command("play 1") == ["OK"]
        assert c.command("play") == ["OK"]
        wait_elapsed(c, 1.0)
        wait_elapsed(d, 1.0)
        assert status(c)["song"] == "0" and status(d)["song"] == "1"
        assert c.command("pause 1") == ["OK"]
        assert wait_state(c, "pause")
        # Pausing one leaves the other playing.
        first = float(status(d)["elapsed"])
        wait_elapsed(d, first + 0.5)
        assert status(c)["state"] == "pause"


def test_a_partition_without_outputs_pauses_with_mpds_error(make_player_server):
    """As MPD: `play` in a partition that holds no output is accepted, then the player pauses
    on the song with `All audio outputs are disabled`; an output moved in lets it play. (MPD
    sometimes finds out before `play` answers, and answers with that error as an ACK; Tonearm
    always answers OK.)"""
    server = make_player_server(output=TWO_NULLS)
    with server.connect() as c:
        assert c.command("newpartition x") == ["OK"]
        assert c.command("partition x") == ["OK"]
        assert c.command(f'add "{LONG}"') == ["OK"]
        answers = [["OK"]] + ([["ACK [5@0] {play} All audio outputs are disabled"]] if server.kind == "mpd" else [])
        assert c.command("play") in answers
        if server.kind == "tonearm":
            # The pause and its error come together, from the first status after `play`.
            first = status(c)
            assert first["state"] == "pause" and first.get("error") == "All audio outputs are disabled"
        paused = wait_status(c, lambda s: s["state"] == "pause" and "error" in s, what="the pause and its error")
        assert paused["song"] == "0" and paused["error"] == "All audio outputs are disabled"
        assert c.command("moveoutput one") == ["OK"]
        assert c.command("play") == ["OK"]
        wait_elapsed(c, 0.5)
        assert "error" not in status(c)


def test_partitions_play_different_audio_to_their_outputs(make_audio_server, audio_library, tmp_path):
    """Two pipe outputs, one per partition, each playing its own queue: each file gets
    exactly its partition's song."""
    first, second = tmp_path / "first.pcm", tmp_path / "second.pcm"
    server = make_audio_server(audio.pipe_output(first, name="first") + audio.pipe_output(second, name="second"))
    with server.connect() as c, server.connect() as d:
        assert d.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert d.command("moveoutput second") == ["OK"]
        assert c.command('add "long.flac"') == ["OK"]
        assert d.command('add "tone.flac"') == ["OK"]
        assert d.command("play") == ["OK"]
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
        wait_state(d, "stop")
        assert "error" not in status(c) and "error" not in status(d)
    long_pcm = audio.decode(audio_library.music / "long.flac")
    tone_pcm = audio.decode(audio_library.music / "tone.flac")
    assert audio.read_settled(first, len(long_pcm)) == long_pcm
    assert audio.read_settled(second, len(tone_pcm)) == tone_pcm


def keep_partitions_then_restart(server):
    """Gives the server two more partitions, one playing on the output it took, then stops it
    with SIGTERM and starts it again on the same state file."""
    with server.connect() as c, server.connect() as d:
        for command in [f'add "{A1}"', f'add "{A2}"', "newpartition x", "newpartition empty"]:
            assert c.command(command) == ["OK"], command
        for command in ["partition x", "moveoutput two", f'add "{B1}"', f'add "{LONG}"', "repeat 1", "prio 7 0",
                        "play 1"]:
            assert d.command(command) == ["OK"], command
        wait_elapsed(d, 0.5)
        assert d.command("pause 1") == ["OK"]
        wait_state(d, "pause")
        paused_at = float(status(d)["elapsed"])
    server.stop()
    return paused_at


def test_partitions_their_queues_and_outputs_survive_a_restart(make_player_server):
    server = make_player_server(output=TWO_NULLS)
    tonearm_only(server, "partitions in the state file are Tonearm's: MPD's StateFile (0.23.12 and 0.24.13 "
                         "alike) writes and reads the default partition only", beyond_mpd=True)
    paused_at = keep_partitions_then_restart(server)
    server.start()
    with server.connect() as c:
        assert c.command("listpartitions") == ["partition: default", "partition: x", "partition: empty", "OK"]
        assert queue_uris(c) == [A1, A2]
        assert outputs(c) == [("0", "one", "null", "1"), ("1", "two", "dummy", "0")]
        assert "volume" not in status(c)
        assert c.command("partition x") == ["OK"]
        assert brief(c.command("playlistinfo")) == entries((B1, 1, 7), (LONG, 2))
        assert outputs(c) == [("0", "two", "null", "1")]
        restored = status(c)
        assert restored["state"] == "pause" and restored["song"] == "1" and restored["repeat"] == "1"
        assert abs(float(restored["elapsed"]) - paused_at) < 0.01
        assert restored["volume"] == "100"
        # It plays on from there, on its output.
        assert c.command("pause 0") == ["OK"]
        wait_elapsed(c, paused_at + 0.5)
        assert c.command("partition empty") == ["OK"]
        assert queue_uris(c) == [] and outputs(c) == []


def test_a_change_in_another_partition_is_written_at_once(make_player_server):
    """Another partition's queue raises its idle events for that partition's clients only; the
    state file follows them too, so the change is in the file within a second or so (it would
    otherwise wait for the half-minute check) and outlives SIGKILL."""
    server = make_player_server(output=TWO_NULLS)
    tonearm_only(server, "partitions in the state file are Tonearm's", beyond_mpd=True)
    with server.connect() as c:
        assert c.command("newpartition x") == ["OK"]
        assert c.command("partition x") == ["OK"]
        time.sleep(1)  # the new partition is written, and the service sleeps until the next event
        assert c.command(f'add "{B1}"') == ["OK"]
    state = server.workdir / "state"
    deadline = time.monotonic() + 10
    while B1 not in state.read_text():
        assert time.monotonic() < deadline, "the partition's queue was not written within 10 s"
        time.sleep(0.1)
    server.process.kill()
    server.process.wait(timeout=20)
    server.start()
    with server.connect() as c:
        assert c.command("partition x") == ["OK"]
        assert queue_uris(c) == [B1]


def test_mpd_reads_the_default_partition_from_tonearms_state_file(make_player_server, tmp_path):
    """The other partitions' blocks are Tonearm's extension: MPD skips them and restores the
    default partition from the same file."""
    from support.library import wait_for_scan
    from support.servers import MPDServer
    server = make_player_server(output=TWO_NULLS)
    tonearm_only(server, "MPD reading the partition blocks of a Tonearm state file, with an MPD the test "
                         "starts itself; the MPD run has no Tonearm to write one", beyond_mpd=True)
    keep_partitions_then_restart(server)
    text = (server.workdir / "state").read_text()
    assert "partition_begin: x\n" in text
    mpd = MPDServer(tmp_path / "mpd-reader", music_dir=server.music_dir, output=TWO_NULLS)
    with mpd:
        with mpd.connect() as c:
            wait_for_scan(c)
    (mpd.workdir / "state").write_text(text)
    with mpd:
        with mpd.connect() as c:
            assert queue_uris(c) == [A1, A2]
            assert c.command("listpartitions") == ["partition: default", "OK"]
            assert status(c)["state"] == "stop"
            assert outputs(c) == [("0", "one", "null", "1"), ("1", "two", "null", "1")]


def test_an_alsa_device_moves_between_partitions(make_audio_server, audio_library, tmp_path):
    """A real ALSA device (the `null` PCM) closes in one partition's pipeline and opens in
    another's: each partition plays its song through it without an error, while the default
    partition's pipe output still receives exactly its own song."""
    capture = tmp_path / "pcm.raw"
    card = 'audio_output {\n type "alsa"\n name "card"\n device "null"\n mixer_type "none"\n}\n'
    server = make_audio_server(audio.pipe_output(capture, name="first") + card)
    with server.connect() as c, server.connect() as d:
        assert d.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert d.command("moveoutput card") == ["OK"]
        assert outputs(d) == [("0", "card", "alsa", "1")]
        assert d.command('add "tone.flac"') == ["OK"]
        assert c.command('add "long.flac"') == ["OK"]
        assert d.command("play") == ["OK"]
        assert c.command("play") == ["OK"]
        wait_state(d, "stop")
        wait_state(c, "stop")
        assert "error" not in status(d) and "error" not in status(c)
        assert c.command("moveoutput card") == ["OK"]
        assert outputs(c) == [("0", "first", "pipe", "1"), ("1", "card", "alsa", "1")]
        assert c.command("play") == ["OK"]
        wait_state(c, "stop")
        assert "error" not in status(c)
    long_pcm = audio.decode(audio_library.music / "long.flac")
    assert audio.read_settled(capture, 2 * len(long_pcm)) == long_pcm + long_pcm


def test_channels_belong_to_the_partition(server):
    """Client-to-client messages stay inside a partition: another partition's clients see
    neither its channels nor its subscribers."""
    with server.connect() as c, server.connect() as d:
        assert c.command("subscribe news") == ["OK"]
        assert c.command("newpartition x") == ["OK"]
        assert d.command("partition x") == ["OK"]
        assert d.command("channels") == ["OK"]
        assert d.command("sendmessage news hello") == [
            "ACK [50@0] {sendmessage} nobody is subscribed to this channel"]
        assert d.command("partition default") == ["OK"]
        assert d.command("channels") == ["channel: news", "OK"]
        assert d.command("sendmessage news hello") == ["OK"]
        assert c.command("readmessages") == ["channel: news", "message: hello", "OK"]
