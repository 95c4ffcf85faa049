import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore
import SwitchboardHost
import Synchronization

/// MCP `subscriptions/listen {notifications: {resourceSubscriptions: [uri]}}` (2026-07-28): a
/// request that stays open as a stream. It first sends `notifications/subscriptions/acknowledged`
/// with what it honors (the URIs it could subscribe; list changes are not offered), then
/// `notifications/resources/updated {uri}` on each change, every frame naming the stream in `_meta`.
/// It ends when the client cancels it (`-32800`) or the input ends (`{}`).
public enum SubscriptionsListen: RPCMethod {
    public static let name = "subscriptions/listen"
    public static let summary = "MCP 2026-07-28: a stream of resource updates, open until cancelled."

    /// Open, as MCP's requests are read everywhere: members a later revision adds are ignored.
    public struct Params: Decodable, Sendable, OpenParams {
        /// Open: extensions add their own members, which are not honored. Required: checked by
        /// ``resourceURIs(_:)``, so its absence is named as its wrong type is.
        public var notifications: JSONValue?
    }

    public typealias Result = JSONValue

    static func run(_ params: Params, resources: HostResources?, context: RequestContext) async throws -> JSONValue {
        let uris = try resourceURIs(params.notifications)
        // A stream holds no slot of `--max-in-flight`: open streams never stop the input thread.
        try context.becomeStream()
        let stream: JSONValue = switch context.id {
        case .integer(let value): .integer(value)
        case .string(let value): .string(value)
        case .number(let value): .double(value)
        case .null, nil: .null
        }
        let listens = MCPSession.listens(of: context.connection)
        let followUps = FollowUps()
        var honored: [JSONValue] = []
        var subscriptions: [String] = []
        // Each subscription starts delivering once `followUps` run, after the acknowledgement.
        let holding = context.holding(followUps)
        for uri in uris {
            guard let resources, let id = try? await resources.subscription(to: uri, within: holding).subscriptionId else { continue }
            listens.record(id, stream: stream)
            subscriptions.append(id)
            honored.append(.string(uri))
        }
        var filter = JSONObject()
        if !honored.isEmpty { filter["resourceSubscriptions"] = .array(honored) }
        await context.connection.deliver(method: "notifications/subscriptions/acknowledged",
                                         params: ["notifications": .object(filter), "_meta": [MCPListens.streamKey: stream]])
        await followUps.run()
        await untilCancelledOrClosed(context.connection)
        for id in subscriptions {
            listens.forget(id)
            _ = try? resources?.unsubscription(id, within: context)
        }
        try Task.checkCancellation()
        return ["resultType": "complete"]
    }

    /// The URIs of `notifications.resourceSubscriptions`, each once (a URI named twice would send each
    /// update twice and use up the subscription limit); `-32602` naming the member that is not an
    /// object, an array or a string.
    static func resourceURIs(_ notifications: JSONValue?) throws(JSONFieldError) -> [String] {
        let expected = "an object {resourceSubscriptions?} (required)"
        guard let notifications else { throw JSONFieldError(field: "notifications", expected: expected, got: "nothing") }
        guard notifications.objectValue != nil else {
            throw JSONFieldError.outOfRange(field: "notifications", expected: expected, got: notifications)
        }
        guard let given = notifications["resourceSubscriptions"], given != .null else { return [] }
        guard let array = given.arrayValue else {
            throw JSONFieldError.outOfRange(field: "notifications.resourceSubscriptions", expected: "an array of resource URIs", got: given)
        }
        var uris: [String] = [], seen = Set<ExactID>()
        for (index, element) in array.enumerated() {
            guard let uri = element.stringValue else {
                throw JSONFieldError.outOfRange(field: "notifications.resourceSubscriptions[\(index)]", expected: "a resource URI (a string)", got: element)
            }
            if seen.insert(ExactID(uri)).inserted { uris.append(uri) }
        }
        return uris
    }

    /// Returns once the task is cancelled or the connection's input has ended.
    private static func untilCancelledOrClosed(_ connection: Connection) async {
        let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let resume: @Sendable () -> Void = { waiter.withLock { $0.take() }?.resume() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter.withLock { $0 = continuation }
                if Task.isCancelled { resume() }
                connection.whenClosed(resume)
            }
        } onCancel: {
            resume()
        }
    }
}
