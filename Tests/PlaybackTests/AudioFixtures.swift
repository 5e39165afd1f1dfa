import Foundation

@testable import Playback

/// A temporary directory of audio files generated with the `ffmpeg` CLI, removed when the
/// fixture goes away, plus the reference decodes the decoder tests compare against.
final class AudioFixtures {
    /// Where the files are.
    let directory: URL

    /// Creates an empty temporary directory.
    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tonearm-decoder-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The absolute path of `name` in the directory.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `ffmpeg` quietly in the directory; throws when it fails.
    func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"] + arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError(arguments: arguments) }
    }

    /// A failed `ffmpeg` run.
    struct FixtureError: Error {
        var arguments: [String]
    }

    /// Two channels of rising tones (a chirp, so no stretch of it repeats and an offset shows
    /// as a mismatch), `seconds` long at `rate`, written as 16-bit WAV to `name`.
    @discardableResult
    func chirp(_ name: String, rate: Int = 48000, seconds: Double = 2) throws -> String {
        let expression = "0.5*sin(2*PI*(200*t+400*t*t))|0.5*sin(2*PI*(300*t+300*t*t))"
        try ffmpeg(["-f", "lavfi", "-i", "aevalsrc=\(expression):s=\(rate):d=\(seconds)", "-c:a", "pcm_s16le", name])
        return path(name)
    }

    /// Encodes `source` to `name` with the encoder options given (`-c:a flac`, …).
    @discardableResult
    func encode(_ source: String, _ name: String, _ options: [String]) throws -> String {
        try ffmpeg(["-i", source] + options + [name])
        return path(name)
    }

    /// The frames `source` holds from `start` for `count` frames (nil: to the end), as WAV:
    /// `atrim` cuts at exact samples.
    @discardableResult
    func cut(_ source: String, _ name: String, start: Int, count: Int? = nil) throws -> String {
        var filter = "atrim=start_sample=\(start)"
        if let count { filter += ":end_sample=\(start + count)" }
        try ffmpeg(["-i", source, "-af", filter, "-c:a", "pcm_s16le", name])
        return path(name)
    }

    /// What the `ffmpeg` CLI decodes `file` to, as raw PCM (`s16le`, `s32le`, `f32le`).
    func reference(_ file: String, format: String = "s16le") throws -> Data {
        let output = path(URL(fileURLWithPath: file).lastPathComponent + ".\(format).raw")
        try ffmpeg(["-i", file, "-f", format, output])
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }
}

/// Everything `decoder` returns in `format`, read in `chunk`-byte pieces (odd sizes exercise
/// reads that end inside a decoded frame).
func decodeAll(_ decoder: AudioDecoder, format: PCMFormat, chunk: Int = 3000, limit: Int = .max) throws(DecoderError)
    -> Data
{
    var result = Data()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { buffer.deallocate() }
    while result.count < limit {
        let room = Swift.min(chunk, limit - result.count)
        let count = try decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room]), format: format)
        if count == 0 { break }
        result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
    return result
}

/// Decodes a whole file to `format` (its own format by default).
func decodeFile(_ path: String, format: PCMFormat? = nil) throws(DecoderError) -> Data {
    let decoder = try AudioDecoder(path: path)
    return try decodeAll(decoder, format: format ?? decoder.sourceFormat)
}

extension Data {
    /// The bytes as native-endian 16-bit samples.
    var int16Samples: [Int16] {
        withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The bytes as 32-bit floats.
    var floatSamples: [Float] {
        withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// Measures how well `part` (interleaved stereo s16) lines up with `whole` at frame `offset`.
enum Alignment {
    /// The lag in frames (within ±`range`) at which frames `window` of `part` best match
    /// `whole` starting at `offset + lag`, by the least squared difference of the left channel.
    static func lag(of part: [Int16], in whole: [Int16], at offset: Int, window: Range<Int>, range: Int) -> Int {
        var best = (lag: 0, error: Double.infinity)
        for lag in -range...range {
            var error = 0.0
            for frame in window {
                let index = offset + lag + frame
                guard index >= 0, index * 2 < whole.count, frame * 2 < part.count else {
                    error = .infinity
                    break
                }
                let difference = Double(part[frame * 2]) - Double(whole[index * 2])
                error += difference * difference
            }
            if error < best.error { best = (lag, error) }
        }
        return best.lag
    }

    /// The largest sample difference between `a` and `b` over their common frames in `frames`.
    static func maxDifference(_ a: [Int16], _ b: [Int16], frames: Range<Int>) -> Int {
        var largest = 0
        let end = Swift.min(frames.upperBound * 2, a.count, b.count)
        guard frames.lowerBound * 2 < end else { return 0 }
        for index in (frames.lowerBound * 2)..<end {
            largest = Swift.max(largest, abs(Int(a[index]) - Int(b[index])))
        }
        return largest
    }
}
