import MPDProtocol
import MediaLibrary
import Settings

/// The commands of MPD's "music database" group that read files: `albumart`, `readpicture`,
/// `readcomments`.
enum ArtworkCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("albumart", permission: .read, arguments: .exactly(2), handler: albumArt),
        CommandDefinition("readcomments", permission: .read, arguments: .exactly(1), handler: readComments),
        CommandDefinition("readpicture", permission: .read, arguments: .exactly(2), handler: readPicture),
    ]

    /// `albumart URI OFFSET`: a chunk of the cover file in the folder part of URI (the song
    /// need not exist), or in the folder URI names when it ends in a slash.
    static func albumArt(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        // MPD reads the offset (an `unsigned`: at most 2^32 - 1) before it looks at the URI.
        let offset = Int(try Arguments.unsigned(invocation.arguments[1]))
        let place = try LibraryURI.onDisk(invocation.arguments[0])
        let cover = place.namesFolder ? library.coverFile(inFolder: place.path) : library.coverFile(for: place.path)
        guard let cover,
            let chunk = try? library.readChunk(of: cover, offset: offset, length: invocation.session.binaryLimit)
        else {
            throw MPDError(.noExist, "No file exists")
        }
        guard offset <= chunk.size else { throw MPDError(.argument, "Offset too large") }
        invocation.response.append("size", chunk.size)
        invocation.response.appendBinary(chunk.bytes)
        return .ok
    }

    /// `readpicture URI OFFSET`: a chunk of the song's embedded picture; nothing when it has none.
    static func readPicture(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let offset = Int(try Arguments.unsigned(invocation.arguments[1]))
        let path = try await songPath(&invocation)
        let picture: (data: [UInt8], mimeType: String?)?
        do {
            picture = try MetadataReader.readPicture(path: path)
        } catch {
            throw MPDError(.noExist, "Failed to load file")
        }
        guard let picture else { return .ok }
        guard offset <= picture.data.count else { throw MPDError(.argument, "Bad file offset") }
        let end = min(picture.data.count, offset + invocation.session.binaryLimit)
        invocation.response.append("size", picture.data.count)
        if let type = picture.mimeType { invocation.response.append("type", type) }
        invocation.response.appendBinary(picture.data[offset..<end])
        return .ok
    }

    /// `readcomments URI`: the song file's raw metadata keys and values.
    static func readComments(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let path = try await songPath(&invocation)
        let comments: [(key: String, value: String)]
        do {
            comments = try MetadataReader.readComments(path: path)
        } catch {
            throw MPDError(.noExist, "Failed to load file")
        }
        for comment in comments { invocation.response.append(comment.key, comment.value) }
        return .ok
    }

    /// The file of the database song the first argument names. MPD reads these two commands'
    /// files (given a relative URI) only for songs in its database, so anything else (a missing
    /// file, a directory, a text file, a file it could not read when it scanned) is
    /// `No such song`.
    private static func songPath(_ invocation: inout CommandInvocation) async throws -> String {
        let library = try invocation.server.requireLibrary()
        guard let uri = try LibraryURI.local(invocation.arguments[0], allowEmpty: false),
            try library.song(at: uri) != nil
        else { throw MPDError(.noExist, "No such song") }
        return library.absolutePath(of: uri)
    }
}
