import DomainMethods
import JSONRPC
import SwitchboardCore

/// `catalog.get {id}` → one brochure; `-32004` naming `id` when there is none.
public enum CatalogGet: RPCMethod {
    public static let name = "catalog.get"
    public static let summary = "Reads one brochure by id."

    public struct Params: Decodable, Sendable {
        public var id: Int64
    }

    public typealias Result = Brochure

    static func run(_ params: Params, catalog: any CatalogService) async throws -> Brochure {
        let id = try CatalogParams.id(params.id, field: "id")
        guard let brochure = try await catalog.brochure(id: id) else {
            throw ResponseError.notFound("brochure \(id)", field: "id", got: String(id))
        }
        return brochure
    }
}
