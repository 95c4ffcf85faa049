#if canImport(Glibc)
import Glibc
#endif
import Jansson
import Testing

/// `initialize {processId}` watches one client process per connection: repeating it starts no more
/// watcher threads, and naming another process is refused.
@Suite("initialize's process watch (binary)", .offCooperativePool)
struct InitializeWatchBinaryTests {
    typealias H = BinaryHarness

    @Test("Hundreds of initialize calls naming the client's process leave the host's thread count flat")
    func repeatedInitializeAddsNoThreads() throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"])
        let initialize = { (id: Int) in H.request(id, "initialize", #"{"processId":\#(getpid())}"#) }
        #expect(try PluginBinaryTests.call(host, 1, "initialize", #"{"processId":\#(getpid())}"#)["result"] != nil)
        #expect(try PluginBinaryTests.call(host, 2, "host.ping")["result"] == "pong")
        let before = try #require(H.threadCount(of: host.pid))
        try host.send((3..<303).map(initialize))
        for id in 3..<303 {
            #expect(try host.response(to: .integer(Int64(id))).response["result"] != nil)
        }
        let after = try #require(H.threadCount(of: host.pid))
        // Threads of Swift's pool may start meanwhile (a few per core); a watcher per call would add 300.
        #expect(after - before < 16, "\(before) threads before, \(after) after 300 initialize calls")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("initialize naming another process than the one the connection watches is -32602 naming processId")
    func anotherProcessIsRefused() throws {
        let host = try SpawnedHost(arguments: ["--backend", "memory"])
        #expect(try PluginBinaryTests.call(host, 1, "initialize", #"{"processId":\#(getpid())}"#)["result"] != nil)
        let refused = try PluginBinaryTests.call(host, 2, "initialize", #"{"processId":1}"#)
        #expect(H.errorCode(refused) == -32602, "\(refused)")
        #expect(refused["error"]?["data"]?["field"] == "processId", "\(refused)")
        // The client's own process again is fine, and so is an initialize without one.
        #expect(try PluginBinaryTests.call(host, 3, "initialize", #"{"processId":\#(getpid())}"#)["result"] != nil)
        #expect(try PluginBinaryTests.call(host, 4, "initialize", "{}")["result"] != nil)
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
