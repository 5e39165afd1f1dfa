import MPDProtocol
import MusicModel
import Playback
import Settings

/// Commands of MPD's "Audio output devices" group.
enum OutputCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("disableoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            try switchOutput(&invocation, mixerWhenEnabled: true) { _ in false }
        },
        CommandDefinition("enableoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            try switchOutput(&invocation, mixerWhenEnabled: true) { _ in true }
        },
        CommandDefinition("outputs", permission: .read, arguments: .exactly(0)) { invocation in
            for output in invocation.server.partition(for: invocation.session).outputStatuses {
                invocation.response.append("outputid", output.id)
                invocation.response.append("outputname", output.name)
                invocation.response.append("plugin", output.plugin)
                invocation.response.append("outputenabled", output.enabled ? "1" : "0")
                for attribute in output.attributes {
                    invocation.response.append("attribute", "\(attribute.name)=\(attribute.value)")
                }
            }
            return .ok
        },
        CommandDefinition("outputset", permission: .admin, arguments: .exactly(3)) { invocation in
            try setAttribute(&invocation)
        },
        CommandDefinition("toggleoutput", permission: .admin, arguments: .exactly(1)) { invocation in
            try switchOutput(&invocation, mixerWhenEnabled: false) { !$0 }
        },
    ]

    /// `outputset ID NAME VALUE`, in MPD's order of checks: the output must exist, the name be
    /// made of letters, digits and `_`, and the plugin take it (``AudioOutputDevice/setAttribute(name:value:)``).
    /// Success raises idle `output`.
    private static func setAttribute(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let id = Int(try Arguments.unsigned(invocation.arguments[0]))
        let partition = invocation.server.partition(for: invocation.session)
        guard partition.outputStatuses.contains(where: { $0.id == id }) else {
            throw MPDError(.noExist, "No such audio output")
        }
        let name = invocation.arguments[1]
        guard !name.isEmpty,
            name.utf8.allSatisfy({
                $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0)
                    || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else { throw MPDError(.argument, "Illegal attribute name") }
        try partition.setAttribute(output: id, name: name, value: invocation.arguments[2])
        invocation.server.idleBus.emit(.output, partition: partition.name)
        return .ok
    }

    /// Sets output ID's state from its current one; idle `output` when it changed (always for
    /// `toggleoutput`), as MPD raises it. An output with a mixer also raises `mixer` when it
    /// changes, since the volume clients show depends on the enabled mixers: MPD 0.23 does so
    /// for `enableoutput` and `disableoutput`, and for `toggleoutput` only when it disables
    /// (`mixerWhenEnabled` false).
    private static func switchOutput(
        _ invocation: inout CommandInvocation, mixerWhenEnabled: Bool, _ state: (Bool) -> Bool
    ) throws -> CommandOutcome {
        let id = Int(try Arguments.unsigned(invocation.arguments[0]))
        let partition = invocation.server.partition(for: invocation.session)
        guard let output = partition.outputStatuses.first(where: { $0.id == id }) else {
            throw MPDError(.noExist, "No such audio output")
        }
        let enable = state(output.enabled)
        if partition.setOutput(id, enabled: enable) == true {
            // The partition's own clients: its outputs are its business (MPD's partition idle).
            invocation.server.idleBus.emit(.output, partition: partition.name)
            if output.hasMixer && (!enable || mixerWhenEnabled) {
                invocation.server.idleBus.emit(.mixer, partition: partition.name)
            }
        }
        return .ok
    }
}
