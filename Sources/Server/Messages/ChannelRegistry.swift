import MPDProtocol
import MusicModel
import Synchronization

/// Client-to-client messaging (MPD's `subscribe`, `sendmessage`, …): which channels each
/// client listens to and the messages waiting for it.
///
/// Every session opens a ``ClientMailbox`` here when it starts and closes it when it ends. A
/// message goes to every client of the sender's partition that subscribed to its channel.
final class ChannelRegistry: Sendable {
    /// MPD's `Client::MAX_SUBSCRIPTIONS`.
    static let maximumSubscriptions = 16
    /// MPD's `Client::MAX_MESSAGES`: a client's queue holds at most this many; more are dropped.
    static let maximumMessages = 64

    private let mailboxes = Mutex<[ObjectIdentifier: ClientMailbox]>([:])

    /// Opens the mailbox of a new client whose idle events arrive in `inbox`.
    func open(inbox: IdleInbox) -> ClientMailbox {
        let mailbox = ClientMailbox(inbox: inbox)
        mailboxes.withLock { $0[ObjectIdentifier(mailbox)] = mailbox }
        return mailbox
    }

    /// Closes a client's mailbox: its subscriptions end without an idle event, as in MPD.
    func close(_ mailbox: ClientMailbox) {
        _ = mailboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(mailbox)) }
    }

    /// MPD's `client_message_valid_channel_name`: one or more of `A-Z a-z 0-9 _ - . :`.
    static func isValidChannelName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
                    UInt8(ascii: ":"):
                    true
                default:
                    false
                }
            }
    }

    /// The channels some client of `partition` subscribed to, sorted bytewise (`channels`).
    func channels(partition: String) -> [String] {
        var names = Set<String>()
        for mailbox in mailboxes(of: partition) { names.formUnion(mailbox.subscriptions) }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Queues `text` for every client of `partition` subscribed to `channel`.
    /// - Returns: whether some client took it: a client whose queue is full drops it, and
    ///   if every subscriber did, MPD answers as if nobody were subscribed.
    func send(_ text: String, on channel: String, partition: String) -> Bool {
        var delivered = false
        for mailbox in mailboxes(of: partition) where mailbox.deliver(ChannelMessage(channel: channel, text: text)) {
            delivered = true
        }
        return delivered
    }

    private func mailboxes(of partition: String) -> [ClientMailbox] {
        mailboxes.withLock { Array($0.values) }.filter { $0.partition == partition }
    }
}

/// A message on a channel.
struct ChannelMessage: Sendable, Equatable {
    /// The channel it was sent on.
    let channel: String
    /// The text.
    let text: String
}

/// One client's subscriptions and unread messages.
final class ClientMailbox: Sendable {
    private struct State {
        var subscriptions = Set<String>()
        var messages: [ChannelMessage] = []
    }

    private let state = Mutex(State())
    /// Where the client's idle events arrive; it also says which partition the client is in.
    let inbox: IdleInbox

    init(inbox: IdleInbox) {
        self.inbox = inbox
    }

    /// The partition the client is in.
    var partition: String { inbox.partition }

    /// The channels subscribed to.
    var subscriptions: Set<String> { state.withLock { $0.subscriptions } }

    /// `subscribe`, checked in MPD's order: the name, then the limit (so a full list refuses
    /// even a channel it holds already), then a repeat.
    /// - Throws: ACK 2 `invalid channel name`, ACK 56 `subscription list is full` or
    ///   `already subscribed to this channel`.
    func subscribe(_ channel: String) throws(MPDError) {
        guard ChannelRegistry.isValidChannelName(channel) else { throw MPDError(.argument, "invalid channel name") }
        let error: MPDError? = state.withLock { state in
            if state.subscriptions.count >= ChannelRegistry.maximumSubscriptions {
                return MPDError(.exist, "subscription list is full")
            }
            if !state.subscriptions.insert(channel).inserted {
                return MPDError(.exist, "already subscribed to this channel")
            }
            return nil
        }
        if let error { throw error }
    }

    /// `unsubscribe`. Messages of the channel already queued stay, as in MPD.
    /// - Throws: ACK 50 `not subscribed to this channel`.
    func unsubscribe(_ channel: String) throws(MPDError) {
        let removed = state.withLock { $0.subscriptions.remove(channel) != nil }
        guard removed else { throw MPDError(.noExist, "not subscribed to this channel") }
    }

    /// Queues a message if the client subscribed to its channel and has room; raises idle
    /// `message` when the queue was empty (MPD raises it once until `readmessages`).
    /// - Returns: whether the message was queued.
    func deliver(_ message: ChannelMessage) -> Bool {
        let (queued, wasEmpty) = state.withLock { state -> (Bool, Bool) in
            guard state.messages.count < ChannelRegistry.maximumMessages,
                state.subscriptions.contains(message.channel)
            else { return (false, false) }
            state.messages.append(message)
            return (true, state.messages.count == 1)
        }
        if wasEmpty { inbox.post(.message) }
        return queued
    }

    /// Takes every queued message, oldest first (`readmessages`).
    func takeMessages() -> [ChannelMessage] {
        state.withLock { state in
            defer { state.messages = [] }
            return state.messages
        }
    }
}
