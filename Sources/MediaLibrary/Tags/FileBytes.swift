import Glibc

/// A file opened for reading at explicit offsets, for the few tag formats whose multiple values
/// FFmpeg merges or drops (Vorbis comments, ID3v2 string lists), so those are read natively.
///
/// Reads use `pread`, so a reader can skip large blocks (embedded pictures) without reading them.
final class FileBytes {
    private let descriptor: Int32
    /// The file's size in bytes.
    let size: Int

    /// Opens `path`, or returns nil when it cannot be opened or is not a regular file.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset`; fewer at the end of the file, empty on error.
    func read(at offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = min(count, size - offset)
        var result = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        result.withUnsafeMutableBytes { buffer in
            while filled < wanted {
                let got = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset + filled))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                filled += got
            }
        }
        if filled < wanted { result.removeLast(wanted - filled) }
        return result
    }

    /// Exactly `count` bytes from `offset`, or nil when the file is shorter.
    func readExactly(at offset: Int, count: Int) -> [UInt8]? {
        let bytes = read(at: offset, count: count)
        return bytes.count == count ? bytes : nil
    }
}

/// Little helpers for the byte layouts of tag formats.
extension Array where Element == UInt8 {
    /// A big-endian unsigned integer of `width` bytes at `offset`.
    func bigEndian(at offset: Int, width: Int) -> Int {
        var value = 0
        for index in offset..<(offset + width) { value = value << 8 | Int(self[index]) }
        return value
    }

    /// A little-endian 32-bit unsigned integer at `offset`.
    func littleEndian32(at offset: Int) -> Int {
        Int(self[offset]) | Int(self[offset + 1]) << 8 | Int(self[offset + 2]) << 16 | Int(self[offset + 3]) << 24
    }

    /// Whether the bytes at `offset` are the ASCII text `text`.
    func hasASCII(_ text: String, at offset: Int) -> Bool {
        let expected = Array(text.utf8)
        guard offset >= 0, offset + expected.count <= count else { return false }
        return self[offset..<(offset + expected.count)].elementsEqual(expected)
    }
}
