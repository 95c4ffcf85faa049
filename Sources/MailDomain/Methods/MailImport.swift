import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.import {path}` → `{imported, skipped, errors, state}`: reads a file in the prototype
/// backend's format into the account. Bad records are reported by index and reason and the good ones
/// kept; records whose uid the account has are skipped, so importing a file twice adds nothing twice.
///
/// Records are stored a batch at a time; after each batch, with a progress token, it reports
/// `$/progress {"done": n, "total": count}`.
public enum MailImport: RPCMethod {
    public static let name = "mail.import"
    public static let summary = "Imports messages from a file in the prototype backend's inbox format."

    /// Records per batch, and between progress reports.
    public static let batchSize = 500

    public struct Params: Decodable, Sendable {
        public var path: String
    }

    public struct Result: Encodable, Sendable {
        public var imported: Int
        public var skipped: Int
        public var errors: [ImportProblem]
        public var state: String
    }

    static func run(_ params: Params, mail: any MailService, account: String, clock: any WallClock,
                    context: RequestContext) async throws -> Result {
        let file = try ImportFile(path: params.path)
        let now = clock.now()
        var result = Result(imported: 0, skipped: 0, errors: [], state: "")
        var start = 0
        while start < file.count {
            try context.checkCancellation()
            let end = min(start + batchSize, file.count)
            var batch: [ImportRecord] = []
            for index in start..<end {
                switch file.record(at: index, now: now) {
                case .success(let record): batch.append(record)
                case .failure(let problem): result.errors.append(problem)
                }
            }
            let outcome = try await mail.importMessages(account: account, batch)
            result.state = outcome.state
            result.imported += outcome.imported.count
            result.skipped += outcome.skipped.count
            start = end
            context.reportProgress(["done": .integer(Int64(end)), "total": .integer(Int64(file.count))])
        }
        if file.count == 0 { result.state = try await mail.state() }
        return result
    }
}
