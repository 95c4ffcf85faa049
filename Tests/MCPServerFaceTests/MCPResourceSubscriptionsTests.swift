@testable import MCPServerFace
import Testing

/// A connection's MCP subscriptions by URI, when a client sends subscribe and unsubscribe without
/// waiting: the last of them decides, whichever order the host finishes them in.
@Suite("MCP resource subscriptions")
struct MCPResourceSubscriptionsTests {
    @Test("an unsubscribe while the subscribe is being made: the subscription made is handed back to be unsubscribed")
    func releasedWhileMade() {
        let subscriptions = MCPResourceSubscriptions()
        #expect(subscriptions.claim("mail://inbox"))
        #expect(subscriptions.release("mail://inbox") == nil, "nothing to unsubscribe yet")
        #expect(subscriptions.record("mail://inbox", id: "s1") == "s1", "made after it was released: unsubscribe it")
        #expect(subscriptions.release("mail://inbox") == nil, "and it is gone")
        #expect(subscriptions.claim("mail://inbox"), "free to subscribe again")
    }

    @Test("subscribe, unsubscribe, subscribe while the first is being made: it stays subscribed, once")
    func subscribedAgainWhileMade() {
        let subscriptions = MCPResourceSubscriptions()
        #expect(subscriptions.claim("mail://inbox"))
        #expect(subscriptions.release("mail://inbox") == nil)
        #expect(!subscriptions.claim("mail://inbox"), "the subscription under way serves the new subscribe")
        #expect(subscriptions.record("mail://inbox", id: "s1") == nil, "kept")
        #expect(subscriptions.release("mail://inbox") == "s1")
    }

    @Test("in order: subscribe, a second subscribe, unsubscribe; a failed subscribe frees the URI")
    func inOrder() {
        let subscriptions = MCPResourceSubscriptions()
        #expect(subscriptions.claim("feed://item/1"))
        #expect(subscriptions.record("feed://item/1", id: "s1") == nil)
        #expect(!subscriptions.claim("feed://item/1"))
        #expect(subscriptions.release("feed://item/1") == "s1")
        #expect(subscriptions.release("feed://item/1") == nil)
        #expect(subscriptions.claim("feed://item/2"))
        #expect(subscriptions.record("feed://item/2", id: nil) == nil)
        #expect(subscriptions.claim("feed://item/2"))
    }
}
