import Jansson
import JSONRPC

/// Which account a mail request acts for: the one `mail.login` bound to its session, else the
/// default account given at registration (`--account`, or the demo account).
public enum MailSession {
    /// The connection session key `mail.login` sets.
    public static let key = "mail.account"

    /// `-32001`: no account is signed in and there is no default account.
    public static let notSignedInCode = ErrorCode(rawValue: -32001)

    /// The account a request of `context`'s connection acts for.
    public static func account(_ context: RequestContext, default defaultAccount: String?) throws(ResponseError) -> String {
        if let account = context.session.value(key, as: String.self) { return account }
        if let defaultAccount { return defaultAccount }
        throw ResponseError(code: notSignedInCode, message: "Not signed in: call \(MailLogin.name) {email, password} first",
                            data: ["method": .string(MailLogin.name)])
    }

    static func bind(_ context: RequestContext, to account: String) {
        context.session.set(key, account)
    }
}

/// Address params: validated, lower-cased, and named by their place (`to`, `to[1]`, `cc[0]`).
enum AddressField {
    /// The addresses of `value` (a string or an array of strings) at `field`.
    static func parse(_ value: JSONValue, field: String, allowEmpty: Bool) throws(JSONFieldError) -> [String] {
        switch value {
        case .string(let text):
            return [try address(text, field: field)]
        case .array(let items):
            guard allowEmpty || !items.isEmpty else {
                throw JSONFieldError(field: field, expected: "at least one address", got: "[]")
            }
            guard items.count <= TextLimit.addresses else {
                throw JSONFieldError(field: field, expected: "at most \(TextLimit.addresses) addresses", got: "\(items.count) addresses")
            }
            var addresses: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    throw JSONFieldError(field: "\(field)[\(index)]", expected: EmailAddress.expected, got: JSONFieldError.excerpt(item.jsonText()))
                }
                addresses.append(try address(text, field: "\(field)[\(index)]"))
            }
            return addresses
        default:
            throw JSONFieldError(field: field, expected: "an address or an array of addresses", got: JSONFieldError.excerpt(value.jsonText()))
        }
    }

    static func address(_ text: String, field: String) throws(JSONFieldError) -> String {
        guard let address = EmailAddress.normalized(text) else {
            throw JSONFieldError(field: field, expected: EmailAddress.expected, got: JSONFieldError.quote(text))
        }
        return address
    }
}
