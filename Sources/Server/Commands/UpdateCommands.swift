import MPDProtocol
import MediaLibrary
import Settings

/// `update` and `rescan`, of MPD's "music database" group.
enum UpdateCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("rescan", permission: .control, arguments: .between(0, 1), handler: rescan),
        CommandDefinition("update", permission: .control, arguments: .between(0, 1), handler: update),
    ]

    /// `update [URI]`: queue a scan of URI (everything by default); prints the job id.
    static func update(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        try enqueue(&invocation, rescan: false)
    }

    /// `rescan [URI]`: as `update`, reading unchanged files again too.
    static func rescan(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        try enqueue(&invocation, rescan: true)
    }

    private static func enqueue(_ invocation: inout CommandInvocation, rescan: Bool) throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        var uri = invocation.arguments.first ?? ""
        if uri == "/" { uri = "" }
        guard uri.isEmpty || LibraryURI.isSafeLocal(uri) else { throw MPDError(.argument, "Malformed path") }
        let job = try library.updates.enqueue(uri, rescan: rescan)
        invocation.response.append("updating_db", job)
        return .ok
    }
}
