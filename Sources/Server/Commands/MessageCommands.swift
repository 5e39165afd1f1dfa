import MPDProtocol
import MusicModel
import Settings

/// Commands of MPD's "Client to client" group: channels that clients subscribe to and send
/// messages on (MPD's `MessageCommands.cxx`). The state lives in ``ChannelRegistry``.
enum MessageCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("channels", permission: .read, arguments: .exactly(0), handler: channels),
        CommandDefinition("readmessages", permission: .read, arguments: .exactly(0), handler: readMessages),
        CommandDefinition("sendmessage", permission: .control, arguments: .exactly(2), handler: sendMessage),
        CommandDefinition("subscribe", permission: .read, arguments: .exactly(1), handler: subscribe),
        CommandDefinition("unsubscribe", permission: .read, arguments: .exactly(1), handler: unsubscribe),
    ]

    /// `subscribe CHANNEL`; every client of the partition sees idle `subscription`.
    static func subscribe(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        try invocation.mailbox.subscribe(invocation.arguments[0])
        invocation.server.idleBus.emit(.subscription, partition: invocation.session.partition)
        return .ok
    }

    /// `unsubscribe CHANNEL`; every client of the partition sees idle `subscription`.
    static func unsubscribe(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        try invocation.mailbox.unsubscribe(invocation.arguments[0])
        invocation.server.idleBus.emit(.subscription, partition: invocation.session.partition)
        return .ok
    }

    /// `channels`: every channel some client of the partition subscribed to.
    static func channels(_ invocation: inout CommandInvocation) -> CommandOutcome {
        for channel in invocation.server.channels.channels(partition: invocation.session.partition) {
            invocation.response.append("channel", channel)
        }
        return .ok
    }

    /// `readmessages`: the client's queued messages, oldest first; the queue is emptied.
    static func readMessages(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        for message in try invocation.mailbox.takeMessages() {
            invocation.response.append("channel", message.channel)
            invocation.response.append("message", message.text)
        }
        return .ok
    }

    /// `sendmessage CHANNEL TEXT`: to every subscriber in the partition, the sender included;
    /// on the `tonearm` channel the server also runs the text as one of its own commands
    /// (``ServerChannel``).
    /// - Throws: ACK 2 `invalid channel name`; ACK 50 `nobody is subscribed to this channel`
    ///   also when every subscriber's queue was full.
    static func sendMessage(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let channel = invocation.arguments[0]
        guard ChannelRegistry.isValidChannelName(channel) else { throw MPDError(.argument, "invalid channel name") }
        if channel == ServerChannel.name { try await ServerChannel.perform(invocation.arguments[1], for: &invocation) }
        let sent = invocation.server.channels.send(
            invocation.arguments[1], on: channel,
            partition: invocation.session.partition)
        guard sent || channel == ServerChannel.name else {
            throw MPDError(.noExist, "nobody is subscribed to this channel")
        }
        return .ok
    }
}

extension CommandInvocation {
    /// This client's mailbox; every session opens one when it starts.
    var mailbox: ClientMailbox {
        get throws(MPDError) {
            guard let mailbox = session.mailbox else { throw MPDError(.unknown, "no mailbox for this client") }
            return mailbox
        }
    }
}
