import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `feed.get {id}` → one item, the detail view.
public enum FeedGet: RPCMethod {
    public static let name = "feed.get"
    public static let summary = "Reads one feed item by id."

    public struct Params: Decodable, Sendable {
        public var id: Int64
    }

    public typealias Result = Profile

    static func run(_ params: Params, feed: any FeedService) async throws -> Profile {
        guard let item = try await feed.item(id: params.id) else {
            throw ResponseError.notFound("feed item \(params.id)", field: "id", got: String(params.id))
        }
        return item
    }
}
