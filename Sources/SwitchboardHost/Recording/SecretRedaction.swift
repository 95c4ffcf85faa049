import Jansson
import JSONRPC

/// What a recording, or the prompt's history, keeps of a secret: a frame's `password` members
/// (`mail.login {email, password}`) are replaced by ``placeholder`` before the frame is written, so a
/// `--record` file or the history file never holds a password. A replay still works: a login accepts
/// any non-empty password.
public enum SecretRedaction {
    public static let placeholder = "[redacted]"
    /// The member names whose values are secrets.
    static var secretMembers: Set<String> { ResponseError.secretMembers }

    /// `value` with every secret member's value, at any depth, replaced by the placeholder.
    public static func redact(_ value: JSONValue) -> JSONValue {
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

    /// A frame (or a typed line) that is not JSON, cut before the first secret member name it holds,
    /// quoted (`"password"`) or as a `key=value` word (`password=`): the rest may be the secret. Cut
    /// as well before a `\u` escape, with which a name can be spelled (`"pass\u0077ord"`).
    public static func redact(text: String) -> String {
        if let escape = text.firstRange(of: "\\u"), !secretMembers.contains(where: { name in
            [("\"\(name)\""), ("\(name)=")].contains { text.firstRange(of: $0).map { $0.lowerBound < escape.lowerBound } ?? false }
        }) {
            return String(text[..<escape.lowerBound]) + placeholder
        }
        var cut: (at: String.Index, name: String, quoted: Bool)?
        for name in secretMembers {
            for (pattern, quoted) in [("\"\(name)\"", true), ("\(name)=", false)] {
                if let range = text.firstRange(of: pattern), range.lowerBound < cut?.at ?? text.endIndex {
                    cut = (range.lowerBound, name, quoted)
                }
            }
        }
        guard let cut else { return text }
        return String(text[..<cut.at]) + (cut.quoted ? "\"\(cut.name)\": \(placeholder)" : "\(cut.name)=\(placeholder)")
    }
}
