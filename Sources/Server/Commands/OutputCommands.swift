import Configuration
import MPDProtocol
import Playback

/// Commands of MPD's "Audio output devices" group.
enum OutputCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("disableoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            try switchOutput(&invocation) { _ in false }
        },
        CommandDefinition("enableoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            try switchOutput(&invocation) { _ in true }
        },
        CommandDefinition("outputs", permission: .read, arguments: .exactly(0)) { invocation in
            for output in invocation.server.outputs?.outputStatuses ?? [] {
                invocation.response.append("outputid", output.id)
                invocation.response.append("outputname", output.name)
                invocation.response.append("plugin", output.plugin)
                invocation.response.append("outputenabled", output.enabled ? "1" : "0")
            }
            return .ok
        },
        CommandDefinition("toggleoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            try switchOutput(&invocation) { !$0 }
        },
    ]

    /// Sets output ID's state from its current one; idle `output` when it changed (always for
    /// `toggleoutput`), as MPD raises it.
    private static func switchOutput(_ invocation: inout CommandInvocation, _ state: (Bool) -> Bool) throws -> CommandOutcome {
        let id = Int(try Arguments.unsigned(invocation.arguments[0]))
        guard let control = invocation.server.outputs, let output = control.outputStatuses.first(where: { $0.id == id }) else {
            throw MPDError(.noExist, "No such audio output")
        }
        if control.setOutput(id, enabled: state(output.enabled)) == true {
            invocation.server.idleBus.emit(.output)
        }
        return .ok
    }
}
