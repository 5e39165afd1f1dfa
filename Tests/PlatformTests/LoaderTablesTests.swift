import Testing

@testable import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// The pages of this test binary's loader and unwind tables leave the resident set when
/// released, come back unchanged when read, and the process still resolves symbols.
@Suite("Loader tables")
struct LoaderTablesTests {
    /// Whether each page of `range` is mapped into the process now (`/proc/self/pagemap`'s
    /// present bit, readable without privileges).
    private func presentPages(_ range: Range<UInt>) throws -> Int {
        let pagemap = open("/proc/self/pagemap", O_RDONLY)
        try #require(pagemap >= 0)
        defer { close(pagemap) }
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var present = 0
        for page in stride(from: range.lowerBound, to: range.upperBound, by: Int(pageSize)) {
            var entry: UInt64 = 0
            let read = pread(pagemap, &entry, 8, off_t(page / pageSize * 8))
            try #require(read == 8)
            if entry >> 63 == 1 { present += 1 }
        }
        return present
    }

    /// One byte of each page of `range`, read through memory (which maps the page in).
    private func firstBytes(_ range: Range<UInt>) -> [UInt8] {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        return stride(from: range.lowerBound, to: range.upperBound, by: pageSize).map { page in
            UnsafeRawPointer(bitPattern: page)!.load(as: UInt8.self)
        }
    }

    @Test func theTablesAreWholePagesOfTheExecutableOutsideItsCode() throws {
        let tables = try #require(LoaderTables.ofThisProcess())
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let file = try #require(ELFFile(path: "/proc/self/exe"))
        let text = try #require(file.sections.first { $0.name == ".text" })
        // The load bias is right if the code in memory is the code in the file.
        let inFile = try #require(bytes(of: "/proc/self/exe", at: text.offset, count: 4096))
        let inMemory = Array(
            UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: tables.loadBias + text.address), count: 4096))
        #expect(inMemory == inFile)
        let textInMemory = (tables.loadBias + text.address)..<(tables.loadBias + text.address + text.size)
        #expect(!tables.pages.isEmpty)
        for range in tables.pages {
            #expect(range.lowerBound % pageSize == 0 && range.upperBound % pageSize == 0 && !range.isEmpty)
            #expect(!range.overlaps(textInMemory))
        }
        // Each released page lies wholly inside one of the tables' sections, named here apart from
        // `LoaderTables`'s own list, so that a section wrongly added there fails this test.
        let tableSections = file.sections.filter {
            [
                ".dynsym", ".dynstr", ".hash", ".gnu.hash", ".gnu.version", ".gnu.version_r", ".gnu.version_d",
                ".rela.dyn", ".rela.plt", ".gcc_except_table", ".eh_frame", ".eh_frame_hdr",
            ].contains($0.name)
        }
        for range in tables.pages {
            for page in stride(from: range.lowerBound, to: range.upperBound, by: Int(pageSize)) {
                let address = page - tables.loadBias
                #expect(tableSections.contains { $0.address <= address && address < $0.address + $0.size })
            }
        }
    }

    @Test func theExecutableIsFoundByItsWholeNameAtOffsetZero() {
        let maps = """
            55d000000000-55d000001000 r--p 00000000 08:01 11 /usr/bin/tonearm-old
            55e000000000-55e000001000 r--p 00001000 08:01 12                         /usr/bin/tonearm
            55f000000000-55f000001000 r--p 00000000 08:01 12                         /usr/bin/tonearm
            560000000000-560000001000 r--p 00000000 08:01 13                         /opt/my  music/tonearm (deleted)
            7f0000000000-7f0000001000 rw-p 00000000 00:00 0
            """
        #expect(LoaderTables.mappingStart(of: "/usr/bin/tonearm", in: maps) == 0x55f0_0000_0000)
        #expect(LoaderTables.mappingStart(of: "/opt/my  music/tonearm (deleted)", in: maps) == 0x5600_0000_0000)
        #expect(LoaderTables.mappingStart(of: "/usr/bin/tone", in: maps) == nil)
    }

    private func bytes(of path: String, at offset: UInt, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return read == count ? buffer : nil
    }

    @Test func releasedPagesLeaveTheResidentSetAndComeBackUnchanged() throws {
        let tables = try #require(LoaderTables.ofThisProcess())
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        // The relocations' pages, but for 256 KiB at each end: the other tests of this process,
        // on other threads, may look up a symbol, unwind a stack or run code at any moment, and
        // the kernel maps up to 64 KiB of cached neighbours around each page it faults in; no
        // one reads the relocations themselves after start-up.
        let file = try #require(ELFFile(path: "/proc/self/exe"))
        let relocations = try #require(file.sections.first { $0.name == ".rela.dyn" })
        let start = (tables.loadBias + relocations.address + (256 << 10) + pageSize - 1) & ~(pageSize - 1)
        let end = (tables.loadBias + relocations.address + relocations.size - (256 << 10)) & ~(pageSize - 1)
        try #require(start < end)
        let before = tables.pages.map(firstBytes)
        #expect(try presentPages(start..<end) == Int((end - start) / pageSize))
        tables.release()
        #expect(try presentPages(start..<end) == 0)
        #expect(tables.pages.map(firstBytes) == before)
        // The loader still finds symbols through the executable's tables.
        #expect(dlsym(dlopen(nil, RTLD_NOW), "malloc") != nil)
    }
}
