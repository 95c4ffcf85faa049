import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `catalog.import {path}` or `catalog.import {document}` → `{sectors, brochures, invalid, errors,
/// state}`: stores a catalog in the shopping app's backend format (``CatalogDocument``), from a file
/// the host may read (see ``ReadRoots``, the same confinement and limits as `mail.import`) or given
/// inline. Invalid sectors and brochures are reported by JSON path and reason and the rest kept;
/// ids already stored are updated, not duplicated, so importing twice changes nothing the second time.
///
/// Entries are stored a batch at a time, each batch in a transaction of its own so other writers
/// get in between; after each batch, with a progress token, it reports `$/progress {"done": n, "total": count}`.
/// Stopped after a batch was stored (cancelled, or a batch failed), it answers the error with what
/// stays stored (``BatchedImportStop``).
public enum CatalogImport: RPCMethod {
    public static let name = "catalog.import"
    public static let summary = "Imports a catalog in the shopping app's backend format, from a file or inline."
    public static let runsLong = true

    /// Entries (sectors and brochures) per batch, and between progress reports.
    public static let batchSize = 500
    /// The most problems an answer lists; `invalid` counts them all.
    public static let maximumErrors = 1_000

    public struct Params: Decodable, Sendable {
        /// A file `{"sectors": [...]}` inside the folders the host allows.
        public var path: String?
        /// The document itself.
        public var document: JSONValue?
    }

    public struct Result: Encodable, Sendable {
        public var sectors: ImportCounts
        public var brochures: ImportCounts
        /// How many sectors and brochures were invalid.
        public var invalid: Int
        /// Why, the first ``maximumErrors`` of them.
        public var errors: [CatalogImportProblem]
        public var state: String
    }

    static func run(_ params: Params, catalog: any CatalogService, roots: ReadRoots, context: RequestContext) async throws -> Result {
        let document = try read(params, roots: roots)
        let entries = document.entries
        var counts = CatalogImportCounts()
        var state = ""
        if entries.isEmpty { state = try await catalog.state() }
        var start = 0
        while start < entries.count {
            let end = min(start + batchSize, entries.count)
            let committed: Committed<CatalogImportCounts>
            do {
                try context.checkCancellation()
                committed = try await catalog.importBatch(Array(entries[start..<end]))
            } catch where start > 0 {
                throw BatchedImportStop.error(error, done: start, total: entries.count, items: "sectors and brochures", state: state,
                                              method: name, logger: context.logger)
            }
            counts = counts + committed.value
            state = committed.state
            start = end
            context.reportProgress(["done": .integer(Int64(end)), "total": .integer(Int64(entries.count))])
        }
        return Result(sectors: counts.sectors, brochures: counts.brochures, invalid: document.problems.count,
                      errors: Array(document.problems.prefix(maximumErrors)), state: state)
    }

    /// The document `params` names: exactly one of a file and an inline document.
    static func read(_ params: Params, roots: ReadRoots) throws(JSONFieldError) -> CatalogDocument {
        let shape = "{\"sectors\": [...]}"
        switch (params.path, params.document) {
        case (let path?, nil):
            let root = try JSONImportFile.parse(path: path, roots: roots)
            guard let document = withExtendedLifetime(root, { CatalogDocument(root.view) }) else {
                throw JSONImportFile.failure(path: path, expected: "a JSON file of the form \(shape)")
            }
            return document
        case (nil, let value?):
            let root = value.makeJansson()
            guard let document = withExtendedLifetime(root, { CatalogDocument(root.view) }) else {
                throw JSONFieldError.outOfRange(field: "document", expected: "an object of the form \(shape)", got: value)
            }
            return document
        default:
            throw JSONFieldError(field: "", expected: "exactly one of path and document", got: params.path == nil ? "neither" : "both")
        }
    }
}
