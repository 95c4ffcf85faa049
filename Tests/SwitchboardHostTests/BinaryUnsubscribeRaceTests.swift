import Jansson
import Testing

/// An unsubscribe racing a push of the same subscription, against the built binary (found by
/// scripts/soak: the host died of SIGILL, "Can't remove first element from an empty collection",
/// when the unsubscribe emptied the queue between the push's offer and its dequeue).
@Suite("Unsubscribe racing pushes (binary)", .offCooperativePool)
struct BinaryUnsubscribeRaceTests {
    typealias H = BinaryHarness

    /// Eight subscriptions on one room; each round sends a message (eight pushes start) and, in the
    /// same write, ends the oldest subscription and opens a new one. Unfixed, the host died within
    /// about a hundred rounds.
    @Test("Unsubscribing while pushes go out: the host survives, and no push follows an unsubscribe's answer")
    func unsubscribeDuringPushes() throws {
        let host = try SpawnedHost(arguments: ["serve", "--backend", "memory"])
        var live: [String] = []       // oldest first
        var ended: Set<String> = []
        var late: [JSONValue] = []

        /// Reads until every id in `ids` is answered, noting subscriptions opened (`opening`) and
        /// closed (`closing`) and any push for a closed one.
        func read(until ids: Set<Int64>, opening: Int64, closing: Int64? = nil) throws {
            var waiting = ids
            while !waiting.isEmpty {
                let message = try host.nextMessage()
                if message["method"] == "chat.message", let sub = message["params"]?["subscriptionId"]?.stringValue, ended.contains(sub) {
                    late.append(message)
                }
                guard let id = message["id"]?.int64Value, waiting.remove(id) != nil, id == opening || id == closing else { continue }
                let subscription = try #require(message["result"]?["subscriptionId"]?.stringValue, "\(message)")
                if id == opening { live.append(subscription) } else { ended.insert(subscription) }
            }
        }

        for n in 0..<8 {
            try host.send(H.request(n, "chat.subscribe", #"{"roomId":"grp-team"}"#))
            try read(until: [Int64(n)], opening: Int64(n))
        }
        for round in 1...2000 {
            let (send, unsubscribe, subscribe) = (round * 3 + 100, round * 3 + 101, round * 3 + 102)
            let oldest = live.removeFirst()
            try host.send([
                H.request(send, "chat.send", #"{"roomId":"grp-team","text":"x","clientMessageId":"c\#(round)"}"#),
                H.request(unsubscribe, "chat.unsubscribe", #"{"subscriptionId":"\#(oldest)"}"#),
                H.request(subscribe, "chat.subscribe", #"{"roomId":"grp-team"}"#),
            ])
            try read(until: [Int64(send), Int64(unsubscribe), Int64(subscribe)], opening: Int64(subscribe), closing: Int64(unsubscribe))
        }
        #expect(late.isEmpty, "pushes after their subscription's unsubscribe was answered: \(late.prefix(3))")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
