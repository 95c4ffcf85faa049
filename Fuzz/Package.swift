// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for switchboard, in a package of their own so that the main package's
// `swift build` and `swift test` never see the fuzzer flags. Build and run them with `scripts/fuzz`:
// it compiles every module with AddressSanitizer and libFuzzer's coverage instrumentation
// (`-sanitize=address -sanitize-coverage=...`); only the fuzzer binaries below link libFuzzer
// itself (`-sanitize=fuzzer`), since libFuzzer's `main` would clash with the build tools' own. docs/fuzzing.md
// says more.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// libFuzzer's runtime (its driver is called from FuzzDriver.main).
let fuzzerLinking: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]

let package = Package(
    name: "switchboard-fuzz",
    dependencies: [
        .package(name: "switchboard", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The driver every fuzzer binary shares: target selection, property checks, chunking, output checks.
        .target(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "SwitchboardJSONRPC", package: "switchboard"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Parsers below the domains: the framer, envelopes, the Codable decoder, cursors, timestamps,
        // the plugin-side reader.
        .executableTarget(
            name: "CoreFuzzers",
            dependencies: [
                "FuzzSupport",
                .product(name: "SwitchboardJSONRPC", package: "switchboard"),
                .product(name: "SwitchboardHost", package: "switchboard"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: fuzzerLinking
        ),
        // Requests through the real methods on in-memory services: dispatch, iCalendar, imports.
        .executableTarget(
            name: "HostFuzzers",
            dependencies: [
                "FuzzSupport",
                .product(name: "SwitchboardJSONRPC", package: "switchboard"),
                .product(name: "SwitchboardHost", package: "switchboard"),
                .product(name: "SwitchboardDomains", package: "switchboard"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: fuzzerLinking
        ),
    ]
)
