import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.markRead {uids, read}` → `{updated, state}`: sets the read flag; `updated` lists the uids
/// whose flag changed. An unknown uid changes nothing and is -32004 naming `uids[i]`.
public enum MailMarkRead: RPCMethod {
    public static let name = "mail.markRead"
    public static let summary = "Marks messages read or unread."

    public struct Params: Decodable, Sendable {
        public var uids: [String]
        public var read: Bool
    }

    public struct Result: Encodable, Sendable {
        public var updated: [String]
        public var state: String
    }

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        try MailUIDs.check(params.uids)
        let updated = try await MailUIDs.naming(params.uids) {
            try await mail.markRead(account: account, uids: params.uids, read: params.read)
        }
        return Result(updated: updated.value, state: updated.state)
    }
}

/// The `uids` param of the batch methods.
enum MailUIDs {
    static let maximum = 1_000

    static func check(_ uids: [String]) throws(JSONFieldError) {
        guard (1...maximum).contains(uids.count) else {
            throw JSONFieldError(field: "uids", expected: "an array of 1...\(maximum) uids", got: "\(uids.count) uids")
        }
        for (index, uid) in uids.enumerated() {
            try TextLimit.check(uid, field: "uids[\(index)]", maximum: TextLimit.id)
        }
    }

    /// Runs a write on `uids`, answering an unknown uid with -32004 naming its place (`uids[i]`).
    static func naming<T>(_ uids: [String], _ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch ServiceError.notFound(let kind, let id) {
            let index = uids.firstIndex(of: id) ?? 0
            throw ResponseError(service: .notFound(kind: kind, id: id), field: "uids[\(index)]")
        }
    }
}
