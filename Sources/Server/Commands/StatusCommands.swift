import Configuration
import MPDProtocol

/// Commands of MPD's "Querying MPD's status" group.
enum StatusCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("idle", permission: .read, arguments: .atLeast(0), handler: idle),
    ]

    /// `idle [SUBSYSTEM...]`: wait for changes; names are case-insensitive, none means all.
    static func idle(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        var mask: IdleSubsystems = []
        for name in invocation.arguments {
            guard let subsystem = IdleSubsystems(name: name) else {
                throw MPDError(.argument, "Unrecognized idle event: \(name)")
            }
            mask.formUnion(subsystem)
        }
        return .idle(mask.isEmpty ? .all : mask)
    }
}
