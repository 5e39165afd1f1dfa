import MPDProtocol
import MusicModel

/// Runs one command line the way MPD's `command_process` does: tokenize, look up, check
/// permission and argument count, call the handler, and turn failures into `ACK` lines.
struct CommandDispatcher: Sendable {
    /// How running a line ended.
    enum Result: Equatable {
        /// The command succeeded.
        case ok
        /// The command failed; its `ACK` line is in the response.
        case failed
        /// Close the connection after flushing the response.
        case close
        /// The client now idles for these subsystems.
        case idle(IdleSubsystems)
    }

    /// The commands it runs.
    let table: CommandTable

    /// Runs `line` in the session's `invocation`, appending its output (and its `ACK` line if
    /// it fails) to the invocation's response.
    /// - Parameter index: the position in the command list, for the `ACK`.
    nonisolated(nonsending) func run(
        _ line: ArraySlice<UInt8>,
        index: Int,
        invocation: inout CommandInvocation
    ) async -> Result {
        let request: Request
        do {
            request = try Tokenizer.tokenize(line)
        } catch {
            invocation.response.appendRaw(AckLine.format(error.error, index: index, command: ""))
            if case .badCommandWord = error { return .close }
            return .failed
        }
        guard let definition = table[request.command] else {
            let error = MPDError(.unknown, "unknown command \(request.command.mpdQuoted)")
            invocation.response.appendRaw(AckLine.format(error, index: index, command: ""))
            return .failed
        }
        do {
            try definition.check(permissions: invocation.session.permissions, argumentCount: request.arguments.count)
        } catch {
            invocation.response.appendRaw(AckLine.format(error, index: index, command: definition.name))
            return .failed
        }
        invocation.command = definition.name
        invocation.arguments = request.arguments
        invocation.invalidUTF8Arguments = request.invalidUTF8Arguments
        let outcome: CommandOutcome
        do {
            if let handler = definition.synchronousHandler {
                outcome = try handler(&invocation)
            } else {
                outcome = try await definition.handler(&invocation)
            }
        } catch {
            // Output written before the failure stays in front of the ACK, as in MPD.
            let mpdError = CommandError.ack(for: error)
            invocation.response.appendRaw(AckLine.format(mpdError, index: index, command: definition.name))
            return .failed
        }
        switch outcome {
        case .ok: return .ok
        case .close: return .close
        case .idle(let mask): return .idle(mask)
        }
    }
}
