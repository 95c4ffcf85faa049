import Jansson
import SwitchboardCore
#if canImport(Glibc)
import Glibc
#endif

/// A file in the prototype backend's format, `{"inbox": [{"uid", "from", "to", "subject", "text",
/// "responseToUid", "dateTime"}]}`, parsed with jansson and checked record by record.
final class ImportFile {
    /// The parsed document; views into it live as long as this object.
    private let root: JanssonValue
    private let inbox: JSONView

    /// How many records the file holds, good and bad.
    var count: Int { inbox.count }

    /// Reads and parses `path`, or throws the `-32602` error naming `path`.
    init(path: String) throws(JSONFieldError) {
        let got = JSONValue.string(path).jsonText()
        let bytes = try Self.read(path)
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw JSONFieldError(field: "path", expected: "a JSON file (\(error))", got: got)
        }
        guard root.view.kind == .object, let inbox = root.view["inbox"], inbox.kind == .array else {
            throw JSONFieldError(field: "path", expected: "a JSON file of the form {\"inbox\": [...]}", got: got)
        }
        self.inbox = inbox
    }

    /// Record `index` as a message to store, or why it cannot be one.
    func record(at index: Int, now: Int64) -> Result<ImportRecord, ImportProblem> {
        // `root`, which owns the views, lives as long as `self`.
        guard let item = inbox[index], item.kind == .object else {
            return .failure(ImportProblem(index: index, reason: "expected an object, got \(inbox[index]?.preview() ?? "nothing")"))
        }
        do {
            return .success(try Self.record(item, now: now))
        } catch {
            return .failure(ImportProblem(index: index, reason: error.description))
        }
    }

    private static func record(_ item: JSONView, now: Int64) throws(JSONFieldError) -> ImportRecord {
        let uid = try string(item, "uid", required: true)
        guard !uid.isEmpty, uid.utf8.count <= 200, !uid.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw JSONFieldError(field: "uid", expected: "a non-empty string without control characters", got: JSONValue.string(uid).jsonText())
        }
        let from = try AddressField.address(try string(item, "from", required: true), field: "from")
        let toText = try string(item, "to", required: true)
        var to: [String] = []
        for part in toText.split(separator: ",") { to.append(try AddressField.address(String(part), field: "to")) }
        guard !to.isEmpty else { throw JSONFieldError(field: "to", expected: EmailAddress.expected, got: JSONValue.string(toText).jsonText()) }
        let reply = try string(item, "responseToUid", required: false)
        let dateText = try string(item, "dateTime", required: true)
        guard let time = date(dateText, now: now) else {
            throw JSONFieldError(field: "dateTime", expected: "an RFC 3339 time, \"Today\" or \"Yesterday\"", got: JSONValue.string(dateText).jsonText())
        }
        let message = MailDraft(from: from, to: to, subject: try string(item, "subject", required: false),
                                      text: try string(item, "text", required: false), inReplyTo: reply.isEmpty ? nil : reply)
        return ImportRecord(uid: uid, message: message, time: time)
    }

    /// Member `name` as a string; a missing or `null` optional member is `""`.
    private static func string(_ item: JSONView, _ name: String, required: Bool) throws(JSONFieldError) -> String {
        guard let member = item[name], !member.isNull else {
            if required { throw JSONFieldError(field: name, expected: "a string", got: JSONFieldError.nothing) }
            return ""
        }
        guard let text = member.string else { throw JSONFieldError(field: name, expected: "a string", got: member.preview()) }
        return text
    }

    /// RFC 3339, or the prototype's `Today` / `Yesterday` (the clock's time, a day before).
    static func date(_ text: String, now: Int64) -> Int64? {
        switch text.trimmingASCIISpaces().lowercased() {
        case "today": now
        case "yesterday": now - 86_400_000
        default: Timestamp.parse(text)
        }
    }

    /// The largest file an import reads.
    static let maxFileBytes = 64 << 20

    /// The bytes of `path`, or the `-32602` error naming it.
    private static func read(_ path: String) throws(JSONFieldError) -> [UInt8] {
        let got = JSONValue.string(path).jsonText()
        func failure(_ what: String) -> JSONFieldError {
            JSONFieldError(field: "path", expected: "a readable file (\(what))", got: got)
        }
        guard !path.isEmpty else { throw failure("the path is empty") }
        // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno)).lowercased()) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw failure("not a regular file") }
        guard info.st_size <= maxFileBytes else { throw failure("larger than \(maxFileBytes >> 20) MiB") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)).lowercased())
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}

/// A record an import could not take: its position in the file and why.
public struct ImportProblem: Error, Codable, Sendable, Equatable {
    public var index: Int
    public var reason: String

    public init(index: Int, reason: String) {
        self.index = index
        self.reason = reason
    }
}
