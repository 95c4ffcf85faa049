import Jansson

/// A JSON file an import request names (`mail.import {path}`, `catalog.import {path}`), opened
/// through the host's ``ReadRoots`` and parsed whole. Errors are `-32602` naming `path` and say what
/// was wrong without quoting the file: a JSON error gives its line and column, not the text around it.
public enum JSONImportFile {
    /// The largest file an import reads.
    public static let maxFileBytes = 64 << 20
    /// The most values a file may hold: what one message may (``JSONValueCount/maximum``).
    public static let maxValues = JSONValueCount.maximum

    /// The document in the file at `path`, or the error naming `path`: one refusal for every file
    /// outside the allowed folders (it does not say whether the file exists), the reason inside them.
    public static func parse(path: String, roots: ReadRoots) throws(JSONFieldError) -> JanssonValue {
        let bytes: [UInt8]
        do {
            bytes = try roots.open(path).readAll(limit: maxFileBytes)
        } catch {
            switch error {
            case .refused: throw failure(path: path, expected: "a file inside the folders this host lets requests read (--allow-read)")
            case .invalidPath(let reason): throw failure(path: path, expected: "a file path (\(reason))")
            case .unreadable(let reason): throw failure(path: path, expected: "a readable file (\(reason))")
            }
        }
        // Counted before jansson builds them, as a message is (a 64 MiB file of `{},` took 6 GB to parse).
        let values = maxValues
        if JSONValueCount.mayExceed(bytes.count, limit: values),
           bytes.withUnsafeBytes({ JSONValueCount.count($0, stoppingAfter: values) }) > values {
            throw failure(path: path, expected: "a JSON file of at most \(values) values (strings, numbers, objects, arrays…): split it into several imports")
        }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw failure(path: path, expected: "a JSON file (not valid JSON: \(error.descriptionWithoutText))")
        }
    }

    /// What a reason says of a bad value in an imported document: its JSON type ("a string"), never
    /// its text, so no error quotes what a file holds.
    public static func describe(_ value: JSONView?) -> String {
        guard let value else { return JSONFieldError.nothing }
        switch value.kind {
        case .object: return "an object"
        case .array: return "an array"
        case .integer: return "an integer"
        case .null: return "null"
        case .string, .real, .bool: return "a \(value.kind.description)"
        }
    }

    /// The `-32602` error naming `path`, quoting the path a request gave.
    public static func failure(path: String, expected: String) -> JSONFieldError {
        JSONFieldError.outOfRange(field: "path", expected: expected, got: path)
    }
}
