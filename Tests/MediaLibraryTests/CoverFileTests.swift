import Foundation
import Logging
import MusicModel
import Testing

@testable import MediaLibrary

/// `albumart`'s cover file: MPD's names exactly, then `album_art_names` in any letter case,
/// in their order, of several spellings the first by bytes, a link counting as what it points
/// to, and never a folder.
@Suite("Cover file")
struct CoverFileTests {
    private let music = NSTemporaryDirectory() + "tonearm-cover-test-\(UUID().uuidString)"

    private func library(_ names: [String]) throws -> Library {
        var settings = Library.Settings(
            musicDirectory: music, databasePath: music + "/db.sqlite", songSuffixes: ["mp3"],
            tagMask: TagMask(metadataToUse: nil))
        settings.albumArtNames = names
        return try Library(settings: settings, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) { _ in }
    }

    private func make(_ files: [String], folders: [String] = [], links: [String: String] = [:]) throws {
        let manager = FileManager.default
        try manager.createDirectory(atPath: music + "/A", withIntermediateDirectories: true)
        for folder in folders {
            try manager.createDirectory(atPath: music + "/A/" + folder, withIntermediateDirectories: true)
        }
        for file in files { _ = manager.createFile(atPath: music + "/A/" + file, contents: Data([1])) }
        for (link, target) in links {
            try manager.createSymbolicLink(atPath: music + "/A/" + link, withDestinationPath: target)
        }
    }

    @Test func mpdNamesComeFirstThenTheConfiguredOnesInOrder() throws {
        defer { try? FileManager.default.removeItem(atPath: music) }
        try make(["song.mp3", "front.jpg", "Folder.JPG"])
        let library = try library(["folder.jpg", "front.jpg"])
        #expect(library.coverFile(for: "A/song.mp3") == "A/Folder.JPG")
        #expect(library.coverFile(inFolder: "A") == "A/Folder.JPG")
        _ = FileManager.default.createFile(atPath: music + "/A/cover.jpg", contents: Data([1]))
        #expect(library.coverFile(inFolder: "A") == "A/cover.jpg")
        #expect(try self.library([]).coverFile(inFolder: "A") == "A/cover.jpg")
    }

    @Test func ofSeveralSpellingsTheFirstByBytesThatIsAFile() throws {
        defer { try? FileManager.default.removeItem(atPath: music) }
        try make(["folder.jpg", "Folder.jpg", "song.mp3"], folders: ["FOLDER.JPG"])
        #expect(try library(["folder.jpg"]).coverFile(inFolder: "A") == "A/Folder.jpg")
    }

    @Test func aLinkCountsAsWhatItPointsTo() throws {
        defer { try? FileManager.default.removeItem(atPath: music) }
        try make(
            ["real.jpg"], folders: ["sub"], links: ["front.jpg": "real.jpg", "FOLDER.jpg": "sub", "folder.JPG": "gone"])
        let library = try library(["folder.jpg", "front.jpg"])
        #expect(library.coverFile(inFolder: "A") == "A/front.jpg")
        #expect(try self.library(["folder.jpg"]).coverFile(inFolder: "A") == nil)
        #expect(library.coverFile(inFolder: "missing") == nil)
    }
}
