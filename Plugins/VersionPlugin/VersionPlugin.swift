import Foundation
import PackagePlugin

/// Gives the `tonearm` target a `buildVersion` constant read from git at build time, so that
/// `tonearm --version` and the Debian package (`make deb`) name the same version without a
/// generated file in the repository.
///
/// A prebuild command runs before every build; `packaging/version.sh` rewrites its output only
/// when the version changed, so a build on the same commit recompiles nothing.
@main
struct VersionPlugin: BuildToolPlugin {
    /// One prebuild command that writes `BuildVersion.swift` into the plugin's work folder.
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = context.package.directoryURL.appending(path: "packaging/version.sh")
        return [
            .prebuildCommand(
                displayName: "Reading the version from git",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, "--swift", output.appending(path: "BuildVersion.swift").path],
                outputFilesDirectory: output)
        ]
    }
}
