import CMalloc

/// The process's heap as glibc's malloc keeps it.
///
/// Resident memory is one of the figures users compare with MPD's. glibc gives each thread that
/// meets a locked arena a new one (up to eight per core), and each arena keeps what was freed
/// in it: a scan's short-lived tag strings and rows, freed across a dozen threads, would stay
/// resident long after the scan.
package enum ProcessMemory {
    /// Caps the number of malloc arenas; call it first thing, before threads allocate.
    /// Tonearm's threads allocate little on their hot paths (the audio threads not at all), so
    /// a couple of arenas cost no measurable contention.
    package static func limitArenas(to count: Int32) {
        _ = mallopt(M_ARENA_MAX, count)
    }

    /// Gives back the executable's pages that only the dynamic loader and the unwinder read
    /// (``LoaderTables``); call once the process has started. They were about 4 MB of what a
    /// server idling on a 10,000-song library keeps resident (docs/benchmarks.md).
    package static func releaseLoaderTables() {
        LoaderTables.ofThisProcess()?.release()
    }

    /// Hands the free pages of every arena back to the kernel (after a scan, whose garbage is
    /// spread over pages that would otherwise stay resident).
    package static func returnFreePages() {
        _ = malloc_trim(0)
    }
}
