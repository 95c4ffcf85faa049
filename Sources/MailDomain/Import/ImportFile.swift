import Jansson
import SwitchboardCore

/// An import file in the prototype backend's format, `{"inbox": [records]}`, opened through the
/// host's ``ReadRoots``. Errors name `path` and say what was wrong without quoting the file: a
/// JSON error gives its line and column, not the text around it.
enum ImportFile {
    /// The largest file an import reads.
    static let maxFileBytes = 64 << 20

    /// The records of the file at `path`, or the `-32602` error naming `path`.
    static func records(path: String, roots: ReadRoots) throws(JSONFieldError) -> ImportRecords {
        func failure(_ expected: String) -> JSONFieldError {
            JSONFieldError.outOfRange(field: "path", expected: expected, got: path)
        }
        let bytes: [UInt8]
        do {
            bytes = try roots.open(path).readAll(limit: maxFileBytes)
        } catch {
            switch error {
            case .refused: throw failure("a file inside the folders this host lets requests read (--allow-read)")
            case .invalidPath(let reason): throw failure("a file path (\(reason))")
            case .unreadable(let reason): throw failure("a readable file (\(reason))")
            }
        }
        let root: JanssonValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw failure("a JSON file (not valid JSON at line \(error.line), column \(error.column))")
        }
        guard let records = ImportRecords(root, member: "inbox") else {
            throw failure("a JSON file of the form {\"inbox\": [...]}")
        }
        return records
    }
}
