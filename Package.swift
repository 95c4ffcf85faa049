// swift-tools-version:6.0
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode comes with the tools version.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// `SWITCHBOARD_STATIC_EXECUTABLE=1` (scripts/run, scripts/install and scripts/bench set it, with
/// `--static-swift-stdlib`): the release binary links everything statically (the Swift runtime,
/// Foundation, glibc, jansson, SQLite): no dynamic loader, no relocations to apply, a third fewer page
/// faults, so the first answer comes sooner (docs/benchmarks.md). glibc's user and host look-ups then
/// need the NSS libraries of the glibc it was built with, at run time. Without it, a plain
/// `swift build -c release` links as any Swift program does.
let staticExecutableSettings: [LinkerSetting] = Context.environment["SWITCHBOARD_STATIC_EXECUTABLE"] == "1"
    ? [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]
    : []

let package = Package(
    name: "switchboard",
    products: [
        .executable(name: "switchboard", targets: ["switchboard"]),
        .library(name: "SwitchboardHost", targets: ["SwitchboardHost"]),
        // For the fuzzers in Fuzz/ (a package of its own, built with the sanitizers by scripts/fuzz).
        .library(name: "SwitchboardJSONRPC", targets: ["Jansson", "JSONRPC", "SwitchboardCore"]),
        .library(name: "SwitchboardDomains", targets: ["DomainMethods", "CalendarDomain", "CatalogDomain", "ChatDomain", "FeedDomain", "MailDomain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // C: jansson from the system, and the few libc calls Swift cannot make (variadic prctl, syscall).
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .target(name: "CSystemShims"),
        // System calls retried on EINTR, in one place, and the one loop that writes a whole buffer.
        .target(name: "SystemCalls", swiftSettings: swiftSettings),
        // jansson's allocator: small blocks reused from per-thread lists (installed before main).
        .target(name: "CJanssonAlloc"),
        // C: libical from the system, for recurrence rules and iCalendar text.
        .systemLibrary(
            name: "CLibical",
            pkgConfig: "libical",
            providers: [.apt(["libical-dev"])]
        ),
        // ICU's regular expressions from the system (libicu-dev), for JSON Schema `pattern`: compiled once,
        // matched with a time and memory bound. Wrappers give the version-renamed functions fixed names.
        .target(
            name: "CICURegex",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc"), .linkedLibrary("icudata")]
        ),
        // The system ICU's collation, for sort keys: a catalog's sectors are ordered by comparing each
        // name's key once made, not by collating two names at every comparison of the sort.
        .target(
            name: "CICUCollation",
            linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc"), .linkedLibrary("icudata")]
        ),
        // The system libedit (BSD editline) for the interactive prompt: line editing, history, completion.
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),

        // JSON on jansson: owned and borrowed values, parse and dump, Codable, a dynamic value type.
        .target(name: "Jansson", dependencies: ["CJansson", "CJanssonAlloc"], swiftSettings: swiftSettings),
        .testTarget(name: "JanssonTests", dependencies: ["Jansson", "CJanssonAlloc"], swiftSettings: swiftSettings),

        // JSON-RPC 2.0: messages, errors, framing, dispatch, the connection.
        .target(
            name: "JSONRPC",
            dependencies: ["Jansson", "CJansson", "SystemCalls", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "Jansson", "SystemCalls"], swiftSettings: swiftSettings),

        // Shared models and service plumbing of every domain: clock, pagination cursors, change sets,
        // the errors services throw. No JSON-RPC here: the method layer maps errors.
        .target(name: "SwitchboardCore", dependencies: ["Jansson", "CSystemShims", "SystemCalls"], swiftSettings: swiftSettings),

        // What every domain's methods share above JSON-RPC: domain error codes, ServiceError → ResponseError.
        .target(
            name: "DomainMethods",
            dependencies: ["SwitchboardCore", "JSONRPC", "Jansson", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        // The one SQLite database (GRDB): migrations, the shared change log.
        .target(
            name: "SwitchboardStorage",
            dependencies: ["SwitchboardCore", "SystemCalls", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),

        // PostgreSQL through postgres-nio: connection settings (URL, libpq's environment, ~/.pgpass), named
        // migrations under an advisory lock, the commit-ordered change log, LISTEN/NOTIFY (docs/postgres.md).
        // JSONRPC only for its support: the shared DeadlineWatch that bounds the waits on the server.
        .target(
            name: "SwitchboardPostgres",
            dependencies: ["SwitchboardCore", "JSONRPC", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardPostgresTests",
            dependencies: ["SwitchboardPostgres", "PostgresTesting", "SwitchboardCore", .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "Logging", package: "swift-log"), .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: swiftSettings
        ),

        // Domains: each has its models, a service protocol, in-memory and SQLite services, its methods.
        .target(
            name: "CatalogDomain",
            dependencies: ["CICUCollation", "SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), "DomainMethods", "SwitchboardCore", "SwitchboardStorage", "JSONRPC", "Jansson", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CalendarDomain",
            dependencies: ["SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), "CLibical", "DomainMethods", "SwitchboardCore", "SwitchboardStorage", "JSONRPC", "Jansson", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings,
            // Foundation's ICU, for Windows zone names (WindowsZones); Foundation links it, but not by name for a direct call.
            linkerSettings: [.linkedLibrary("_FoundationICU")]
        ),
        .target(
            name: "FeedDomain",
            dependencies: ["SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), "DomainMethods", "SwitchboardCore", "SwitchboardStorage", "JSONRPC", "Jansson", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ChatDomain",
            dependencies: [
                "DomainMethods", "SwitchboardCore", "SwitchboardStorage", "JSONRPC", "Jansson", "SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MailDomain",
            dependencies: ["SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), "DomainMethods", "SwitchboardCore", "SwitchboardStorage", "JSONRPC", "Jansson", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DomainTests",
            dependencies: [
                "CalendarDomain", "CatalogDomain", "ChatDomain", "DomainMethods", "FeedDomain", "MailDomain", "SwitchboardCore", "SwitchboardStorage", "SwitchboardHost", "JSONRPC", "Jansson",
                "SchemaTesting", "PostgresTesting", "SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), "SchemaValidation", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),

        // The host: built-in methods, discovery, lifecycle, the stdio runner.
        .target(
            name: "SwitchboardHost",
            dependencies: [
                "JSONRPC", "Jansson", "CSystemShims", "SwitchboardCore", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedSchemas"]
        ),
        .testTarget(
            name: "SwitchboardHostTests",
            dependencies: ["CalendarDomain", "SwitchboardCore", "SwitchboardHost", "SwitchboardTerminal", "JSONRPC", "Jansson", "SchemaTesting", "SystemCalls",
                           "SchemaValidation", "switchboard", "PostgresTesting", "SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "PropertyBased", package: "swift-property-based"), .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),

        // Plugins: MCP servers over stdio, supervised, their tools served as methods `namespace.tool`.
        .target(
            name: "PluginHost",
            dependencies: [
                "JSONRPC", "Jansson", "CSystemShims", "SchemaValidation", "SwitchboardHost", "DomainMethods", "SwitchboardCore", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PluginHostTests",
            dependencies: ["CSystemShims", "PluginHost", "JSONRPC", "Jansson", "SchemaTesting", "SchemaValidation", "SwitchboardHost",
                           .product(name: "Logging", package: "swift-log"), .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: swiftSettings
        ),

        // The MCP server face (tools/*, resources/*, prompts/*) and the resources and prompts both faces serve
        // (resources.*, prompts.*), above PluginHost: it calls the plugins' and the domains' typed entry points.
        .target(
            name: "MCPServerFace",
            dependencies: ["PluginHost", "SwitchboardHost", "DomainMethods", "SwitchboardCore", "JSONRPC", "Jansson"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MCPServerFaceTests",
            dependencies: ["MCPServerFace", "PluginHost", "SwitchboardHost", "JSONRPC", "Jansson"],
            swiftSettings: swiftSettings
        ),

        // The interactive prompt a person gets at a terminal, and `key=value` params.
        .target(
            name: "SwitchboardTerminal",
            dependencies: ["CEditLine", "CSystemShims", "SwitchboardHost", "JSONRPC", "Jansson", "SystemCalls", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        // JSON Schema checks on jansson values: plugins' tool params, and every answer the tests see.
        .target(name: "SchemaValidation", dependencies: ["CICURegex", "Jansson"], swiftSettings: swiftSettings),

        // The executable.
        .executableTarget(
            name: "switchboard",
            dependencies: [
                "SwitchboardHost", "SwitchboardTerminal", "PluginHost", "MCPServerFace", "JSONRPC", "Jansson", "DomainMethods", "SwitchboardCore", "SwitchboardStorage", "SwitchboardPostgres", "SystemCalls", "CalendarDomain", "CatalogDomain", "ChatDomain", "FeedDomain", "MailDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: staticExecutableSettings
        ),

        // Benchmarks: a load driver for any stdio JSON-RPC server (scripts/bench, docs/benchmarks.md).
        .target(name: "CBenchShims", path: "Sources/BenchTools/CBenchShims"),
        .executableTarget(
            name: "switchboard-load",
            dependencies: ["CBenchShims", "CJansson", "CSystemShims", "Jansson", "SystemCalls", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/BenchTools/SwitchboardLoad",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SwitchboardLoadTests",
            dependencies: ["switchboard-load", "Jansson", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: swiftSettings
        ),

        // Test support shared by the test targets: answers checked against the schemas from rpc.discover.
        .target(name: "SchemaTesting", dependencies: ["Jansson", "SchemaValidation"], path: "Tests/SchemaTesting", swiftSettings: swiftSettings),
        // The throwaway PostgreSQL server of scripts/pg-cluster: fresh databases and stores for the suites.
        .target(
            name: "PostgresTesting",
            dependencies: ["SwitchboardPostgres", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            path: "Tests/PostgresTesting",
            swiftSettings: swiftSettings
        ),

        // Build-time: Schemas/*.json embedded into the host, so the binary works from any directory.
        .executableTarget(name: "schema-embedder", path: "Sources/BuildTools/SchemaEmbedder", swiftSettings: swiftSettings),
        .plugin(
            name: "EmbedSchemas",
            capability: .buildTool(),
            dependencies: ["schema-embedder"],
            path: "Sources/BuildTools/EmbedSchemasPlugin"
        ),
    ]
)
