import MPDProtocol
import Settings
import Testing

@testable import Server

@Suite("Command table")
struct CommandTableTests {
    @Test("the table is sorted and holds exactly the implemented commands")
    func standardTable() {
        let names = CommandTable.standard.definitions.map(\.name)
        #expect(names == names.sorted())
        #expect(
            Set(names) == [
                "binarylimit", "close", "commands", "config", "decoders", "idle", "kill", "notcommands",
                "password", "ping", "protocol", "tagtypes", "urlhandlers",
                "albumart", "listall", "listallinfo", "listfiles", "lsinfo", "readcomments", "readpicture",
                "rescan", "stats", "status", "update", "count", "find", "list", "search", "searchcount",
                "findadd", "searchadd", "clearerror", "currentsong",
                "next", "pause", "play", "playid", "previous", "seek", "seekcur", "seekid", "stop",
                "consume", "crossfade", "getvol", "mixrampdb", "mixrampdelay", "random", "repeat", "replay_gain_mode",
                "replay_gain_status", "setvol", "shufflemode", "single", "volume",
                "add", "addid", "addtagid", "clear", "cleartagid", "delete", "deleteid", "move", "moveid", "prio",
                "prioid", "rangeid", "shuffle", "swap", "swapid",
                "playlist", "playlistfind", "playlistid", "playlistinfo", "playlistsearch", "plchanges",
                "plchangesposid",
                "outputs", "outputset", "enableoutput", "disableoutput", "toggleoutput",
                "listplaylist", "listplaylistinfo", "listplaylists", "load", "playlistadd", "playlistclear",
                "playlistdelete", "playlistlength", "playlistmove", "rename", "rm", "save", "searchaddpl",
                "searchplaylist",
                "smartplaylist", "smartplaylistinfo",
                "sticker", "stickernames", "stickernamestypes", "stickertypes",
                "channels", "readmessages", "sendmessage", "subscribe", "unsubscribe",
                "delpartition", "listpartitions", "moveoutput", "newpartition", "partition",
            ])
    }

    @Test("lookup is case-sensitive, as MPD's strcmp")
    func lookup() {
        #expect(CommandTable.standard["ping"] != nil)
        #expect(CommandTable.standard["Ping"] == nil)
    }

    @Test("every command is found by its whole name, and only by it")
    func lookupByWholeName() {
        let table = CommandTable.standard
        for definition in table.definitions {
            let name = definition.name
            #expect(table[name] === definition, "\(name)")
            // A prefix, the name with more after it, and a name as long with its last letter
            // changed, each find another command or none.
            for other in [String(name.dropLast()), name + "s", name + "_", String(name.dropLast()) + "_"] {
                #expect(table[other]?.name ?? other == other, "\(other)")
            }
        }
        for unknown in ["", "_ping", "9ping", "é", "x", "playlistfindsearchinfoaddsomethinglong"] {
            #expect(table[unknown] == nil, "\(unknown)")
        }
    }

    @Test("permission and argument checks give MPD's messages in MPD's order")
    func checks() {
        let ping = CommandTable.standard["ping"]!
        let idle = CommandTable.standard["idle"]!
        let kill = CommandTable.standard["kill"]!
        #expect(throws: MPDError(.argument, "wrong number of arguments for \"ping\"")) {
            try ping.check(permissions: .all, argumentCount: 1)
        }
        #expect(throws: MPDError(.permission, "you don't have permission for \"idle\"")) {
            try idle.check(permissions: .none, argumentCount: 99)
        }
        #expect(throws: Never.self) { try kill.check(permissions: .all, argumentCount: 80) }
        let ranged = CommandDefinition("x", permission: .none, arguments: .between(1, 2)) { _ in .ok }
        #expect(throws: MPDError(.argument, "too few arguments for \"x\"")) {
            try ranged.check(permissions: .none, argumentCount: 0)
        }
        #expect(throws: MPDError(.argument, "too many arguments for \"x\"")) {
            try ranged.check(permissions: .none, argumentCount: 3)
        }
    }

    @Test("commands and notcommands split the table by permission")
    func permissionSplit() {
        let table = CommandTable.standard
        let anonymous = table.names(allowedFor: .none)
        #expect(
            anonymous == [
                "binarylimit", "close", "commands", "notcommands", "password", "ping", "protocol", "tagtypes",
            ])
        #expect(table.names(deniedFor: .none).count + anonymous.count == table.definitions.count)
        // MPD's bits: reading, adding, playback control (`player`) and administration.
        let readOnly = Set(table.names(allowedFor: .read))
        #expect(readOnly.isSuperset(of: ["status", "currentsong", "playlistinfo", "plchanges", "getvol", "lsinfo"]))
        #expect(readOnly.isDisjoint(with: ["add", "play", "setvol", "clear", "update"]))
        #expect(Set(table.names(allowedFor: [.read, .add])).isSuperset(of: ["add", "addid", "findadd", "rangeid"]))
        #expect(!table.names(allowedFor: [.read, .add]).contains("clear"))
        #expect(Set(table.names(allowedFor: [.read, .player])).isSuperset(of: ["play", "clear", "delete", "setvol"]))
        #expect(table.names(allowedFor: .read).contains("lsinfo"))
        #expect(!table.names(allowedFor: .read).contains("update"))
        #expect(table.names(deniedFor: .all) == [])
    }

    @Test("handlers without an await are called without an async call; the others are not")
    func synchronousHandlers() {
        let table = CommandTable.standard
        // The fast path of the dispatcher: these never suspend.
        for name in ["ping", "status", "currentsong", "swap", "prio", "move", "addid"] {
            #expect(table[name]?.synchronousHandler != nil, "\(name)")
        }
        // These may scan the library off the event loop or write pages under backpressure:
        // they must stay async.
        for name in ["stats", "playlistinfo", "listallinfo", "save"] {
            #expect(table[name]?.synchronousHandler == nil, "\(name)")
        }
    }
}
