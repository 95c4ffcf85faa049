import Jansson

/// `key=value` words as a params object: `limit=3 folder=Inbox` → `{"limit": 3, "folder": "Inbox"}`.
///
/// A value that reads as a JSON number, `true`, `false` or `null` is taken as that; a value in JSON
/// string quotes (`name='"3"'` in a shell) is that string; anything else is the text itself, as a string.
/// Objects and arrays are written as JSON params instead.
public enum ParamShorthand {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// True when `words` look like shorthand rather than JSON text: the first one holds `=` and does not
    /// start like JSON.
    public static func applies(to words: [String]) -> Bool {
        guard let first = words.first, let start = first.first else { return false }
        return !"{[".contains(start) && first.contains("=")
    }

    /// The params object for `words`; each must be `key=value` with a non-empty key, each key once.
    public static func params(from words: [String]) throws(Failure) -> JSONValue {
        var object = JSONObject()
        for word in words {
            guard let equals = word.firstIndex(of: "=") else {
                throw Failure(description: "\"\(excerpt(word))\" is not key=value")
            }
            let key = String(word[..<equals])
            guard !key.isEmpty else { throw Failure(description: "\"\(excerpt(word))\" has no key before =") }
            guard object[key] == nil else { throw Failure(description: "\"\(excerpt(key))\" is given twice") }
            object[key] = value(String(word[word.index(after: equals)...]))
        }
        return .object(object)
    }

    /// The JSON value a shorthand value stands for.
    public static func value(_ text: String) -> JSONValue {
        guard let first = text.first, "-0123456789tfn\"".contains(first),
              let parsed = try? JSONValue(parsing: text) else { return .string(text) }
        switch parsed {
        case .integer, .double, .bool, .null, .string: return parsed
        case .array, .object: return .string(text)
        }
    }

    private static func excerpt(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
