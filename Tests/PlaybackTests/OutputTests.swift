import Dispatch
import Foundation
import Glibc
import Settings
import Synchronization
import Testing

@testable import Playback

/// The output devices against real ALSA, real processes and real FIFOs, with no sound card:
/// ALSA's `null` PCM and its `file` PCM (`file:FILE=…,FORMAT=raw`, defined in alsa-lib's
/// global configuration, which writes what it is given to a file before passing it to `null`).
/// Nothing here measures time; pacing is checked through the counts the devices report.
@Suite struct OutputTests {
    /// A fresh directory for one test's files.
    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-outputs-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Distinct, non-periodic-looking bytes, so that a lost or repeated chunk shows.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) }
    }

    /// Writes `bytes` in chunks of `chunk` and returns the bytes taken.
    static func play(_ bytes: [UInt8], to device: any AudioOutputDevice, chunk: Int = 4096) throws(OutputError) -> Int {
        var taken = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            let result: Result<Int, OutputError> = bytes.withUnsafeBytes { raw in
                Result { () throws(OutputError) -> Int in
                    try device.write(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
                }
            }
            taken += try result.get()
            offset = end
        }
        return taken
    }

    static func make(_ type: String, _ settings: [String: String] = [:], format: String? = nil) throws(OutputError)
        -> any AudioOutputDevice
    {
        try OutputFactory.make(
            AudioOutputConfiguration(type: type, name: "test \(type)", format: format, settings: settings))
    }

    // MARK: ALSA

    @Test(arguments: [
        PCMFormat.cd,
        PCMFormat(sampleRate: 48000, sample: .s24, channels: 2),
        PCMFormat(sampleRate: 96000, sample: .s32, channels: 2),
        PCMFormat(sampleRate: 44100, sample: .float, channels: 1),
    ])
    func alsaFilePCMReceivesTheBytesUnchanged(format: PCMFormat) throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/out.raw"
        let device = try Self.make("alsa", ["device": "file:FILE=\(path),FORMAT=raw"])
        #expect(device.plugin == "alsa")
        #expect(try device.open(format: format) == format)
        let bytes = Self.pattern(format.frameSize * 20_000)
        #expect(try Self.play(bytes, to: device) == bytes.count)
        device.drain()
        device.close()
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
    }

    @Test func alsaNullPCMPausesResumesAndCancels() throws {
        let device = try Self.make("alsa", ["device": "null"])
        #expect(try device.open(format: .cd) == .cd)
        #expect((device as? ALSAOutput)?.negotiated?.canPause == true, "so pause() below is snd_pcm_pause")
        let second = Self.pattern(PCMFormat.cd.bytesPerSecond)
        #expect(try Self.play(second, to: device) == second.count)
        #expect(device.pause())
        #expect(try Self.play(Array(second.prefix(4096)), to: device) == 4096)
        device.cancel()
        #expect(device.pause())
        #expect(try Self.play(second, to: device) == second.count)
        device.drain()
        device.close()
        // Open again after close: the output thread reopens on the next play.
        #expect(try device.open(format: .cd) == .cd)
        device.close()
    }

    @Test func alsaTakesWholeFramesOnly() throws {
        let device = try Self.make("alsa", ["device": "null"])
        _ = try device.open(format: .cd)
        defer { device.close() }
        #expect(try Self.play(Self.pattern(4095), to: device) == 4092)
    }

    @Test func alsaForcedFormatIsWhatOpens() throws {
        let device = try Self.make("alsa", ["device": "null"], format: "48000:24:*")
        let opened = try device.open(format: .cd)
        #expect(opened == PCMFormat(sampleRate: 48000, sample: .s24, channels: 2))
        #expect((device as? ALSAOutput)?.negotiated?.format == opened)
        device.close()
    }

    @Test func alsaMissingDeviceNamesIt() throws {
        let device = try Self.make("alsa", ["device": "hw:99"])
        let error = #expect(throws: OutputError.self) { try device.open(format: .cd) }
        #expect(error?.message.hasPrefix("Failed to open ALSA device \"hw:99\": ") == true)
        #expect(error?.code != nil)

        let named = try Self.make("alsa", ["device": "no_such_pcm"])
        let second = #expect(throws: OutputError.self) { try named.open(format: .cd) }
        #expect(second?.message == "Failed to open ALSA device \"no_such_pcm\": No such file or directory")
    }

    @Test func alsaHardwareMixerOnlyForHardwareMixerType() throws {
        #expect(try Self.make("alsa", ["device": "null"]).hardwareMixer != nil)
        let software = try OutputFactory.make(
            AudioOutputConfiguration(type: "alsa", name: "a", mixerType: .software, settings: ["device": "null"]))
        #expect(software.hardwareMixer == nil)
        let byDefault = try OutputFactory.make(
            AudioOutputConfiguration(type: "alsa", name: "a", settings: ["device": "null"]), defaultMixerType: .none)
        #expect(byDefault.hardwareMixer == nil)
        #expect(try Self.make("null").hardwareMixer == nil)
    }

    @Test func pulseOutputAndItsMixer() throws {
        let device = try Self.make("pulse", ["scale_volume": "2"])
        #expect(device.plugin == "pulse")
        let mixer = try #require(device.hardwareMixer)
        // Closed: the level is kept for the next stream, and read back with MPD's arithmetic
        // (scaled by 2: 40 % is 0.8 × PA_VOLUME_NORM, which reads back as 40).
        try mixer.setVolume(40)
        #expect(try mixer.volume() == 40)
        let refused = #expect(throws: OutputError.self) { try Self.make("pulse", ["scale_volume": "0.1"]) }
        #expect(refused?.message == "\"0.1\" is not a number in the range 0.5 to 5.0")
        // Without a server to connect to, open fails with libpulse's reason.
        let nowhere = try Self.make("pulse", ["server": "unix:/nonexistent/native"])
        let failed = #expect(throws: OutputError.self) { _ = try nowhere.open(format: .cd) }
        #expect(failed?.message.hasPrefix("failed to connect to the PulseAudio server: ") == true)
    }

    @Test func alsaMixerOnAMissingCardFailsAsMPDSays() throws {
        let device = try Self.make("alsa", ["device": "null", "mixer_device": "hw:99"])
        let mixer = try #require(device.hardwareMixer)
        let error = #expect(throws: OutputError.self) { try mixer.setVolume(50) }
        #expect(error?.message.hasPrefix("failed to attach to hw:99: ") == true)
        // A failed open is retried on the next call, and fails the same way.
        let again = #expect(throws: OutputError.self) { _ = try mixer.volume() }
        #expect(again?.message == error?.message)
    }

    @Test func alsaMixerDeviceDefaultsToTheOutputsCard() {
        #expect(ALSAMixer.defaultDevice(forPCM: "hw:1,0") == "hw:1")
        #expect(ALSAMixer.defaultDevice(forPCM: "plughw:CARD=DAC,DEV=0") == "hw:CARD=DAC")
        #expect(ALSAMixer.defaultDevice(forPCM: "hw:2") == "hw:2")
        #expect(ALSAMixer.defaultDevice(forPCM: "default") == "default")
        #expect(ALSAMixer.defaultDevice(forPCM: "dmix:0") == "default")
    }

    @Test func alsaVolumeMappingFollowsAlsamixer() {
        // Raw, linear: a 0…255 control.
        #expect(ALSAVolumeMapping.percent(ALSAVolumeMapping.normalized(raw: 128, min: 0, max: 255)) == 50)
        #expect(ALSAVolumeMapping.raw(forNormalized: 0.5, min: 0, max: 255) == 128)
        // A span of 24 dB or less is linear in dB.
        #expect(ALSAVolumeMapping.normalized(dB: -1200, min: -2400, max: 0) == 0.5)
        #expect(ALSAVolumeMapping.dB(forNormalized: 0.5, min: -2400, max: 0) == -1200)
        // A wide span is cubic: half way on a −60…0 dB control is about −15.6 dB.
        #expect(ALSAVolumeMapping.dB(forNormalized: 0.5, min: -6000, max: 0) == -1557)
        #expect(ALSAVolumeMapping.percent(ALSAVolumeMapping.normalized(dB: -1800, min: -6000, max: 0)) == 45)
        #expect(ALSAVolumeMapping.normalized(dB: 0, min: ALSAVolumeMapping.gainMute, max: 0) == 1)
        // Every percent survives a round trip on a fine control.
        for percent in 0...100 {
            let value = ALSAVolumeMapping.dB(forNormalized: Double(percent) / 100, min: -10_000, max: 600)
            #expect(
                ALSAVolumeMapping.percent(ALSAVolumeMapping.normalized(dB: value, min: -10_000, max: 600)) == percent)
        }
    }

    // MARK: pipe

    @Test func pipeIntoCatWritesTheSameBytes() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pipe.raw"
        let device = try Self.make("pipe", ["command": "cat > '\(path)'"])
        #expect(device.plugin == "pipe")
        #expect(try device.open(format: .cd) == .cd)
        let bytes = Self.pattern(300_000)
        #expect(try Self.play(bytes, to: device, chunk: 4000) == bytes.count)
        #expect(device.pause() == false)
        device.close()
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
    }

    @Test func pipeWhoseCommandExitsIsAnErrorNotACrash() throws {
        let device = try Self.make("pipe", ["command": "exit 0"])
        _ = try device.open(format: .cd)
        defer { device.close() }
        let chunk = Self.pattern(4096)
        let error = #expect(throws: OutputError.self) {
            for _ in 0..<100_000 { _ = try Self.play(chunk, to: device) }
        }
        #expect(error?.message == "Write error on pipe: Broken pipe")
        #expect(error?.code == EPIPE)
        // The process still runs, and SIGPIPE is neither pending nor left blocked here.
        var pending = sigset_t()
        sigpending(&pending)
        #expect(sigismember(&pending, SIGPIPE) == 0)
    }

    @Test func pipeReopensItsCommand() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let device = try Self.make("pipe", ["command": "cat >> '\(directory)/twice.raw'"])
        for _ in 0..<2 {
            _ = try device.open(format: .cd)
            #expect(try Self.play(Self.pattern(1000), to: device) == 1000)
            device.close()
        }
        #expect(
            FileManager.default.contents(atPath: directory + "/twice.raw")
                == Data(Self.pattern(1000) + Self.pattern(1000)))
    }

    // MARK: fifo

    /// Reads a FIFO on its own thread until it has `count` bytes.
    final class FIFOReader: Sendable {
        let received = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)

        init(path: String, count: Int) {
            Thread.detachNewThread { [self] in
                let fd = Glibc.open(path, O_RDONLY)
                var buffer = [UInt8](repeating: 0, count: 65536)
                while fd >= 0, received.withLock({ $0.count }) < count {
                    let n = read(fd, &buffer, buffer.count)
                    if n <= 0 { break }
                    received.withLock { $0 += buffer[0..<n] }
                }
                if fd >= 0 { Glibc.close(fd) }
                done.signal()
            }
        }
    }

    @Test func fifoReaderGetsTheBytesAndTheCreatedFIFOGoesAway() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/snapfifo"
        let device = try Self.make("fifo", ["path": path])
        #expect(device.plugin == "fifo")
        #expect(try device.open(format: .cd) == .cd)
        #expect((device as? FifoOutput)?.createdFIFO == true)
        let bytes = Self.pattern(3 * 4096)
        let reader = FIFOReader(path: path, count: bytes.count)
        #expect(try Self.play(bytes, to: device) == bytes.count)
        #expect(reader.done.wait(timeout: .now() + 30) == .success)
        #expect(reader.received.withLock { $0 } == bytes)
        device.drain()
        device.close()
        #expect(FileManager.default.fileExists(atPath: path))
        (device as? FifoOutput)?.release()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func fifoWithoutReaderDropsInsteadOfBlocking() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let device = FifoOutput(path: path)
        // 6 MB/s, so that overfilling the 64 KiB pipe takes a few paced milliseconds.
        let format = PCMFormat(sampleRate: 192_000, sample: .float, channels: 8)
        _ = try device.open(format: format)
        #expect(device.createdFIFO == false)
        #expect(try Self.play(Self.pattern(5 * 65536), to: device, chunk: 65536) == 5 * 65536)
        device.cancel()
        device.close()
        device.release()
        #expect(FileManager.default.fileExists(atPath: path), "a FIFO it did not create stays")
    }

    @Test func fifoRefusesAFileThatIsNotAFIFO() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/regular"
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let device = try Self.make("fifo", ["path": path])
        let error = #expect(throws: OutputError.self) { try device.open(format: .cd) }
        #expect(error?.message == "\"\(path)\" already exists, but is not a FIFO")
    }

    // MARK: null and the factory

    @Test func nullWithSyncAccountsForRealTime() throws {
        let format = PCMFormat(sampleRate: 8000, sample: .s16, channels: 1)
        let device = try #require(try Self.make("null") as? NullOutput)
        #expect(device.sync)
        #expect(try device.open(format: format) == format)
        let fifth = Self.pattern(format.bytesPerSecond / 5)
        #expect(try Self.play(fifth, to: device, chunk: fifth.count) == 3200)
        #expect(try Self.play(fifth, to: device, chunk: fifth.count) == 3200)
        #expect(device.bytesWritten == 6400)
        #expect(device.playedDuration == .milliseconds(400))
        #expect(device.delay <= .milliseconds(200), "never more than one write ahead")
        #expect(try Self.play(Self.pattern(3), to: device) == 2, "whole frames only")
        device.cancel()
        #expect(device.bytesWritten == 0)
        #expect(device.pause())
        device.close()
    }

    @Test func nullWithoutSyncOnlyCounts() throws {
        let device = try #require(try Self.make("null", ["sync": "no"]) as? NullOutput)
        #expect(!device.sync)
        _ = try device.open(format: .cd)
        #expect(
            try Self.play(Self.pattern(PCMFormat.cd.bytesPerSecond * 10), to: device, chunk: 1 << 20) == PCMFormat.cd
                .bytesPerSecond * 10)
        #expect(device.playedDuration == .seconds(10))
        #expect(device.delay == .zero)
    }

    @Test func factoryRejectsWhatMPDRejects() {
        let cases: [(String, [String: String], String?, String)] = [
            ("oss", [:], nil, "No such audio output plugin: oss"),
            ("pipe", [:], nil, "No \"command\" parameter specified"),
            ("fifo", [:], nil, "No \"path\" parameter specified"),
            ("null", ["sync": "maybe"], nil, "sync: \"maybe\" is not a boolean (yes or no)"),
            ("null", [:], "44100:17:2", "Failed to parse audio format \"44100:17:2\""),
            ("alsa", ["buffer_time": "soon"], nil, "buffer_time: \"soon\" is not a number from 1 to 4294967295"),
        ]
        for (type, settings, format, message) in cases {
            let error = #expect(throws: OutputError.self) { _ = try Self.make(type, settings, format: format) }
            #expect(error?.message == message)
        }
    }

    /// `outputset`: ALSA takes `dop` and `allowed_formats` (with the format parser's reason
    /// when one is wrong), the other plugins nothing.
    @Test func attributesRefuseWhatMPDRefuses() throws {
        let alsa = ALSAOutput(device: "null")
        #expect(throws: OutputAttributeError.invalidDoP) { try alsa.setAttribute(name: "dop", value: "yes") }
        #expect(throws: OutputAttributeError.invalidAllowedFormat(reason: "Invalid sample format: 17")) {
            try alsa.setAttribute(name: "allowed_formats", value: "44100:16:2 44100:17:2")
        }
        #expect(throws: OutputAttributeError.unsupported) { try alsa.setAttribute(name: "mixer", value: "1") }
        try alsa.setAttribute(name: "dop", value: "1")
        #expect(alsa.attributes.contains(OutputAttribute(name: "dop", value: "1")))
        #expect(throws: OutputAttributeError.unsupported) {
            try NullOutput(name: "null").setAttribute(name: "dop", value: "1")
        }
    }
}
