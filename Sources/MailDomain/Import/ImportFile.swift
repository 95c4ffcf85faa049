import Jansson
import SwitchboardCore

/// An import file in the prototype backend's format, `{"inbox": [records]}`, read and parsed by
/// ``JSONImportFile`` (confined to the host's ``ReadRoots``, errors naming `path`).
enum ImportFile {
    /// The records of the file at `path`, or the `-32602` error naming `path`.
    static func records(path: String, roots: ReadRoots) throws(JSONFieldError) -> ImportRecords {
        let root = try JSONImportFile.parse(path: path, roots: roots)
        guard let records = ImportRecords(root, member: "inbox") else {
            throw JSONImportFile.failure(path: path, expected: "a JSON file of the form {\"inbox\": [...]}")
        }
        return records
    }
}
