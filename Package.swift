// swift-tools-version:6.2
import PackageDescription

/// Settings every Tonearm target shares: Swift 6 mode comes from the package, these add the
/// stricter upcoming features and turn every warning into an error so the tree stays clean.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Tonearm",
    platforms: [.macOS(.v15)],
    // Only the server: the modules share their API with `package` access, inside this package.
    products: [
        .executable(name: "tonearm", targets: ["tonearm"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // System libraries. Each has a shim.h for what Swift cannot import (macros, variadics).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]
        ),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // No pkgConfig: libpulse.pc carries -D_REENTRANT, which SwiftPM refuses.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        // No pkgConfig: avahi-client.pc carries -D_REENTRANT, which SwiftPM refuses.
        .systemLibrary(name: "CAvahi", providers: [.apt(["libavahi-client-dev"])]),
        // libxml2's pull parser, for XSPF playlists (libavformat links it already).
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // libogg, to page the httpd output's Vorbis and Opus streams (libavcodec links it already).
        .systemLibrary(name: "COgg", pkgConfig: "ogg", providers: [.apt(["libogg-dev"])]),
        // glibc's malloc.h: arena limit and trimming (ProcessMemory).
        .systemLibrary(name: "CMalloc"),

        // The vocabulary every layer speaks (tags, songs, filter expressions, idle events, audio
        // formats), with no I/O and nothing of MPD's wire format, so the library and the player
        // need not know the protocol.
        .target(
            name: "MusicModel",
            swiftSettings: strictSettings
        ),
        .target(
            name: "MPDProtocol",
            dependencies: ["MusicModel", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Settings",
            swiftSettings: strictSettings
        ),
        // Threads named for `top -H` and glibc's heap: what the library's and the audio
        // threads share below both.
        .target(
            name: "Platform",
            dependencies: ["CMalloc"],
            swiftSettings: strictSettings
        ),
        // The playlist file formats (m3u, extended m3u, pls, xspf) and how an entry resolves:
        // no I/O, so that the fuzzers link them without the database.
        .target(
            name: "PlaylistFormats",
            dependencies: ["CLibXML2"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MediaLibrary",
            dependencies: [
                "CFFmpeg", "MusicModel", "Platform", "PlaylistFormats",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Not MPDProtocol: the player speaks MusicModel's vocabulary and throws its own errors,
        // which Server turns into ACKs; MPD's wire stays out of the audio code. NIO is here only
        // for the `httpd` output's listeners (Outputs/HTTPD), served on the event loops the
        // server uses too; no output thread touches it.
        .target(
            name: "Playback",
            dependencies: [
                "CFFmpeg", "CALSA", "CPulse", "COgg", "MusicModel", "MediaLibrary", "Platform", "Settings",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Zeroconf",
            dependencies: ["CAvahi", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Server",
            dependencies: [
                "MusicModel", "MPDProtocol", "Settings", "Playback", "MediaLibrary", "Platform", "PlaylistFormats",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "tonearm",
            dependencies: [
                "Server", "Settings", "MusicModel", "MPDProtocol", "Playback", "MediaLibrary", "Platform", "Zeroconf",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings,
            plugins: ["VersionPlugin"]
        ),
        // `buildVersion` for the executable, read from git by packaging/version.sh at build time.
        .plugin(name: "VersionPlugin", capability: .buildTool()),

        // What the test targets share: doubles such as the clock-paced pipeline, and
        // `TestClient`, which runs command lines through a session without a socket. A target
        // of its own so that no double lives in Sources.
        .target(
            name: "TestSupport",
            dependencies: [
                "Server", "Playback", "Settings", "MPDProtocol", "MusicModel", "MediaLibrary",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),

        .testTarget(
            name: "MPDProtocolTests",
            dependencies: [
                "MusicModel", "MPDProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MediaLibraryTests",
            dependencies: [
                "MediaLibrary", "MusicModel", "MPDProtocol", "Platform", "PlaylistFormats", "CFFmpeg",
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PlaybackTests",
            dependencies: ["Playback", "MediaLibrary", "MusicModel", "MPDProtocol", "Settings", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "PlatformTests", dependencies: ["Platform"], swiftSettings: strictSettings),
        .testTarget(name: "SettingsTests", dependencies: ["Settings"], swiftSettings: strictSettings),
        .testTarget(name: "ZeroconfTests", dependencies: ["Zeroconf"], swiftSettings: strictSettings),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "Playback", "Zeroconf", "MusicModel", "MPDProtocol", "MediaLibrary", "Platform", "Settings",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
