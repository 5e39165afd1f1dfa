#if canImport(Glibc)
    import Glibc
#endif

/// The headers of a 64-bit little-endian ELF file (x86-64, AArch64): its sections by name and
/// where its first loaded segment starts. Read with `pread`, as the ELF specification lays
/// them out; nothing else of the file is read.
struct ELFFile {
    /// One section header.
    struct Section {
        /// The section's name, from the section name table.
        let name: String
        /// Its address in the image (before the load bias).
        let address: UInt
        /// Where its bytes are in the file.
        let offset: UInt
        /// Its size in bytes.
        let size: UInt
        /// `SHF_ALLOC`: the section is part of the process's memory.
        let isAllocated: Bool
    }

    /// Every section.
    let sections: [Section]
    /// The address in the image of the first `PT_LOAD` segment.
    let firstLoadAddress: UInt?
    /// The image's addresses of the `PT_LOAD` segments that are never writable (no `PF_W`):
    /// their pages in memory are the file's pages, which the loader does not write.
    let readOnlySegments: [Range<UInt>]

    /// Reads the headers of the file at `path`; `nil` when it is not a 64-bit little-endian ELF
    /// file or cannot be read.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        func bytes(at offset: UInt, count: Int) -> [UInt8]? {
            guard count > 0, count < 64 << 20 else { return nil }
            var buffer = [UInt8](repeating: 0, count: count)
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return read == count ? buffer : nil
        }
        // e_ident: the magic, ELFCLASS64, ELFDATA2LSB.
        guard let header = bytes(at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2,
            header[5] == 1
        else { return nil }
        let programHeaders = UInt(header.integer(at: 0x20, as: UInt64.self))
        let sectionHeaders = UInt(header.integer(at: 0x28, as: UInt64.self))
        let programEntrySize = Int(header.integer(at: 0x36, as: UInt16.self))
        let programCount = Int(header.integer(at: 0x38, as: UInt16.self))
        let sectionEntrySize = Int(header.integer(at: 0x3A, as: UInt16.self))
        let sectionCount = Int(header.integer(at: 0x3C, as: UInt16.self))
        let namesIndex = Int(header.integer(at: 0x3E, as: UInt16.self))
        guard sectionEntrySize >= 0x28, programEntrySize >= 0x18, namesIndex < sectionCount,
            let table = bytes(at: sectionHeaders, count: sectionEntrySize * sectionCount),
            let program = bytes(at: programHeaders, count: programEntrySize * programCount)
        else { return nil }

        func field<T: FixedWidthInteger>(_ index: Int, _ offset: Int, _: T.Type) -> T {
            table.integer(at: index * sectionEntrySize + offset, as: T.self)
        }
        let namesOffset = UInt(field(namesIndex, 0x18, UInt64.self))
        let namesSize = Int(field(namesIndex, 0x20, UInt64.self))
        guard let names = bytes(at: namesOffset, count: namesSize) else { return nil }
        sections = (0..<sectionCount).map { index in
            let nameStart = min(Int(field(index, 0, UInt32.self)), names.count)
            let nameEnd = names[nameStart...].firstIndex(of: 0) ?? names.count
            return Section(
                name: String(decoding: names[nameStart..<nameEnd], as: UTF8.self),
                address: UInt(field(index, 0x10, UInt64.self)),
                offset: UInt(field(index, 0x18, UInt64.self)),
                size: UInt(field(index, 0x20, UInt64.self)),
                isAllocated: field(index, 0x08, UInt64.self) & 0x2 != 0)
        }
        let loads = (0..<programCount).map { $0 * programEntrySize }.filter { entry in
            program.integer(at: entry, as: UInt32.self) == 1  // PT_LOAD
        }
        firstLoadAddress = loads.first.map { UInt(program.integer(at: $0 + 0x10, as: UInt64.self)) }
        readOnlySegments = loads.filter { program.integer(at: $0 + 4, as: UInt32.self) & 0x2 == 0 }.map { entry in
            let address = UInt(program.integer(at: entry + 0x10, as: UInt64.self))
            return address..<(address + UInt(program.integer(at: entry + 0x28, as: UInt64.self)))
        }
    }
}

extension [UInt8] {
    /// The little-endian integer at `offset`.
    fileprivate func integer<T: FixedWidthInteger>(at offset: Int, as _: T.Type) -> T {
        var value = T.zero
        for index in (0..<(T.bitWidth / 8)).reversed() { value = value << 8 | T(self[offset + index]) }
        return value
    }
}

/// Files of `/proc`, whose size is 0 until read: read to their end.
enum ProcFile {
    /// The whole file as text.
    static func read(_ path: String) throws(ReadError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError() }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw ReadError() }
            if count == 0 { break }
            contents.append(contentsOf: chunk[..<count])
        }
        return String(decoding: contents, as: UTF8.self)
    }

    /// A `/proc` file could not be opened or read.
    struct ReadError: Error {}
}
