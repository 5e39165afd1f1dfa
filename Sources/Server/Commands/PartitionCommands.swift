import MPDProtocol
import Settings

/// Commands of MPD's "Partition commands" group (MPD's `PartitionCommands.cxx`): the state
/// lives in ``PartitionSet``.
enum PartitionCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("delpartition", permission: .admin, arguments: .exactly(1)) { invocation in
            try await invocation.server.partitions.delete(invocation.arguments[0])
            return .ok
        },
        CommandDefinition("listpartitions", permission: .read, arguments: .exactly(0)) { invocation in
            // MPD prints the names only, although its documentation promises more.
            for partition in invocation.server.partitions.all {
                invocation.response.append("partition", partition.name)
            }
            return .ok
        },
        CommandDefinition("moveoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            let destination = invocation.server.partition(for: invocation.session)
            try await invocation.server.partitions.moveOutput(named: invocation.arguments[0], into: destination)
            return .ok
        },
        CommandDefinition("newpartition", permission: .admin, arguments: .exactly(1)) { invocation in
            try await invocation.server.partitions.create(invocation.arguments[0])
            return .ok
        },
        CommandDefinition("partition", permission: .read, arguments: .exactly(1), handler: switchPartition),
    ]

    /// `partition NAME`: the client works with that partition from now on.
    private static func switchPartition(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let name = invocation.arguments[0]
        try await invocation.server.partitions.join(name, inbox: try invocation.mailbox.inbox)
        invocation.session.partition = name
        return .ok
    }
}
