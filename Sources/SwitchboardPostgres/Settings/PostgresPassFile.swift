#if canImport(Glibc)
import Glibc
#endif
import SwitchboardCore

/// libpq's password file (`~/.pgpass`, or `PGPASSFILE`): lines `hostname:port:database:username:password`,
/// `*` matching anything in the first four fields, `\:` and `\\` escaping, `#` starting a comment.
/// The first line that matches gives the password.
///
/// As libpq does, a file that others (group or world) may read is ignored, with a note saying so.
enum PostgresPassFile {
    /// The largest password file read.
    static let maxBytes = 1 << 20

    /// What a look-up found: the password, or why the file was not used (`note`, naming no content).
    struct Lookup: Equatable {
        var password: String?
        var note: String?
    }

    /// The password for this connection from the file at `path`; a missing file is no password and no note.
    static func lookup(path: String, host: String, port: Int, database: String, user: String) -> Lookup {
        var status = stat()
        guard stat(path, &status) == 0 else { return Lookup() }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return Lookup(note: "password file \(path) is not a regular file: not used")
        }
        guard status.st_mode & (S_IRWXG | S_IRWXO) == 0 else {
            return Lookup(note: "password file \(path) has group or world access (it should be 0600 or less): not used")
        }
        let bytes: [UInt8]
        do {
            bytes = try RegularFile.read(path, limit: maxBytes)
        } catch {
            return Lookup(note: "password file \(path) could not be read: \(error)")
        }
        let wanted = [host, String(port), database, user]
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let password = match(line: line, wanted: wanted) { return Lookup(password: password) }
        }
        return Lookup()
    }

    /// The password of `line` when its first four fields match `wanted`.
    static func match(line: ArraySlice<UInt8>, wanted: [String]) -> String? {
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard line.first != UInt8(ascii: "#") else { return nil }
        // Each field unescaped, and whether it was a bare `*` (an escaped `\*` is a literal star).
        var fields: [[UInt8]] = [[]]
        var wildcard: [Bool] = []
        var raw: [UInt8] = []
        var escaped = false
        for byte in line {
            if escaped {
                fields[fields.count - 1].append(byte)
                raw.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                raw.append(byte)
            } else if byte == UInt8(ascii: ":"), fields.count < 5 {
                // The password is the rest of the line: a colon in it is its own.
                wildcard.append(raw == [UInt8(ascii: "*")])
                raw = []
                fields.append([])
            } else {
                fields[fields.count - 1].append(byte)
                raw.append(byte)
            }
        }
        guard fields.count == 5, wanted.count == 4 else { return nil }
        for (index, want) in wanted.enumerated() where !wildcard[index] && fields[index] != Array(want.utf8) {
            return nil
        }
        return String(validating: fields[4], as: UTF8.self)
    }
}
