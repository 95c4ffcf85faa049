import DomainMethods
import JSONRPC
import SwitchboardCore

/// `mail.get {uid}` → one message with its full text.
public enum MailGet: RPCMethod {
    public static let name = "mail.get"
    public static let summary = "Reads one message by uid."

    public struct Params: Decodable, Sendable {
        public var uid: String
    }

    public typealias Result = Message

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Message {
        try TextLimit.check(params.uid, field: "uid", maximum: TextLimit.id)
        guard let message = try await mail.message(account: account, uid: params.uid) else {
            throw ResponseError.notFound("message \(params.uid)", field: "uid", got: params.uid)
        }
        return message
    }
}
