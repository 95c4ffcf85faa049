import DomainMethods
import Jansson
import JSONRPC
import SwitchboardCore

/// `mail.send {to, cc?, subject, text, inReplyTo?}` → `{message, state}`: stores the message in Sent,
/// threaded with the message it answers. `to` and `cc` take an address or an array of addresses.
/// Sizes are limited (``TextLimit``); a member it does not know (`bcc`) is refused, not dropped.
public enum MailSend: RPCMethod {
    public static let name = "mail.send"
    public static let summary = "Sends a message: stores it in Sent, threaded with what it answers."

    public struct Params: Decodable, Sendable {
        public var to: JSONValue
        public var cc: JSONValue?
        public var subject: String
        public var text: String
        public var inReplyTo: String?
    }

    public struct Result: Encodable, Sendable {
        public var message: Message
        public var state: String
    }

    static func run(_ params: Params, mail: any MailService, account: String) async throws -> Result {
        let to = try AddressField.parse(params.to, field: "to", allowEmpty: false)
        let cc = try params.cc.map { value throws(JSONFieldError) in try AddressField.parse(value, field: "cc", allowEmpty: true) } ?? []
        let reply = params.inReplyTo.flatMap { $0.isEmpty ? nil : $0 }
        let outgoing = MailDraft(from: account, to: to, cc: cc, subject: params.subject, text: params.text, inReplyTo: reply)
        try outgoing.checkLimits()
        do {
            let sent = try await mail.send(account: account, outgoing)
            return Result(message: sent.value, state: sent.state)
        } catch let error as ServiceError where error.isNotFound {
            throw ResponseError(service: error, field: "inReplyTo")
        }
    }
}
