import Jansson
import SwitchboardCore

/// A catalog in the shopping app's backend format,
/// `{"sectors": [{"id", "name", "url", "brochures": [{"id", "title", "retailerName", "coverUrl"}]}]}`,
/// read into the entries to store and the problems to report.
///
/// A sector or brochure is invalid when its id is missing, not an integer, or negative (the app's
/// models refuse a negative id), when an id appears twice, or when a member has the wrong type or
/// is too long; each is reported once, by the JSON path of the member at fault, and the rest is kept.
/// A sector needs a `name` with a character other than white space (sectors are listed and sorted by it).
/// An invalid or repeated sector's brochures are not imported (they have no sector of their own); its
/// reason says how many. `url` and `coverUrl` may be missing or `null`; a missing `title` or
/// `retailerName` is empty. Members the format does not have are ignored.
struct CatalogDocument {
    /// The valid entries, in document order: each sector before its brochures.
    private(set) var entries: [CatalogEntry] = []
    private(set) var problems: [CatalogImportProblem] = []

    /// The most characters a name, title or retailer name may have.
    static let maximumText = 1_000
    /// The most characters a URL may have.
    static let maximumURL = 2_048

    private var sectorPaths: [Int64: String] = [:]
    private var brochurePaths: [Int64: String] = [:]

    /// Reads `root`; nil when it is not an object whose `sectors` is an array.
    init?(_ root: JSONView) {
        guard root.kind == .object, let sectors = root["sectors"], sectors.kind == .array else { return nil }
        for index in 0..<sectors.count {
            guard let sector = sectors[index] else { continue }
            readSector(sector, path: "$.sectors[\(index)]")
        }
    }

    private mutating func readSector(_ item: JSONView, path: String) {
        let brochures = item.kind == .object ? item["brochures"] : nil
        let brochureCount = brochures?.kind == .array ? brochures?.count ?? 0 : 0
        let sector: SectorEntry
        do throws(CatalogImportProblem) {
            sector = try Self.sector(item, path: path)
            if let first = sectorPaths[sector.id] {
                throw CatalogImportProblem(path: path + ".id",
                                           reason: "sector id \(sector.id) appears before, at \(first); this one is ignored")
            }
        } catch {
            var problem = error
            if brochureCount > 0 {
                problem.reason += "; its \(brochureCount) brochure\(brochureCount == 1 ? " was" : "s were") not imported"
            }
            problems.append(problem)
            return
        }
        sectorPaths[sector.id] = path
        entries.append(.sector(sector))
        guard let brochures, !brochures.isNull else { return }
        guard brochures.kind == .array else {
            problems.append(CatalogImportProblem(path: path + ".brochures",
                                                 reason: "expected an array of brochures, got \(Self.describe(brochures))"))
            return
        }
        for index in 0..<brochures.count {
            guard let brochure = brochures[index] else { continue }
            readBrochure(brochure, sectorId: sector.id, path: "\(path).brochures[\(index)]")
        }
    }

    private mutating func readBrochure(_ item: JSONView, sectorId: Int64, path: String) {
        do throws(CatalogImportProblem) {
            let brochure = try Self.brochure(item, sectorId: sectorId, path: path)
            if let first = brochurePaths[brochure.id] {
                throw CatalogImportProblem(path: path + ".id",
                                           reason: "brochure id \(brochure.id) appears before, at \(first); this one is ignored")
            }
            brochurePaths[brochure.id] = path
            entries.append(.brochure(brochure))
        } catch {
            problems.append(error)
        }
    }

    private static func sector(_ item: JSONView, path: String) throws(CatalogImportProblem) -> SectorEntry {
        guard item.kind == .object else {
            throw CatalogImportProblem(path: path, reason: "expected a sector object, got \(describe(item))")
        }
        let id = try id(item, path: path, what: "sector")
        let name = try text(item, "name", path: path, maximum: maximumText)
        guard let name, name.contains(where: { !$0.isWhitespace }) else {
            throw CatalogImportProblem(path: path + ".name",
                                       reason: name == nil ? "missing: a sector needs a name" : "a sector needs a name that is not blank")
        }
        return SectorEntry(id: id, name: name,
                           imageUrl: try text(item, "url", path: path, maximum: maximumURL))
    }

    private static func brochure(_ item: JSONView, sectorId: Int64, path: String) throws(CatalogImportProblem) -> Brochure {
        guard item.kind == .object else {
            throw CatalogImportProblem(path: path, reason: "expected a brochure object, got \(describe(item))")
        }
        return Brochure(id: try id(item, path: path, what: "brochure"), sectorId: sectorId,
                        title: try text(item, "title", path: path, maximum: maximumText) ?? "",
                        retailerName: try text(item, "retailerName", path: path, maximum: maximumText) ?? "",
                        coverUrl: try text(item, "coverUrl", path: path, maximum: maximumURL))
    }

    /// The `id` member: a non-negative integer.
    private static func id(_ item: JSONView, path: String, what: String) throws(CatalogImportProblem) -> Int64 {
        let path = path + ".id"
        guard let member = item["id"], !member.isNull else {
            throw CatalogImportProblem(path: path, reason: "missing: a \(what) needs a non-negative integer id")
        }
        guard let id = member.int64 else {
            throw CatalogImportProblem(path: path, reason: "expected a non-negative integer id, got \(describe(member))")
        }
        guard id >= 0 else {
            throw CatalogImportProblem(path: path, reason: "a negative id is invalid, got \(id)")
        }
        return id
    }

    /// Member `name` as text of at most `maximum` characters without U+0000; nil when missing or `null`.
    private static func text(_ item: JSONView, _ name: String, path: String, maximum: Int) throws(CatalogImportProblem) -> String? {
        guard let member = item[name], !member.isNull else { return nil }
        let path = "\(path).\(name)"
        guard let text = member.string else {
            throw CatalogImportProblem(path: path, reason: "expected a string, got \(describe(member))")
        }
        // SQLite would cut the text at U+0000; refused, as in every method's params.
        guard !text.utf8.contains(0) else { throw CatalogImportProblem(path: path, reason: "a string without U+0000 (NUL) expected") }
        if text.utf8.count > maximum, text.unicodeScalars.count > maximum {
            throw CatalogImportProblem(path: path, reason: "at most \(maximum) characters expected, got \(text.unicodeScalars.count)")
        }
        return text
    }

    /// A bad value as a reason names it: by its type, never its text (the document may be a file's).
    private static func describe(_ value: JSONView) -> String { JSONImportFile.describe(value) }
}
