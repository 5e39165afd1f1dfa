import Configuration
import MediaLibrary
import MPDProtocol

/// The commands of MPD's "music database" group that read files: `albumart`, `readpicture`,
/// `readcomments`.
enum ArtworkCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("albumart", permission: .read, arguments: .exactly(2), handler: albumArt),
        CommandDefinition("readcomments", permission: .read, arguments: .exactly(1), handler: readComments),
        CommandDefinition("readpicture", permission: .read, arguments: .exactly(2), handler: readPicture),
    ]

    /// `albumart URI OFFSET`: a chunk of the cover file in the song's folder.
    static func albumArt(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        let uri = try LibraryURI.local(invocation.arguments[0], allowEmpty: false)
        let offset = Int(try Arguments.unsigned(invocation.arguments[1], maximum: UInt64(Int.max)))
        guard let cover = library.coverFile(for: uri),
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
    static func readPicture(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        let uri = try LibraryURI.local(invocation.arguments[0], allowEmpty: false)
        let offset = Int(try Arguments.unsigned(invocation.arguments[1], maximum: UInt64(Int.max)))
        let picture: (data: [UInt8], mimeType: String?)?
        do {
            picture = try MetadataReader.readPicture(path: library.absolutePath(of: uri))
        } catch {
            throw MPDError(.noExist, "No such file")
        }
        guard let picture else { return .ok }
        guard offset <= picture.data.count else { throw MPDError(.argument, "Bad file offset") }
        let end = min(picture.data.count, offset + invocation.session.binaryLimit)
        invocation.response.append("size", picture.data.count)
        if let type = picture.mimeType { invocation.response.append("type", type) }
        invocation.response.appendBinary(picture.data[offset..<end])
        return .ok
    }

    /// `readcomments URI`: the file's raw metadata keys and values.
    static func readComments(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        let uri = try LibraryURI.local(invocation.arguments[0], allowEmpty: false)
        let comments: [(key: String, value: String)]
        do {
            comments = try MetadataReader.readComments(path: library.absolutePath(of: uri))
        } catch {
            throw MPDError(.noExist, "No such file")
        }
        for comment in comments { invocation.response.append(comment.key, comment.value) }
        return .ok
    }
}
