#if canImport(Glibc)
    import Glibc
#endif

/// Writes a file so that no reader, crash, power cut or full disk ever leaves half of it: the
/// bytes go to a temporary file in the same folder, which is `fsync`ed and renamed over the
/// target, and then the folder is `fsync`ed so that the rename itself survives a power cut.
/// On any failure the temporary file is removed and the target is as it was.
package enum AtomicFile {
    /// The step that failed.
    package enum Step: String, Sendable {
        /// Creating the temporary file.
        case create
        /// Writing or syncing it.
        case write
        /// Renaming it over the target.
        case replace
    }

    /// Why a write failed, with the system's reason.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// The step that failed.
        package let step: Step
        /// The file it failed on: the temporary file, or the target for `replace`.
        package let path: String
        /// The system's error number.
        package let code: Int32

        /// The system's words for ``code`` (`No space left on device`).
        package var reason: String { String(cString: strerror(code)) }

        /// `Failed to write PATH: No space left on device`.
        package var description: String { "Failed to \(step.rawValue) \(path): \(reason)" }
    }

    /// Replaces the file at `path` with `bytes`, made with `mode` (less the umask).
    package static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o644) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // Unique, so that two writers of the same file never share a temporary one.
        let temporary = "\(folder)/.\(name).\(getpid())-\(UInt32.random(in: 0 ... .max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw Failure(step: .create, path: temporary, code: errno) }
        var failure: Failure?
        if let code = bytes.withUnsafeBytes({ writeAll($0, to: descriptor) }) {
            failure = Failure(step: .write, path: temporary, code: code)
        }
        if failure == nil && fsync(descriptor) != 0 { failure = Failure(step: .write, path: temporary, code: errno) }
        if close(descriptor) != 0 && failure == nil { failure = Failure(step: .write, path: temporary, code: errno) }
        if failure == nil && rename(temporary, path) != 0 { failure = Failure(step: .replace, path: path, code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        // The rename is an entry in the folder: without this it may be lost in a power cut,
        // leaving the old file. A failure here leaves the new file in place, so it is not one.
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}

/// Writes all of `bytes` to `descriptor`, going on after a short write or a signal.
/// - Returns: nil once all is written, else the error number (`ENOSPC` when the disk took
///   part of the bytes and then nothing).
package func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
    var done = 0
    while done < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
        if written > 0 {
            done += written
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return written < 0 ? errno : ENOSPC
        }
    }
    return nil
}
