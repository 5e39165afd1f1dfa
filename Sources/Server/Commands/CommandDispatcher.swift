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
        switch runSynchronously(line, index: index, invocation: &invocation) {
        case .done(let result): result
        case .suspends(let definition): await runPrepared(definition, index: index, invocation: &invocation)
        }
    }

    /// How ``runSynchronously(_:index:invocation:)`` left a line.
    enum SynchronousRun {
        /// The line ran, or was answered by an `ACK` before any handler ran.
        case done(Result)
        /// The line's command has an asynchronous handler, which has not run: the command is
        /// looked up and checked, the invocation holds its name and arguments, and
        /// ``runPrepared(_:index:invocation:)`` runs it. Nothing was appended to the response.
        case suspends(CommandDefinition)
    }

    /// Runs `line` as ``run(_:index:invocation:)`` does, as far as that needs no suspension:
    /// all of it when the line's command has a synchronous handler or the line is answered by
    /// an `ACK` before any handler runs.
    func runSynchronously(_ line: ArraySlice<UInt8>, index: Int, invocation: inout CommandInvocation) -> SynchronousRun
    {
        switch prepare(line, index: index, invocation: &invocation) {
        case .answered(let result):
            return .done(result)
        case .ready(let definition):
            guard let handler = definition.synchronousHandler else { return .suspends(definition) }
            return .done(complete(definition, handler, index: index, invocation: &invocation))
        }
    }

    /// Runs the asynchronous handler of a command that ``runSynchronously(_:index:invocation:)``
    /// prepared in this `invocation`, which nothing else used since.
    nonisolated(nonsending) func runPrepared(
        _ definition: CommandDefinition, index: Int, invocation: inout CommandInvocation
    ) async -> Result {
        do {
            return Self.result(of: try await definition.handler(&invocation))
        } catch {
            return fail(definition, error, index: index, invocation: &invocation)
        }
    }

    /// What ``prepare(_:index:invocation:)`` made of a line.
    private enum Preparation {
        /// The line is answered already (its `ACK` is in the response).
        case answered(Result)
        /// The command may run: the invocation holds its name and arguments.
        case ready(CommandDefinition)
    }

    /// Tokenizes `line`, looks its command up and checks permission and argument count, as
    /// MPD does before it calls a handler.
    private func prepare(
        _ line: ArraySlice<UInt8>, index: Int, invocation: inout CommandInvocation
    ) -> Preparation {
        let request: Request
        do {
            request = try Tokenizer.tokenize(line)
        } catch {
            invocation.response.appendRaw(AckLine.format(error.error, index: index, command: ""))
            if case .badCommandWord = error { return .answered(.close) }
            return .answered(.failed)
        }
        guard let definition = table[request.command] else {
            let error = MPDError(.unknown, "unknown command \(request.command.mpdQuoted)")
            invocation.response.appendRaw(AckLine.format(error, index: index, command: ""))
            return .answered(.failed)
        }
        do {
            try definition.check(permissions: invocation.session.permissions, argumentCount: request.arguments.count)
        } catch {
            invocation.response.appendRaw(AckLine.format(error, index: index, command: definition.name))
            return .answered(.failed)
        }
        invocation.command = definition.name
        invocation.arguments = request.arguments
        invocation.invalidUTF8Arguments = request.invalidUTF8Arguments
        return .ready(definition)
    }

    /// Calls a synchronous handler and turns its outcome or error into a result.
    private func complete(
        _ definition: CommandDefinition, _ handler: SynchronousCommandHandler, index: Int,
        invocation: inout CommandInvocation
    ) -> Result {
        do {
            return Self.result(of: try handler(&invocation))
        } catch {
            return fail(definition, error, index: index, invocation: &invocation)
        }
    }

    /// Appends the `ACK` of a handler's error. Output written before the failure stays in
    /// front of the `ACK`, as in MPD.
    private func fail(
        _ definition: CommandDefinition, _ error: any Error, index: Int, invocation: inout CommandInvocation
    ) -> Result {
        let mpdError = CommandError.ack(for: error)
        invocation.response.appendRaw(AckLine.format(mpdError, index: index, command: definition.name))
        return .failed
    }

    private static func result(of outcome: CommandOutcome) -> Result {
        switch outcome {
        case .ok: .ok
        case .close: .close
        case .idle(let mask): .idle(mask)
        }
    }
}
