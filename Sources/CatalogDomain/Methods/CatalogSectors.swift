import Foundation
import Jansson
import JSONRPC
import SwitchboardCore

/// `catalog.sectors {locale?}` → `{items, locale, state}`: every sector with its image and brochure
/// count, in the order a reader of `locale` expects (``SectorOrder``); without `locale`, the host's.
/// An unknown or malformed locale is `-32602` naming `locale`.
public enum CatalogSectors: RPCMethod {
    public static let name = "catalog.sectors"
    public static let summary = "Lists the sectors in the alphabetical order of a locale, each with its brochure count."
    public static let runsLong = true

    public struct Params: Decodable, Sendable {
        public var locale: String?
    }

    public struct Result: Encodable, Sendable {
        public var items: [Sector]
        /// The locale the sectors were ordered for, as a BCP 47 tag.
        public var locale: String
        public var state: String
    }

    static func run(_ params: Params, catalog: any CatalogService) async throws -> Result {
        let locale = try params.locale.map { text throws(JSONFieldError) in try SectorLocale.parse(text) } ?? SectorLocale.host
        let state = try await catalog.state()
        let sectors = try await catalog.sectors()
        return Result(items: try SectorOrder.sorted(sectors, locale: locale), locale: SectorLocale.identifier(locale), state: state)
    }
}
