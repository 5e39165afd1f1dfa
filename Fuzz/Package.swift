// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for Tonearm's pure parsers. Built separately from the main package because
// every target here is compiled with the fuzzer and address sanitizers:
//   swift build -c release --sanitize=fuzzer --sanitize=address
// Sources/MusicModel, Sources/MPDProtocol, Sources/Settings and Sources/PlaylistFormats link to the main package's
// modules of those names, so the fuzzers test the same code.
/// The main package's language settings, so that the shared sources compile the same here
/// (`import` is internal by default; `package import` and `public import` say more).
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "TonearmFuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .target(name: "MusicModel", swiftSettings: sharedSettings),
        .target(
            name: "MPDProtocol",
            dependencies: ["MusicModel", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: sharedSettings
        ),
        .target(name: "Settings", swiftSettings: sharedSettings),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0"),
        .target(name: "PlaylistFormats", dependencies: ["CLibXML2"], swiftSettings: sharedSettings),
        .executableTarget(
            name: "FuzzRequestFraming", dependencies: ["MusicModel", "MPDProtocol"], swiftSettings: sharedSettings
        ),
        .executableTarget(
            name: "FuzzConfigParser", dependencies: ["Settings"], swiftSettings: sharedSettings
        ),
        .executableTarget(
            name: "FuzzFilterExpression", dependencies: ["MusicModel", "MPDProtocol"], swiftSettings: sharedSettings
        ),
        .executableTarget(
            name: "FuzzTokenizer", dependencies: ["MPDProtocol"], swiftSettings: sharedSettings
        ),
        .executableTarget(
            name: "FuzzPlaylistFormats", dependencies: ["PlaylistFormats"], swiftSettings: sharedSettings
        ),
    ]
)
