import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `catalog.brochures {sectorId?, cursor?, limit?}` → `{items, nextCursor, hasMore, state}`: the
/// brochures of one sector, or of all, in id order, a cursor at a time. An unknown sector is `-32004`
/// naming `sectorId`.
public enum CatalogBrochures: RPCMethod {
    public static let name = "catalog.brochures"
    public static let summary = "Lists the brochures of a sector, or of all sectors, a page at a time."

    public struct Params: Decodable, Sendable {
        public var sectorId: Int64?
        public var page: PageRequest

        enum CodingKeys: String, CodingKey { case sectorId }

        public init(from decoder: any Decoder) throws {
            sectorId = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Int64.self, forKey: .sectorId)
            page = try PageRequest(from: decoder)
        }
    }

    public typealias Result = ListResult<Brochure>

    static func list(sectorId: Int64?) -> String { "catalog/brochures/\(sectorId.map(String.init) ?? "all")" }

    static func run(_ params: Params, catalog: any CatalogService) async throws -> Result {
        let sectorId = try params.sectorId.map { value throws(JSONFieldError) in try CatalogParams.id(value, field: "sectorId") }
        let list = list(sectorId: sectorId)
        let after = try CatalogParams.after(params.page.cursor, list: list)
        let state = try await catalog.state()
        if let sectorId, try await catalog.sector(id: sectorId) == nil {
            throw ResponseError.notFound("sector \(sectorId)", field: "sectorId", got: String(sectorId))
        }
        let items = try await catalog.brochures(sectorId: sectorId, after: after, limit: params.page.limit + 1)
        return CatalogParams.page(items, limit: params.page.limit, list: list, state: state)
    }
}
