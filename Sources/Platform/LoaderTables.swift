#if canImport(Glibc)
    import Glibc
#endif

/// Where the running executable keeps tables that a running server does not read: those of
/// the dynamic loader (its dynamic symbols and their names, hash and versions, its
/// relocations) and those of the unwinder (`.eh_frame` and its index, the C++ exception
/// tables).
///
/// The loader reads its tables when the process starts (the binary is linked `-z now`, so every
/// relocation is applied then) and afterwards only to resolve a symbol for a library opened
/// later; the unwinder reads its own to unwind a C++ exception or a crash's stack. In
/// Tonearm's binary they are 9.4 MB, of which a server idling after start-up kept about 4 MB
/// resident: clean pages of the file, which the kernel reads again from the page cache if they
/// are ever needed.
package struct LoaderTables: Sendable {
    /// The pages that hold nothing but these tables, as addresses in this process.
    package let pages: [Range<UInt>]
    /// What is added to an address in the file's image to get its address in this process.
    package let loadBias: UInt

    /// The sections.
    private static let names: Set<String> = [
        ".dynsym", ".dynstr", ".hash", ".gnu.hash", ".gnu.version", ".gnu.version_r", ".gnu.version_d",
        ".rela.dyn", ".rela.plt", ".gcc_except_table", ".eh_frame", ".eh_frame_hdr",
    ]

    /// Reads the running executable's section and program headers; `nil` when it is not a
    /// 64-bit little-endian ELF file, cannot be read, or holds no whole page of these tables.
    package static func ofThisProcess() -> LoaderTables? {
        guard let path = executablePath(), let file = ELFFile(path: path), let firstLoad = file.firstLoadAddress,
            let mapped = mappingStart(of: path)
        else { return nil }
        // The tables lie one after another (the loader's at the start of the first loaded
        // segment, the unwinder's at its end); only the pages wholly inside a run of them are
        // given back, never a page shared with code.
        var runs: [Range<UInt>] = []
        for section in file.sections.filter({ names.contains($0.name) && $0.isAllocated }).sorted(by: {
            $0.address < $1.address
        }) {
            if let last = runs.last, section.address <= last.upperBound + 16 {
                runs[runs.count - 1] = last.lowerBound..<max(last.upperBound, section.address + section.size)
            } else {
                runs.append(section.address..<(section.address + section.size))
            }
        }
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let bias = mapped - (firstLoad & ~(pageSize - 1))
        // Only within segments that are never writable: a page the loader wrote (relocated
        // data) exists nowhere else, and giving it back would lose what was written.
        let pages = runs.flatMap { run in
            file.readOnlySegments.compactMap { segment -> Range<UInt>? in
                let part = segment.clamped(to: run)
                let start = (bias + part.lowerBound + pageSize - 1) & ~(pageSize - 1)
                let end = (bias + part.upperBound) & ~(pageSize - 1)
                return start < end ? start..<end : nil
            }
        }
        return pages.isEmpty ? nil : LoaderTables(pages: pages, loadBias: bias)
    }

    /// Tells the kernel the pages are not needed now: they leave the process's resident set,
    /// and a later read of them faults them in again from the file.
    package func release() {
        for range in pages {
            _ = madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), Int(range.count), MADV_DONTNEED)
        }
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Where the file's first bytes are mapped (`/proc/self/maps`: the mapping of `path` at
    /// offset 0). The path must be the mapping's whole name: another file whose name begins
    /// with it is not the executable. A replaced executable's name ends in ` (deleted)` there
    /// as in `/proc/self/exe`'s link, so the two still match.
    private static func mappingStart(of path: String) -> UInt? {
        guard let maps = try? ProcFile.read("/proc/self/maps") else { return nil }
        return mappingStart(of: path, in: maps)
    }

    /// ``mappingStart(of:)`` in the text of a `/proc/PID/maps` file.
    static func mappingStart(of path: String, in maps: String) -> UInt? {
        for line in maps.split(separator: "\n") {
            // Address range, permissions, offset, device, inode, then the name after padding.
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, UInt(fields[2], radix: 16) == 0,
                fields[5].drop(while: { $0 == " " }) == path,
                let dash = fields[0].firstIndex(of: "-"), let start = UInt(fields[0][..<dash], radix: 16)
            else { continue }
            return start
        }
        return nil
    }
}
