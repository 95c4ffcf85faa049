import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.import {path}` or `mail.import {records}` → `{imported, skipped, invalid, errors, state}`: stores
/// messages in the prototype backend's inbox format, from a file the host may read (see
/// ``ReadRoots``) or given inline. Bad records are counted (`invalid`) and the first
/// ``maximumErrors`` reported by index and reason, the good ones kept; records whose uid the account
/// has are skipped, so importing twice adds nothing twice.
///
/// Records are stored a batch at a time, each batch in a transaction of its own so other writers
/// get in between; after each batch, with a progress token, it reports `$/progress {"done": n, "total": count}`.
/// Stopped after a batch was stored (cancelled, or a batch failed), it answers the error with what
/// stays stored (``BatchedImportStop``).
public enum MailImport: RPCMethod {
    public static let name = "mail.import"
    public static let summary = "Imports messages in the prototype backend's inbox format, from a file or inline."
    public static let runsLong = true

    /// Records per batch, and between progress reports.
    public static let batchSize = 500
    /// The most problems an answer lists (as `catalog.import`): 500,000 bad records made a 32 MB answer.
    public static let maximumErrors = 1_000

    public struct Params: Decodable, Sendable {
        /// A file `{"inbox": [records]}` inside the folders the host allows.
        public var path: String?
        /// The records themselves.
        public var records: JSONValue?
    }

    public struct Result: Encodable, Sendable {
        public var imported: Int
        public var skipped: Int
        /// Records refused; the first ``maximumErrors`` are in ``errors``.
        public var invalid: Int
        public var errors: [ImportProblem]
        public var state: String
    }

    static func run(_ params: Params, mail: any MailService, account: String, clock: any WallClock, roots: ReadRoots,
                    context: RequestContext) async throws -> Result {
        let records = try source(params, roots: roots)
        let now = clock.now()
        var result = Result(imported: 0, skipped: 0, invalid: 0, errors: [], state: "")
        var start = 0
        while start < records.count {
            let end = min(start + batchSize, records.count)
            var batch: [ImportRecord] = []
            for index in start..<end {
                switch records.record(at: index, now: now) {
                case .success(let record): batch.append(record)
                case .failure(let problem):
                    result.invalid += 1
                    if result.errors.count < maximumErrors { result.errors.append(problem) }
                }
            }
            let outcome: ImportOutcome
            do {
                try context.checkCancellation()
                outcome = try await mail.importMessages(account: account, batch)
            } catch where start > 0 {
                throw BatchedImportStop.error(error, done: start, total: records.count, items: "records", state: result.state,
                                              method: name, logger: context.logger)
            }
            result.state = outcome.state
            result.imported += outcome.imported.count
            result.skipped += outcome.skipped.count
            start = end
            context.reportProgress(["done": .integer(Int64(end)), "total": .integer(Int64(records.count))])
        }
        if records.count == 0 { result.state = try await mail.state() }
        return result
    }

    /// The records `params` names: exactly one of a file and an inline array.
    static func source(_ params: Params, roots: ReadRoots) throws(JSONFieldError) -> ImportRecords {
        switch (params.path, params.records) {
        case (let path?, nil):
            return try ImportFile.records(path: path, roots: roots)
        case (nil, let records?):
            guard case .array = records, let array = ImportRecords(records.makeJansson()) else {
                throw JSONFieldError.outOfRange(field: "records", expected: "an array of records", got: records)
            }
            return array
        default:
            throw JSONFieldError(field: "", expected: "exactly one of path and records",
                                 got: params.path == nil ? "neither" : "both")
        }
    }
}
