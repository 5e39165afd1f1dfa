// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for Tonearm's pure parsers. Built separately from the main package because
// every target here is compiled with the fuzzer and address sanitizers:
//   swift build -c release --sanitize=fuzzer --sanitize=address
// Sources/MusicModel, Sources/MPDProtocol, Sources/Settings and Sources/PlaylistFormats link to the main package's
// modules of those names, so the fuzzers test the same code.
let package = Package(
    name: "TonearmFuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "MusicModel"),
        .target(
            name: "MPDProtocol",
            dependencies: ["MusicModel", .product(name: "NIOCore", package: "swift-nio")]
        ),
        .target(name: "Settings"),
        .target(name: "PlaylistFormats"),
        .executableTarget(name: "FuzzRequestFraming", dependencies: ["MusicModel", "MPDProtocol"]),
        .executableTarget(name: "FuzzConfigParser", dependencies: ["Settings"]),
        .executableTarget(name: "FuzzFilterExpression", dependencies: ["MusicModel", "MPDProtocol"]),
        .executableTarget(name: "FuzzTokenizer", dependencies: ["MPDProtocol"]),
        .executableTarget(name: "FuzzPlaylistFormats", dependencies: ["PlaylistFormats"]),
    ]
)
