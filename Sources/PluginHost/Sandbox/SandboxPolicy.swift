import Jansson

/// What a plugin may touch, as declared: the `"sandbox"` member of `plugin.json` or of an `--mcp-config`
/// entry, or a `--plugin-sandbox NAME=FILE` file. Paths stay as written (`~`, `${pluginDir}`, `${dataDir}`
/// expand when the plugin starts: ``SandboxPlan``); what the host always allows comes on top.
///
/// ```json
/// "sandbox": {"read": ["~/notes"], "write": ["${dataDir}"], "network": {"allow": ["api.example.com:443"]},
///             "limits": {"addressSpaceMB": 2048, "openFiles": 256, "processes": 32}}
/// ```
public struct SandboxPolicy: Sendable, Equatable {
    /// Where a plugin may connect.
    public enum Network: Sendable, Equatable {
        /// Nowhere (the default).
        case none
        /// Anywhere, as an unconfined program.
        case any
        /// Only these `host:port` entries (`*.example.com:443` allowed).
        case allow([String])
    }

    /// Readable paths beyond the defaults.
    public var read: [String] = []
    /// Writable (and readable) paths beyond the defaults.
    public var write: [String] = []
    public var network: Network = .none
    public var limits = SandboxLimits()

    public init(read: [String] = [], write: [String] = [], network: Network = .none, limits: SandboxLimits = SandboxLimits()) {
        self.read = read
        self.write = write
        self.network = network
        self.limits = limits
    }
}

/// A plugin's resource limits (setrlimit in the child, and its pids cgroup); core dumps are always off.
public struct SandboxLimits: Sendable, Equatable {
    /// RLIMIT_AS, in MiB: 8 GiB by default (runtimes reserve address space they never touch).
    public var addressSpaceMB = 8_192
    /// RLIMIT_NOFILE.
    public var openFiles = 1_024
    /// Processes and threads: `pids.max` of a pids cgroup of each run's own (``PidsCgroups``), else RLIMIT_NPROC
    /// counted in the plugin's own user namespace (where it cannot get one, or runs as root, the kernel counts every
    /// process of the user or exempts root: then it is not applied, and says so).
    public var processes = 256

    public init() {}
}

/// Whether a plugin runs confined, and by what.
public enum SandboxSetting: Sendable, Equatable {
    case confined(SandboxPolicy)
    /// `"sandbox": false` or `--unconfined-plugin NAME`: run as an unconfined program, with a warning.
    case unconfined

    public static let defaults = SandboxSetting.confined(SandboxPolicy())
}

extension SandboxSetting {
    /// Reads a `"sandbox"` value: `false`, or an object of `read`, `write`, `network`, `limits`; throws
    /// ``ManifestError`` naming the member at fault (prefixed `sandbox.`).
    public init(json value: JSONValue) throws(ManifestError) {
        if value == .bool(false) {
            self = .unconfined
            return
        }
        guard let object = value.objectValue else { throw ManifestError("sandbox: expected false or an object") }
        let reader = MemberReader(object: object, allowed: ["read", "write", "network", "limits"])
        do {
            try reader.refuseUnknown()
        } catch {
            throw ManifestError("sandbox.\(error.description)")
        }
        var policy = SandboxPolicy()
        policy.read = try Self.paths(reader, "read")
        policy.write = try Self.paths(reader, "write")
        policy.network = try Self.network(object["network"])
        policy.limits = try Self.limits(object["limits"])
        self = .confined(policy)
    }

    private static func paths(_ reader: MemberReader, _ name: String) throws(ManifestError) -> [String] {
        let paths: [String]
        do {
            paths = try reader.strings(name)
        } catch {
            throw ManifestError("sandbox.\(error.description)")
        }
        for (index, path) in paths.enumerated() where path.isEmpty || path.utf8.count > 4_096 {
            throw ManifestError("sandbox.\(name)[\(index)]: expected a path of 1...4096 bytes")
        }
        return paths
    }

    private static func network(_ value: JSONValue?) throws(ManifestError) -> SandboxPolicy.Network {
        switch value {
        case nil, .null?, .bool(false)?: return .none
        case .bool(true)?: return .any
        case .object(let object)?:
            let reader = MemberReader(object: object, allowed: ["allow"])
            var entries: [String] = []
            do {
                try reader.refuseUnknown()
                entries = try reader.strings("allow", required: true)
            } catch {
                throw ManifestError("sandbox.network.\(error.description)")
            }
            for (index, entry) in entries.enumerated() where NetworkAddress(entry) == nil {
                throw ManifestError("sandbox.network.allow[\(index)]: expected host:port (port 1...65535), got \(JSONFieldError.excerpt(entry))")
            }
            return .allow(entries)
        default:
            throw ManifestError("sandbox.network: expected false, true or {\"allow\": [\"host:port\", …]}")
        }
    }

    private static func limits(_ value: JSONValue?) throws(ManifestError) -> SandboxLimits {
        var limits = SandboxLimits()
        guard let value, value != .null else { return limits }
        guard let object = value.objectValue else { throw ManifestError("sandbox.limits: expected an object") }
        let reader = MemberReader(object: object, allowed: ["addressSpaceMB", "openFiles", "processes"])
        func read(_ name: String, _ range: ClosedRange<Int>) throws(ManifestError) -> Int? {
            guard let number = try reader.integer(name) else { return nil }
            guard range.contains(number) else { throw ManifestError("\(name): must be \(range.lowerBound)...\(range.upperBound), got \(number)") }
            return number
        }
        do {
            try reader.refuseUnknown()
            limits.addressSpaceMB = try read("addressSpaceMB", 64...(1 << 24)) ?? limits.addressSpaceMB
            limits.openFiles = try read("openFiles", 16...(1 << 24)) ?? limits.openFiles
            limits.processes = try read("processes", 1...(1 << 16)) ?? limits.processes
        } catch {
            throw ManifestError("sandbox.limits.\(error.description)")
        }
        return limits
    }
}

/// One `host:port` entry of a network allow-list.
struct NetworkAddress: Sendable, Equatable {
    var host: String
    var port: UInt16

    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let allowed = host.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || "-.:*".unicodeScalars.contains($0) }
        guard !host.isEmpty, host.utf8.count <= 253, allowed else { return nil }
        self.host = host.lowercased()
        self.port = port
    }
}
