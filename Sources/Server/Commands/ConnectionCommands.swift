import MPDProtocol
import MusicModel
import Settings

/// Commands of MPD's "Connection settings" group.
enum ConnectionCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("binarylimit", permission: .none, arguments: .exactly(1), handler: binaryLimit),
        CommandDefinition("close", permission: .none, arguments: nil) { _ in .close },
        CommandDefinition("kill", permission: .admin, arguments: nil, handler: kill),
        CommandDefinition("password", permission: .none, arguments: .exactly(1), handler: password),
        CommandDefinition("ping", permission: .none, arguments: .exactly(0)) { _ in .ok },
        CommandDefinition("protocol", permission: .none, arguments: .atLeast(0), handler: protocolFeatures),
        CommandDefinition("tagtypes", permission: .none, arguments: .atLeast(0), handler: tagTypes),
    ]

    /// `kill`: shut the whole server down cleanly; the connection closes without an answer.
    static func kill(_ invocation: inout CommandInvocation) -> CommandOutcome {
        invocation.server.requestShutdown()
        return .close
    }

    /// `password SECRET`: replace the client's permissions with those of the password.
    static func password(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        guard let permissions = invocation.server.permissions(forPassword: invocation.arguments[0]) else {
            throw MPDError(.password, "incorrect password")
        }
        invocation.session.permissions = permissions
        return .ok
    }

    /// `binarylimit SIZE`: the chunk size for `albumart` and `readpicture`, from 64 bytes up to
    /// 4 KiB less than the output buffer.
    static func binaryLimit(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let maximum = UInt64(max(0, invocation.server.configuration.maxOutputBufferSize - 4096))
        let value = try Arguments.unsigned(invocation.arguments[0], maximum: maximum)
        guard value >= 64 else { throw MPDError(.argument, "Value too small") }
        invocation.session.binaryLimit = Int(value)
        return .ok
    }

    /// `tagtypes [all|clear|enable|disable|reset|available] [NAME...]`: which tags this client
    /// sees in song blocks.
    static func tagTypes(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let available = invocation.server.metadataTags
        var arguments = invocation.arguments[...]
        guard let subcommand = arguments.popFirst() else {
            for tag in invocation.session.tagMask.intersection(available).tags {
                invocation.response.append("tagtype", tag.name)
            }
            return .ok
        }
        switch subcommand {
        case "all", "clear", "available":
            guard arguments.isEmpty else { throw MPDError(.argument, "Too many arguments") }
            switch subcommand {
            case "all": invocation.session.tagMask = .all
            case "clear": invocation.session.tagMask = .none
            default: for tag in available.tags { invocation.response.append("tagtype", tag.name) }
            }
        case "enable":
            invocation.session.tagMask = invocation.session.tagMask.union(try tagMask(arguments))
        case "disable":
            invocation.session.tagMask = invocation.session.tagMask.subtracting(try tagMask(arguments))
        case "reset":
            invocation.session.tagMask = try tagMask(arguments)
        default:
            throw MPDError(.argument, "Unknown sub command")
        }
        return .ok
    }

    private static func tagMask(_ names: ArraySlice<String>) throws(MPDError) -> TagMask {
        guard !names.isEmpty else { throw MPDError(.argument, "Not enough arguments") }
        var tags: [TagType] = []
        for name in names {
            guard let tag = TagType(name: name) else { throw MPDError(.argument, "Unknown tag type") }
            tags.append(tag)
        }
        return TagMask(tags)
    }

    /// `protocol [all|clear|enable|disable|available] [FEATURE...]`: per-client protocol
    /// features (MPD 0.24).
    static func protocolFeatures(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        var arguments = invocation.arguments[...]
        guard let subcommand = arguments.popFirst() else {
            for feature in ProtocolFeature.allCases where invocation.session.protocolFeatures.contains(feature) {
                invocation.response.append("feature", feature.rawValue)
            }
            return .ok
        }
        switch subcommand {
        case "all", "clear", "available":
            guard arguments.isEmpty else { throw MPDError(.argument, "Too many arguments") }
            switch subcommand {
            case "all": invocation.session.protocolFeatures = Set(ProtocolFeature.allCases)
            case "clear": invocation.session.protocolFeatures = []
            default: for feature in ProtocolFeature.allCases { invocation.response.append("feature", feature.rawValue) }
            }
        case "enable":
            invocation.session.protocolFeatures.formUnion(try features(arguments))
        case "disable":
            invocation.session.protocolFeatures.subtract(try features(arguments))
        default:
            throw MPDError(.argument, "Unknown sub command")
        }
        return .ok
    }

    private static func features(_ names: ArraySlice<String>) throws(MPDError) -> [ProtocolFeature] {
        guard !names.isEmpty else { throw MPDError(.argument, "Not enough arguments") }
        var features: [ProtocolFeature] = []
        for name in names {
            guard let feature = ProtocolFeature(name: name) else {
                throw MPDError(.argument, "Unknown protocol feature")
            }
            features.append(feature)
        }
        return features
    }
}
