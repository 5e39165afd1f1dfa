import MPDProtocol
import MusicModel
import Playback
import Settings

/// Commands of MPD's "Reflection" group.
enum ReflectionCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("commands", permission: .none, arguments: .exactly(0), handler: commands),
        CommandDefinition("config", permission: .admin, arguments: .exactly(0), handler: config),
        CommandDefinition("decoders", permission: .read, arguments: .exactly(0), handler: decoders),
        CommandDefinition("notcommands", permission: .none, arguments: .exactly(0), handler: notCommands),
        CommandDefinition("urlhandlers", permission: .read, arguments: .exactly(0), handler: urlHandlers),
    ]

    /// `commands`: the commands this client may run and the server offers (no sticker
    /// commands without `sticker_file`). `notcommands` looks at permissions alone, as in MPD.
    static func commands(_ invocation: inout CommandInvocation) -> CommandOutcome {
        let server = invocation.server
        for name in server.commands.names(allowedFor: invocation.session.permissions, on: server) {
            invocation.response.append("command", name)
        }
        return .ok
    }

    /// `notcommands`: the commands this client lacks the permission for.
    static func notCommands(_ invocation: inout CommandInvocation) -> CommandOutcome {
        for name in invocation.server.commands.names(deniedFor: invocation.session.permissions) {
            invocation.response.append("command", name)
        }
        return .ok
    }

    /// `config`: the server's folders, for local clients only (they can reach the files).
    static func config(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        guard invocation.session.isLocal else {
            throw MPDError(.permission, "Command only permitted to local clients")
        }
        let configuration = invocation.server.configuration
        invocation.response.append("music_directory", configuration.musicDirectory)
        invocation.response.append("playlist_directory", configuration.playlistDirectory)
        return .ok
    }

    /// `urlhandlers`: the URI schemes `add` accepts: `file://` for local clients only, then
    /// the streams' schemes.
    static func urlHandlers(_ invocation: inout CommandInvocation) -> CommandOutcome {
        if invocation.session.isLocal { invocation.response.append("handler", "file://") }
        for scheme in RemoteStream.schemes { invocation.response.append("handler", scheme) }
        return .ok
    }

    /// `decoders`: the file suffixes and MIME types the decoder plays.
    static func decoders(_ invocation: inout CommandInvocation) -> CommandOutcome {
        let catalog = invocation.server.decoders
        invocation.response.append("plugin", catalog.plugin)
        for suffix in catalog.suffixes { invocation.response.append("suffix", suffix) }
        for mimeType in catalog.mimeTypes { invocation.response.append("mime_type", mimeType) }
        return .ok
    }
}
