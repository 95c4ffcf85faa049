import Jansson
import JSONRPC

/// What a recording keeps of a secret: a frame's `password` members (`mail.login {email, password}`)
/// are replaced by ``placeholder`` before the frame is written, so a `--record` file never holds a
/// password. A replay still works: a login accepts any non-empty password.
enum SecretRedaction {
    static let placeholder = "[redacted]"
    /// The member names whose values are secrets.
    static var secretMembers: Set<String> { ResponseError.secretMembers }

    /// `value` with every secret member's value, at any depth, replaced by the placeholder.
    static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var redacted = JSONObject()
            for (key, member) in object {
                redacted[key] = secretMembers.contains(key) ? .string(placeholder) : redact(member)
            }
            return .object(redacted)
        case .array(let items):
            return .array(items.map(redact))
        default:
            return value
        }
    }

    /// A frame that is not JSON, cut before the first secret member name it holds (the rest may be the secret).
    static func redact(text: String) -> String {
        for name in secretMembers {
            if let range = text.firstRange(of: "\"\(name)\"") {
                return String(text[..<range.lowerBound]) + "\"\(name)\": \(placeholder)"
            }
        }
        return text
    }
}
