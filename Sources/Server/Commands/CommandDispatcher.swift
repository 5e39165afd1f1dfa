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

    let table: CommandTable
    let server: ServerContext
    /// Where handlers may stream long responses.
    var output: ResponseStream?

    /// Runs `line`, appending its output (and its `ACK` line if it fails) to `response`.
    /// - Parameter index: the position in the command list, for the `ACK`.
    nonisolated(nonsending) func run(
        _ line: [UInt8],
        index: Int,
        session: inout SessionState,
        response: inout ResponseBuffer
    ) async -> Result {
        let request: Request
        do {
            request = try Tokenizer.tokenize(line)
        } catch {
            response.appendRaw(AckLine.format(error.error, index: index, command: ""))
            if case .badCommandWord = error { return .close }
            return .failed
        }
        guard let definition = table[request.command] else {
            let error = MPDError(.unknown, "unknown command \(request.command.mpdQuoted)")
            response.appendRaw(AckLine.format(error, index: index, command: ""))
            return .failed
        }
        do {
            try definition.check(permissions: session.permissions, argumentCount: request.arguments.count)
        } catch {
            response.appendRaw(AckLine.format(error, index: index, command: definition.name))
            return .failed
        }

        // The session and the response are moved into the invocation and back, not copied: a
        // second reference to the response would make every write copy it (a long command
        // list quadratic), and copying the session retains each of its parts per command.
        var invocation = CommandInvocation(
            command: definition.name,
            arguments: request.arguments,
            invalidUTF8Arguments: request.invalidUTF8Arguments,
            session: consume session,
            response: consume response,
            server: server,
            output: output
        )
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
            (session, response) = Self.takeBack(consume invocation)
            response.appendRaw(AckLine.format(mpdError, index: index, command: definition.name))
            return .failed
        }
        (session, response) = Self.takeBack(consume invocation)
        switch outcome {
        case .ok: return .ok
        case .close: return .close
        case .idle(let mask): return .idle(mask)
        }
    }

    private static func takeBack(_ invocation: consuming CommandInvocation) -> (SessionState, ResponseBuffer) {
        (invocation.session, invocation.response)
    }
}
