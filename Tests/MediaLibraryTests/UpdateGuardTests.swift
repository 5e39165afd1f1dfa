import Testing

@testable import MediaLibrary

@Suite("The update guard: no update empties the library while the music is away")
struct UpdateGuardTests {
    private let on = UpdateGuard(enabled: true)

    private func refusal(_ body: () throws(LibraryError) -> Void) -> String? {
        do throws(LibraryError) {
            try body()
            return nil
        } catch .updateRefused(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test("a missing or unreadable folder is refused, rescan or not, while the database holds songs")
    func unreadableFolders() {
        let missing = MusicDirectoryCheck.missing(reason: "No such file or directory")
        #expect(
            refusal { () throws(LibraryError) in try on.check(missing, path: "/m", songs: 3, rescan: true) }
                == "music directory /m: No such file or directory; the library keeps its 3 songs")
        let unusable = MusicDirectoryCheck.unusable("No permission to read directory: /m", remedy: "chmod")
        #expect(
            refusal { () throws(LibraryError) in try on.check(unusable, path: "/m", songs: 3, rescan: false) }
                == "No permission to read directory: /m; the library keeps its 3 songs")
        // An empty database has nothing to lose: the first scan of a missing folder goes ahead.
        #expect(
            refusal { () throws(LibraryError) in try on.check(missing, path: "/m", songs: 0, rescan: false) } == nil)
        #expect(
            refusal { () throws(LibraryError) in try on.check(.usable, path: "/m", songs: 3, rescan: false) } == nil)
    }

    @Test("an empty folder is refused unless rescan says the music is gone")
    func emptyFolder() {
        #expect(
            refusal { () throws(LibraryError) in try on.check(.empty, path: "/m", songs: 2, rescan: false) }
                == "music directory /m is empty; the library keeps its 2 songs (rescan empties it)")
        #expect(refusal { () throws(LibraryError) in try on.check(.empty, path: "/m", songs: 2, rescan: true) } == nil)
    }

    @Test("removing more than half of the library, and at least 50 songs, is refused unless rescan")
    func massRemoval() {
        #expect(
            refusal { () throws(LibraryError) in try on.check(removing: 51, of: 100, rescan: false) }
                == "the update would remove 51 of the library's 100 songs; it keeps them (rescan removes them)")
        #expect(refusal { () throws(LibraryError) in try on.check(removing: 50, of: 100, rescan: false) } == nil)
        #expect(refusal { () throws(LibraryError) in try on.check(removing: 49, of: 60, rescan: false) } == nil)
        #expect(refusal { () throws(LibraryError) in try on.check(removing: 100, of: 100, rescan: true) } == nil)
    }

    @Test("update_guard \"no\" lets every update through, as MPD does")
    func off() {
        let off = UpdateGuard(enabled: false)
        let missing = MusicDirectoryCheck.missing(reason: "No such file or directory")
        #expect(
            refusal { () throws(LibraryError) in try off.check(missing, path: "/m", songs: 3, rescan: false) } == nil)
        #expect(refusal { () throws(LibraryError) in try off.check(removing: 100, of: 100, rescan: false) } == nil)
    }
}
