import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of one test's own (`scripts/pg-cluster start`), for what the shared test cluster
/// cannot do because other suites use it at once: restarting the server. Inside `pg-cluster run` it is
/// made within the shared cluster's folder, so stopping that one stops it too, should the test not get to.
///
/// ```swift
/// try await DedicatedPostgresCluster.with { cluster in
///     let host = try SpawnedHost(arguments: ["--db", cluster.url])
///     try cluster.restart()
/// }
/// ```
public final class DedicatedPostgresCluster: Sendable {
    /// Its folder (`SWITCHBOARD_TEST_POSTGRES_DIR` of the cluster).
    public let directory: String
    /// TCP on 127.0.0.1, with the password, to its `postgres` database.
    public let url: String

    /// `scripts/pg-cluster` of this checkout.
    static let script: String = {
        var path = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { path.deleteLastPathComponent() }
        return path.appendingPathComponent("scripts/pg-cluster").path
    }()

    private init(directory: String, url: String) {
        self.directory = directory
        self.url = url
    }

    /// Starts a cluster, runs `body` with it, and stops and removes it after, also when `body` throws.
    public static func with<T>(_ body: (DedicatedPostgresCluster) async throws -> T) async throws -> T {
        let cluster = try start()
        do {
            let result = try await body(cluster)
            try cluster.stop()
            return result
        } catch {
            try? cluster.stop()
            throw error
        }
    }

    /// Restarts the server (`pg_ctl restart -m fast`, the same port): every session ends, and the
    /// server accepts connections again when this returns.
    public func restart() throws {
        _ = try Self.run(["restart", directory])
    }

    /// Stops the server (`pg_ctl stop -m fast`), keeping the cluster: connecting is refused until ``resume()``.
    public func halt() throws {
        _ = try Self.run(["halt", directory])
    }

    /// Starts a halted server again, on the same port.
    public func resume() throws {
        _ = try Self.run(["resume", directory])
    }

    /// Stops the server's processes (SIGSTOP) with their sockets open: a server that never answers,
    /// as a frozen machine or a cut network looks, until ``thaw()``.
    public func freeze() throws {
        _ = try Self.run(["freeze", directory])
    }

    public func thaw() throws {
        _ = try Self.run(["thaw", directory])
    }

    private static func start() throws -> DedicatedPostgresCluster {
        let exports = try run(["start"])
        var values: [String: String] = [:]
        for line in exports.split(separator: "\n") {
            // export NAME='value' (the values have no quotes of their own)
            guard line.hasPrefix("export "), let equals = line.firstIndex(of: "=") else { continue }
            let name = String(line[line.index(line.startIndex, offsetBy: "export ".count)..<equals])
            values[name] = String(line[line.index(after: equals)...]).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        guard let directory = values["SWITCHBOARD_TEST_POSTGRES_DIR"], let url = values["SWITCHBOARD_TEST_POSTGRES_URL"] else {
            throw DedicatedPostgresClusterError(what: "pg-cluster start printed no folder or URL")
        }
        return DedicatedPostgresCluster(directory: directory, url: url)
    }

    private func stop() throws {
        _ = try Self.run(["stop", directory])
    }

    /// Runs `scripts/pg-cluster` with `arguments` (plain words: verbs and its folders) and waits for it
    /// to end; its standard output.
    ///
    /// `system` rather than Foundation's `Process`, whose wait never saw the script end in the test
    /// process; the output goes to a file, not a pipe, since the server `start` leaves running
    /// inherits the script's descriptors and a pipe would never reach its end.
    private static func run(_ arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cluster-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let command = ([script] + arguments).map { "'\($0)'" }.joined(separator: " ") + " </dev/null >'\(outputPath)'"
        let status = system(command)
        guard status == 0 else {
            throw DedicatedPostgresClusterError(what: "pg-cluster \(arguments[0]) failed (wait status \(status))")
        }
        return try String(contentsOfFile: outputPath, encoding: .utf8)
    }
}

/// `scripts/pg-cluster` failed for a ``DedicatedPostgresCluster`` (its own message is on stderr).
public struct DedicatedPostgresClusterError: Error, CustomStringConvertible {
    public var what: String
    public var description: String { what }
}
