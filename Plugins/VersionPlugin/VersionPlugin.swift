import Foundation
import PackagePlugin

/// Gives the `tonearm` target a `buildVersion` constant read from git at build time, so that
/// `tonearm --version` and the Debian package (`make deb`) name the same version without a
/// generated file in the repository.
///
/// A build command runs `packaging/version.sh` whenever one of its inputs changed: the script,
/// and the git files that move with every commit, checkout, reset or `git add` (`HEAD`, its
/// log, the index, the packed refs). An edit that is not yet added leaves the `.dirty` mark as
/// the last of those left it, until the next commit or `git add`.
@main
struct VersionPlugin: BuildToolPlugin {
    /// One build command that writes `BuildVersion.swift` into the plugin's work folder.
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let package = context.package.directoryURL
        let script = package.appending(path: "packaging/version.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated/BuildVersion.swift")
        return [
            .buildCommand(
                displayName: "Reading the version from git",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, "--swift", output.path],
                inputFiles: [script] + gitFiles(in: package),
                outputFiles: [output])
        ]
    }

    /// The files of the repository's git folders that change when the version does; none
    /// outside a git checkout (a source tarball), where the version is the script's default.
    private func gitFiles(in package: URL) -> [URL] {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["-C", package.path, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]
        let pipe = Pipe()
        git.standardOutput = pipe
        git.standardError = FileHandle.nullDevice
        guard (try? git.run()) != nil else { return [] }
        let printed = pipe.fileHandleForReading.readDataToEndOfFile()
        git.waitUntilExit()
        guard git.terminationStatus == 0 else { return [] }
        let folders = String(decoding: printed, as: UTF8.self).split(separator: "\n").map {
            URL(fileURLWithPath: String($0))
        }
        guard folders.count == 2 else { return [] }
        let candidates = [
            folders[0].appending(path: "HEAD"), folders[0].appending(path: "logs/HEAD"),
            folders[0].appending(path: "index"), folders[1].appending(path: "packed-refs"),
        ]
        return candidates.filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
