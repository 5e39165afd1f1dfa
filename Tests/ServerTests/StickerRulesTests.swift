import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Testing

@testable import Server

/// The server's sticker rules that need no database: `sticker find`'s arguments and what a
/// listening counts as in the play statistics.
@Suite("Sticker rules")
struct StickerRulesTests {
    private func parse(_ words: String...) throws(MPDError) -> StickerFindRequest {
        try parse(words)
    }

    private func parse(_ words: [String]) throws(MPDError) -> StickerFindRequest {
        try StickerFindRequest(arguments: ArraySlice(words))
    }

    @Test("find takes NAME, then OP VALUE, then sort and window, as MPD 0.24 reads them")
    func findArguments() throws {
        let bare = try parse("rating")
        #expect(bare.name == "rating" && bare.condition == nil && bare.sort == nil && bare.window == nil)
        #expect(try parse("rating", "=", "5").condition == StickerCondition(.equals, "5"))
        for comparison in StickerComparison.allCases {
            #expect(try parse("r", comparison.rawValue, "1").condition?.comparison == comparison)
        }
        let full = try parse("rating", "gt", "3", "sort", "-value_int", "window", "1:4")
        #expect(full.condition == StickerCondition(.greaterThanInteger, "3"))
        #expect(full.sort == StickerSort(.valueInteger, descending: true))
        #expect(full.window == RangeArgument(start: 1, end: 4))
        #expect(try parse("rating", "sort", "value").condition == nil)
        #expect(try parse("rating", "window", "1:").sort == nil)
        // Words after OP VALUE that are no modifier at the end are ignored.
        for extra in [["sort"], ["extra"], ["order", "uri"]] {
            let ignored = try parse(["r", "=", "1"] + extra)
            #expect(ignored.condition == StickerCondition(.equals, "1") && ignored.sort == nil && ignored.window == nil)
        }
    }

    @Test("find's bad arguments get MPD's answers")
    func findErrors() {
        #expect(throws: MPDError(.argument, "bad operator \"~\"")) { try parse("r", "~", "1") }
        #expect(throws: MPDError(.argument, "bad operator \"EQ\"")) { try parse("r", "EQ", "1") }
        #expect(throws: MPDError(.argument, "bad request")) { try parse("r", "=") }
        // `sort` and `window` are taken off the end, `window` first: in any other order or
        // twice, a modifier's word is left where the operator goes.
        #expect(throws: MPDError(.argument, "bad operator \"sort\"")) { try parse("r", "sort") }
        #expect(throws: MPDError(.argument, "bad operator \"sort\"")) { try parse("r", "sort", "uri", "sort", "value") }
        #expect(throws: MPDError(.argument, "bad operator \"window\"")) {
            try parse("r", "window", "2:", "sort", "uri")
        }
        #expect(throws: MPDError(.argument, "Unknown sort tag \"name\"")) { try parse("r", "sort", "name") }
        #expect(throws: MPDError(.argument, "Unknown sort tag \"name\"")) { try parse("r", "sort", "-name") }
        #expect(throws: MPDError(.argument, "Integer or range expected: x")) { try parse("r", "window", "x") }
    }

    private func listening(_ heard: Double, of duration: Double?, byUser: Bool = false) -> SongListening {
        SongListening(uri: "a.flac", duration: duration, heardSeconds: heard, leftByUser: byUser)
    }

    @Test("played past half the song or four minutes; skipped when the user left earlier")
    func outcomes() {
        #expect(PlayStatistics.outcome(of: listening(5, of: 10)) == .played)
        #expect(PlayStatistics.outcome(of: listening(4.9, of: 10)) == .neither)
        #expect(PlayStatistics.outcome(of: listening(4.9, of: 10, byUser: true)) == .skipped)
        #expect(PlayStatistics.outcome(of: listening(6, of: 10, byUser: true)) == .played)
        #expect(PlayStatistics.outcome(of: listening(240, of: 3600)) == .played)
        #expect(PlayStatistics.outcome(of: listening(239, of: 3600, byUser: true)) == .skipped)
        #expect(PlayStatistics.outcome(of: listening(240, of: nil)) == .played)
        #expect(PlayStatistics.outcome(of: listening(100, of: nil)) == .neither)
        #expect(PlayStatistics.outcome(of: listening(0, of: 10, byUser: true)) == .skipped)
    }
}

/// Client-to-client messaging without sockets.
@Suite("Channel registry")
struct ChannelRegistryTests {
    private func client(_ registry: ChannelRegistry) -> (ClientMailbox, IdleInbox) {
        let inbox = IdleInbox {}
        return (registry.open(inbox: inbox), inbox)
    }

    @Test("channel names are [A-Za-z0-9_.:-]+")
    func names() {
        for good in ["a", "Z9", "a_b-c.d:e", "-"] { #expect(ChannelRegistry.isValidChannelName(good)) }
        for bad in ["", "a b", "ä", "a/b", "a\n"] { #expect(!ChannelRegistry.isValidChannelName(bad)) }
    }

    @Test("16 subscriptions at most; the limit is checked before a repeat")
    func limit() throws {
        let registry = ChannelRegistry()
        let (mailbox, _) = client(registry)
        for index in 0..<16 { try mailbox.subscribe("c\(index)") }
        #expect(throws: MPDError(.exist, "subscription list is full")) { try mailbox.subscribe("c16") }
        #expect(throws: MPDError(.exist, "subscription list is full")) { try mailbox.subscribe("c0") }
        try mailbox.unsubscribe("c15")
        #expect(throws: MPDError(.exist, "already subscribed to this channel")) { try mailbox.subscribe("c0") }
        #expect(throws: MPDError(.noExist, "not subscribed to this channel")) { try mailbox.unsubscribe("c15") }
        #expect(throws: MPDError(.argument, "invalid channel name")) { try mailbox.subscribe("a b") }
    }

    @Test("a message reaches each subscriber once; idle message only when the queue was empty")
    func delivery() throws {
        let registry = ChannelRegistry()
        let (first, firstInbox) = client(registry)
        let (second, secondInbox) = client(registry)
        try first.subscribe("news")
        #expect(registry.channels(partition: "default") == ["news"])
        #expect(registry.send("one", on: "news", partition: "default"))
        #expect(registry.send("two", on: "news", partition: "default"))
        #expect(!registry.send("x", on: "other", partition: "default"))
        #expect(!registry.send("x", on: "news", partition: "elsewhere"))
        #expect(firstInbox.beginWaiting(for: .all) == .message)
        #expect(secondInbox.beginWaiting(for: .all) == nil)
        #expect(
            first.takeMessages() == [
                ChannelMessage(channel: "news", text: "one"), ChannelMessage(channel: "news", text: "two"),
            ])
        #expect(first.takeMessages().isEmpty)
        #expect(second.takeMessages().isEmpty)
        registry.close(first)
        #expect(registry.channels(partition: "default").isEmpty)
    }

    @Test("64 messages at most per client; a message nobody could take fails")
    func queueLimit() throws {
        let registry = ChannelRegistry()
        let (full, _) = client(registry)
        try full.subscribe("c")
        for index in 0..<64 { #expect(registry.send("m\(index)", on: "c", partition: "default")) }
        #expect(!registry.send("dropped", on: "c", partition: "default"))
        let (other, _) = client(registry)
        try other.subscribe("c")
        #expect(registry.send("taken", on: "c", partition: "default"))
        #expect(full.takeMessages().count == 64)
        #expect(other.takeMessages() == [ChannelMessage(channel: "c", text: "taken")])
    }
}
