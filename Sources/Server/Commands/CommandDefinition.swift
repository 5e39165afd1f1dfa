package import MPDProtocol
package import MusicModel
package import NIOCore
package import Settings

/// What a handler returns when it did not fail.
package enum CommandOutcome: Sendable, Equatable {
    /// Success: the session answers `OK` (or `list_OK` inside a list).
    case ok
    /// Flush what was written and close the connection, answering nothing more (`close`).
    case close
    /// Enter idle mode waiting for these subsystems; the answer comes later.
    case idle(IdleSubsystems)
}

/// Everything a command handler works with.
///
/// A session keeps one for its whole life and the dispatcher sets the command and its
/// arguments in it for each line: the client's state and the response are never moved or
/// copied in and out per command.
package struct CommandInvocation: Sendable {
    /// The canonical name of the command being run.
    package internal(set) var command: String
    /// The arguments, unquoted.
    package internal(set) var arguments: [String]
    /// Which arguments were not valid UTF-8 (see ``Request/invalidUTF8Arguments``).
    package internal(set) var invalidUTF8Arguments: Set<Int>
    /// The client's state; handlers may change it.
    package var session: SessionState
    /// The response body written so far.
    package var response: ResponseBuffer
    /// The server-wide services.
    package let server: ServerContext
    /// Where a long response is sent in parts; `nil` where the caller collects it whole.
    package let output: ResponseStream?

    /// Sends what was written so far once it has grown large, so that a long listing streams
    /// out under the connection's backpressure instead of being built whole in memory.
    package mutating func flushIfLarge() async throws {
        guard response.count >= ResponseStream.flushThreshold, let output else { return }
        try await output.write(response.take())
        // A client that reads as fast as it is written never makes the write wait: let the
        // other sessions of this event loop in between pages of a long answer.
        await EventLoopTaskExecutor.yieldToOtherSessions()
    }
}

/// Writes response bytes to the client, waiting while the client's buffer is full.
package struct ResponseStream: Sendable {
    /// How much output a handler collects before sending it.
    package static let flushThreshold = 64 * 1024
    /// Sends bytes to the client.
    package let write: @Sendable (ByteBuffer) async throws -> Void

    /// Creates a stream around a writer.
    package init(write: @escaping @Sendable (ByteBuffer) async throws -> Void) {
        self.write = write
    }
}

/// A command handler. It writes its output into the invocation and reports failure by
/// throwing ``MPDError``; any other error becomes `ACK 5` with the error's description.
package typealias CommandHandler = @Sendable (inout CommandInvocation) async throws -> CommandOutcome

/// A command handler that never suspends: most commands (`ping`, `status`, the queue's edits).
package typealias SynchronousCommandHandler = @Sendable (inout CommandInvocation) throws -> CommandOutcome

/// One entry of the command table: MPD's `struct command`.
///
/// A class: every command line looks its definition up, and a reference is one retain where
/// a copy of the value retained each of its names and closures.
package final class CommandDefinition: Sendable {
    /// The command word.
    package let name: String
    /// The permissions a client needs to run it.
    package let permission: Permissions
    /// The fewest arguments accepted, or `nil` when the count is not checked at all.
    package let minimumArguments: Int?
    /// The most arguments accepted, or `nil` for no upper limit.
    package let maximumArguments: Int?
    /// What the command needs to be offered in `commands`.
    package let availability: Availability
    /// The implementation.
    package let handler: CommandHandler
    /// The same implementation, called without an async call when the handler never suspends:
    /// an async call from the session makes the runtime switch executors on entry and on
    /// return (reading the task's preferred executor under its status lock), which cost more
    /// than `ping` itself in a command list.
    package let synchronousHandler: SynchronousCommandHandler?

    /// Creates a definition.
    /// - Parameters:
    ///   - arguments: the accepted argument counts; `nil` leaves the count unchecked, as MPD's
    ///     `-1` minimum does for `close` and `kill`.
    ///   - availability: what the command needs; without it `commands` hides the command
    ///     (which still runs and says what is missing), as MPD's `command_available` does.
    package convenience init(
        _ name: String,
        permission: Permissions,
        arguments: ArgumentCount?,
        availability: Availability = .always,
        handler: @escaping CommandHandler
    ) {
        self.init(name, permission, arguments, availability, handler, synchronousHandler: nil)
    }

    /// Creates a definition whose handler never suspends; the dispatcher calls it directly.
    /// Overload resolution picks this one for every handler that has no `await`.
    package convenience init(
        _ name: String,
        permission: Permissions,
        arguments: ArgumentCount?,
        availability: Availability = .always,
        handler: @escaping SynchronousCommandHandler
    ) {
        self.init(name, permission, arguments, availability, { try handler(&$0) }, synchronousHandler: handler)
    }

    private init(
        _ name: String,
        _ permission: Permissions,
        _ arguments: ArgumentCount?,
        _ availability: Availability,
        _ handler: @escaping CommandHandler,
        synchronousHandler: SynchronousCommandHandler?
    ) {
        self.name = name
        self.permission = permission
        self.availability = availability
        switch arguments {
        case nil: (minimumArguments, maximumArguments) = (nil, nil)
        case .exactly(let n)?: (minimumArguments, maximumArguments) = (n, n)
        case .between(let low, let high)?: (minimumArguments, maximumArguments) = (low, high)
        case .atLeast(let low)?: (minimumArguments, maximumArguments) = (low, nil)
        }
        self.handler = handler
        self.synchronousHandler = synchronousHandler
    }

    /// What a command needs to be available.
    package enum Availability: Sendable {
        /// Nothing: always offered.
        case always
        /// A sticker database (`sticker_file`).
        case stickerDatabase

        /// Whether the server has what the command needs.
        func isMet(by server: ServerContext) -> Bool {
            switch self {
            case .always: true
            case .stickerDatabase: server.stickers != nil
            }
        }
    }

    /// How many arguments a command takes.
    package enum ArgumentCount: Sendable {
        /// Exactly this many.
        case exactly(Int)
        /// From the first to the second number, both included.
        case between(Int, Int)
        /// This many or more.
        case atLeast(Int)
    }

    /// MPD's check before the handler runs: permission first, then the argument count.
    /// - Throws: ``MPDError`` with MPD's message.
    func check(permissions: Permissions, argumentCount count: Int) throws(MPDError) {
        guard permissions.isSuperset(of: permission) else {
            throw MPDError(.permission, "you don't have permission for \(name.mpdQuoted)")
        }
        guard let minimum = minimumArguments else { return }
        if minimum == maximumArguments, count != minimum {
            throw MPDError(.argument, "wrong number of arguments for \(name.mpdQuoted)")
        }
        if count < minimum { throw MPDError(.argument, "too few arguments for \(name.mpdQuoted)") }
        if let maximum = maximumArguments, count > maximum {
            throw MPDError(.argument, "too many arguments for \(name.mpdQuoted)")
        }
    }
}
