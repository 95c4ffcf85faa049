#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// `plugins.restart` while calls wait for the plugin to start, against the built binary: the `slow`
/// fixture says on a FIFO that it has started and never answers `initialize` (its later runs are the
/// probe), so the test knows, without waiting on time, that a call is waiting for the start.
@Suite("Plugin restart during start (binary)", .offCooperativePool)
struct PluginRestartBinaryTests {
    static let fixtures: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/slowstart"
    }()

    /// Returns once the plugin has written its line into `fifo`: it started, and a call waits for it.
    static func awaitStart(_ fifo: String) {
        let reader = open(fifo, O_RDONLY)
        #expect(reader >= 0)
        var byte: UInt8 = 0
        #expect(read(reader, &byte, 1) == 1)
        close(reader)
    }

    @Test("A call waiting for a plugin that plugins.restart stops fails -32070 stopped, not -32800: the client cancelled nothing")
    func restartDuringStartIsNotACancellation() throws {
        let folder = try BinaryHarness.temporaryFolder("slowstart")
        let fifo = folder + "/started"
        #expect(mkfifo(fifo, 0o600) == 0)
        let host = try SpawnedHost(
            arguments: ["serve", "--plugins", Self.fixtures, "--backend", "memory", "--plugin-grace", "500"],
            environment: ["SLOW_FIFO": fifo, "SLOW_MARK": folder + "/mark", "XDG_CONFIG_HOME": folder]
        )
        try host.send(BinaryHarness.request(1, "slow.echo", #"{"text":"x"}"#))
        // Opening the FIFO returns once the plugin opened it: call 1 started the plugin and waits.
        Self.awaitStart(fifo)
        try host.send(BinaryHarness.request(2, "plugins.restart", #"{"name":"slow"}"#))

        let waiting = try host.response(to: 1).response
        #expect(waiting["error"]?["code"] == -32070)
        #expect(waiting["error"]?["data"]?["plugin"] == "slow")
        #expect(waiting["error"]?["data"]?["reason"] == "stopped")
        #expect(try host.response(to: 2).response["result"]?["state"] == "running")
        try host.send(BinaryHarness.request(3, "slow.echo", #"{"text":"after"}"#))
        #expect(try host.response(to: 3).response["result"] == ["text": "after"])
    }

    @Test("A call waiting for a plugin that is starting is answered -32800 at once when cancelled; the start goes on")
    func cancelDuringStart() throws {
        let folder = try BinaryHarness.temporaryFolder("slowstart")
        let fifo = folder + "/started"
        #expect(mkfifo(fifo, 0o600) == 0)
        let sleepy = String(Self.fixtures.dropLast("slowstart".count)) + "sleepstart"
        let host = try SpawnedHost(
            arguments: ["serve", "--plugins", sleepy, "--backend", "memory", "--plugin-grace", "500"],
            environment: ["SLOW_FIFO": fifo, "XDG_CONFIG_HOME": folder]
        )
        try host.send(BinaryHarness.request(1, "sleepy.echo", #"{"text":"x"}"#))
        Self.awaitStart(fifo)
        // The plugin never reads its initialize: the start would end only at its timeoutMs (60 s).
        try host.send(BinaryHarness.notification("$/cancelRequest", #"{"id":1}"#))
        let cancelled = try host.response(to: 1).response
        #expect(cancelled["error"]?["code"] == -32800 && cancelled["error"]?["message"] == "Request cancelled", "\(cancelled)")
        // Nothing of it is left in flight.
        try host.send(BinaryHarness.request(2, "host.status"))
        #expect(try host.response(to: 2).response["result"]?["inFlight"] == 0)
    }
}
