import Foundation
import MusicModel
import Testing

@testable import Playback

@Suite struct StateFileTests {
    /// A state file as Debian's MPD 0.23.12 wrote it, line for line (a paused song in random
    /// mode with `single oneshot`, `consume 1`, `crossfade 3`, `mixrampdb -17.5`, `setvol 80` on
    /// a software mixer, `prio 7 1`, and `rangeid 4 1.5:20` on the last song): `%f` numbers, no
    /// `lastloadedplaylist`, modes as numbers, so `single: 2` for oneshot, `mixrampdelay:
    /// -1.000000` for off, and the ranged song in a `song_begin` block with its tags.
    static let mpdFile = """
        sw_volume: 80
        audio_device_state:1:null
        state: pause
        current: 3
        time: 10.501000
        random: 1
        repeat: 0
        single: 2
        consume: 1
        crossfade: 3
        mixrampdb: -17.500000
        mixrampdelay: -1.000000
        playlist_begin
        0:Album A/01 One.flac
        Prio: 7
        1:Album A/02 Two.flac
        2:Album A/03 Three.mp3
        song_begin: Long/long.flac
        Range: 1500-20000
        Time: 120.000000
        Title: Long
        Artist: Gamma
        Album: Long
        Track: 1
        mtime: 1600518400
        song_end
        playlist_end

        """

    @Test func readsWhatMPDWrites() {
        let state = StateFile.parse(Self.mpdFile)
        #expect(state.softwareVolume == 80)
        #expect(state.outputs.count == 1 && state.outputs[0].name == "null" && state.outputs[0].enabled)
        #expect(state.state == .pause)
        #expect(state.current == 3)
        #expect(state.elapsed == 10.501)
        #expect(state.random && !state.repeatMode)
        #expect(state.single == .oneshot && state.consume == .on)
        #expect(state.crossfade == 3)
        #expect(state.mixRampDB == -17.5)
        #expect(state.mixRampDelay == -1)
        #expect(
            state.entries.map(\.uri)
                == ["Album A/01 One.flac", "Album A/02 Two.flac", "Album A/03 Three.mp3", "Long/long.flac"])
        #expect(state.entries.map(\.priority) == [0, 7, 0, 0])
        #expect(state.entries[3].range == SongTimeRange(start: 1.5, end: 20))
        #expect(state.entries[0...2].allSatisfy { $0.range.isWhole })
    }

    /// 0.23 writes `(int)queue.single` (`SingleMode::ONE_SHOT` is 2) and reads only `0`, `1` and
    /// `oneshot` back, so it restores nothing from its own file (MPD issue #1853); 0.24 writes
    /// `oneshot` and still cannot read `2`. What the number stands for is oneshot; anything else
    /// unknown is off, as before.
    @Test func singleTwoIsOneshotAndTheProtocolSpellingsStillRead() {
        #expect(StateFile.parse("single: 2\n").single == .oneshot)
        #expect(StateFile.parse("single: oneshot\n").single == .oneshot)
        #expect(StateFile.parse("single: 1\n").single == .on)
        #expect(StateFile.parse("single: 0\n").single == .off)
        #expect(StateFile.parse("single: 3\n").single == .off)
        // Tonearm writes the protocol's spelling, which 0.24 reads.
        var state = SavedPlayerState()
        state.single = .oneshot
        #expect(StateFile.render(state).contains("\nsingle: oneshot\n"))
    }

    /// Files of MPD before 0.18 say `nan` for "off"; the line is skipped, as MPD skips it.
    @Test func aNaNMixRampDelayIsSkipped() {
        #expect(StateFile.parse("mixrampdelay: 2.000000\nmixrampdelay: nan\n").mixRampDelay == 2)
    }

    @Test func roundTrips() {
        var state = StateFile.parse(Self.mpdFile)
        state.lastLoadedPlaylist = "Favourites"
        #expect(StateFile.parse(StateFile.render(state)) == state)
        let text = StateFile.render(state)
        #expect(text.contains("\nmixrampdb: -17.5\n"))
        #expect(text.contains("\nPrio: 7\n1:Album A/02 Two.flac\n"))
        #expect(text.hasSuffix("playlist_end\n"))
    }

    /// A stream keeps its tags in a `song_begin` block, as MPD's `song_save` writes songs
    /// outside its database; the tags in such a block of a file are the database's business.
    @Test func aStreamKeepsItsTags() {
        var state = SavedPlayerState()
        state.entries = [
            .init(
                uri: "http://radio.invalid/live", tags: [TagValue(.name, "Test FM"), TagValue(.title, "Two\nLines")]),
            .init(uri: "Album A/01 One.flac"),
        ]
        let text = StateFile.render(state)
        #expect(
            text.contains(
                "song_begin: http://radio.invalid/live\nName: Test FM\nTitle: Two Lines\nsong_end\n1:Album A/01 One.flac\n"
            ))
        let read = StateFile.parse(text)
        #expect(read.entries.map(\.uri) == ["http://radio.invalid/live", "Album A/01 One.flac"])
        #expect(read.entries[0].tags == [TagValue(.name, "Test FM"), TagValue(.title, "Two Lines")])
        #expect(read.entries[1].tags.isEmpty)
        #expect(StateFile.parse(Self.mpdFile).entries.allSatisfy { $0.tags.isEmpty })
    }

    @Test func garbageGivesTheDefaults() {
        let state = StateFile.parse("\u{0}\u{1}nonsense\nstate: dancing\ncurrent: -4\nplaylist_begin\nx\n")
        #expect(state.state == .stop)
        #expect(state.current == nil)
        #expect(state.entries.isEmpty)
    }

    /// MPD's line reader drops a `\r` before each line end; queue lines are `N:URI` with N
    /// digits only, and a URI keeps its colons and its non-ASCII bytes.
    @Test func linesAreReadAsMPDReadsThem() {
        let text =
            "state: pause\r\ncurrent: 1\r\nplaylist_begin\r\n0:a:b/Ünïcode.flac\r\n-1:minus.flac\n"
            + "x1:letter.flac\nPrio: 9\r\n12:second.flac\nplaylist_end\r\nrandom: 1\r\n"
        let state = StateFile.parse(text)
        #expect(state.state == .pause)
        #expect(state.current == 1)
        #expect(state.entries.map(\.uri) == ["a:b/Ünïcode.flac", "second.flac"])
        #expect(state.entries.map(\.priority) == [0, 9])
        #expect(state.random)
    }

    @Test func writeReplacesTheFileWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-state-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state").path
        var state = SavedPlayerState()
        state.entries = [.init(uri: "x.flac")]
        try StateFile.write(state, to: path)
        #expect(StateFile.read(from: path) == state)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["state"])
    }
}

/// The other partitions' blocks (Tonearm's extension of MPD's format).
@Suite struct PartitionStateFileTests {
    func sample() -> SavedServerState {
        var main = SavedPlayerState()
        main.entries = [.init(uri: "a.flac")]
        main.outputs = [("one", true)]
        var radio = SavedPlayerState()
        radio.state = .pause
        radio.current = 1
        radio.elapsed = 2.5
        radio.repeatMode = true
        radio.outputs = [("two", false)]
        radio.entries = [
            .init(uri: "b.flac", priority: 3), .init(uri: "c.flac", range: SongTimeRange(start: 1, end: 2)),
        ]
        return SavedServerState(
            main: main, partitions: [.init(name: "radio", state: radio), .init(name: "e", state: .init())])
    }

    @Test func blocksRoundTrip() {
        let state = sample()
        #expect(StateFile.parseServer(StateFile.render(state)) == state)
    }

    @Test func blocksComeAfterTheDefaultPartitionIndentedSoMPDSkipsThem() {
        let text = StateFile.render(sample())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = lines.firstIndex(of: "partition_begin: radio")!
        #expect(lines[..<begin].last == "playlist_end")
        #expect(lines[(begin + 1)...].allSatisfy { $0.hasPrefix("\t") || $0.hasPrefix("partition_") || $0.isEmpty })
        // Read as MPD's format, the file is the default partition alone.
        #expect(StateFile.parse(text).entries == [.init(uri: "a.flac")])
        #expect(StateFile.parse(text).state == .stop)
    }

    @Test func anMPDFileHasNoOtherPartitionAndAnUnfinishedBlockStillReads() {
        #expect(StateFile.parseServer("state: stop\nplaylist_begin\n0:a.flac\nplaylist_end\n").partitions.isEmpty)
        let cut = StateFile.parseServer(
            "state: stop\npartition_begin: r\n\tstate: pause\n\tplaylist_begin\n\t0:b.flac\n")
        #expect(cut.partitions.map(\.name) == ["r"])
        #expect(cut.partitions.first?.state.entries == [.init(uri: "b.flac")])
        #expect(StateFile.parseServer("partition_begin: \n\tstate: play\npartition_end\n").partitions.isEmpty)
    }

    @Test func newerMPDsPartitionSectionsAreRead() {
        let text = """
            sw_volume: 75
            audio_device_state:0:out
            state: stop
            playlist_begin
            0:a.flac
            playlist_end
            partition: secondary
            sw_volume: 40
            audio_device_state:1:out
            state: pause
            current: 0
            time: 3
            repeat: 1
            playlist_begin
            0:b.flac
            playlist_end
            partition: third
            state: stop
            """
        let state = StateFile.parseServer(text)
        #expect(state.main.softwareVolume == 75 && state.main.entries == [.init(uri: "a.flac")])
        #expect(state.partitions.map(\.name) == ["secondary", "third"])
        let secondary = state.partitions[0].state
        #expect(secondary.softwareVolume == 40 && secondary.state == .pause && secondary.repeatMode)
        #expect(secondary.entries == [.init(uri: "b.flac")])
        #expect(secondary.outputs.map(\.name) == ["out"] && secondary.outputs.map(\.enabled) == [true])
    }
}
