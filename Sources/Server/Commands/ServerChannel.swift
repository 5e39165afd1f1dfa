import MPDProtocol

/// The `tonearm` message channel: how a client that sends only the commands it knows reaches
/// Tonearm's own commands. `mpc sendmessage tonearm "shufflemode albums"` runs
/// `shufflemode albums` as if the client had sent it, and `smartplaylist` likewise: the same
/// permission check, the same ACK (under `sendmessage`) when it fails.
///
/// The server listens on the channel itself, so a message there always has a receiver; the
/// channel is not listed by `channels`, which keeps MPD's answer for the channels clients made.
/// Clients subscribed to `tonearm` get the message too, as on any channel.
enum ServerChannel {
    /// The channel's name.
    static let name = "tonearm"

    /// The commands a message on the channel may run: Tonearm's own that change something,
    /// which no MPD client sends by itself (what they would print is not sent anywhere).
    static let commands: [CommandDefinition] =
        PlaybackOptionCommands.definitions.filter { $0.name == "shufflemode" }
        + SmartPlaylistCommands.definitions.filter { $0.name == "smartplaylist" }

    /// Runs the message `text` as a command line for the sender.
    /// - Throws: the command's error, or ACK 2 for text that is not one of ``commands``.
    static func perform(_ text: String, for invocation: inout CommandInvocation) async throws {
        let request: Request
        do {
            request = try Tokenizer.tokenize(Array(text.utf8))
        } catch {
            throw MPDError(.argument, "not a command for the \(name) channel: \(error.error.message)")
        }
        guard let definition = commands.first(where: { $0.name == request.command }) else {
            let known = commands.map(\.name).joined(separator: ", ")
            throw MPDError(.argument, "\(request.command.mpdQuoted) is not a command of the \(name) channel: \(known)")
        }
        try definition.check(permissions: invocation.session.permissions, argumentCount: request.arguments.count)
        var inner = CommandInvocation(
            command: definition.name, arguments: request.arguments,
            invalidUTF8Arguments: request.invalidUTF8Arguments, session: invocation.session,
            response: ResponseBuffer(), server: invocation.server, output: nil)
        _ = try await definition.handler(&inner)
        invocation.session = inner.session
    }
}
