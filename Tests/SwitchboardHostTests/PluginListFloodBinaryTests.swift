import Jansson
import Testing

/// A plugin's `notifications/tools/list_changed` costs at most one reading of its tools in flight plus
/// one more, and clients hear of it only when the tools did change. The test waits on pushes and
/// answers, never on time.
@Suite("Plugin list_changed floods (binary)", .serialized, .offCooperativePool)
struct PluginListFloodBinaryTests {
    static func isMethodsChanged(_ message: JSONValue) -> Bool {
        message["method"] == "host.methodsChanged" && message["params"]?["namespace"] == "liar"
    }

    @Test("2,000 list_changed with no change and one with a new tool: one host.methodsChanged, a few tools/list, the new tool callable")
    func floodIsCoalesced() throws {
        let host = try PluginAnswerBinaryTests.host()
        // The start's own push (tools appear), before or after the first answer.
        try host.send(BinaryHarness.request(1, "liar.ok"))
        let (_, before) = try host.response(to: 1)
        if !before.contains(where: Self.isMethodsChanged) {
            while !Self.isMethodsChanged(try host.nextMessage()) {}
        }
        try host.send(BinaryHarness.request(2, "liar.listChanged", #"{"n":2000,"add":"extra"}"#))
        // Read until the push (the event): the answer may come before or after it.
        var messages: [JSONValue] = []
        while !messages.contains(where: Self.isMethodsChanged) { messages.append(try host.nextMessage()) }
        #expect(messages.filter(Self.isMethodsChanged).count == 1)
        #expect(try PluginBinaryTests.call(host, 3, "liar.extra")["result"] != nil, "the push came once the new tool was listed")
        let listings = try PluginBinaryTests.call(host, 4, "liar.listings")["result"]?["listings"]?.int64Value ?? .max
        #expect(listings <= 4, "tools/list read \(listings) times for 2,001 notifications")
        // Nothing else was pushed for the flood: a ping answered after the rest of it finds no other push.
        try host.send(BinaryHarness.request(5, "host.ping"))
        let (_, rest) = try host.response(to: 5)
        #expect(!rest.contains(where: Self.isMethodsChanged), "\(rest.filter(Self.isMethodsChanged).count) more pushes")
    }
}
