import Jansson
import SwitchboardCore

/// Records in the prototype backend's format, `[{"uid", "from", "to", "subject", "text",
/// "responseToUid", "dateTime"}]`, held as one jansson array and checked one at a time: the `inbox`
/// array of an import file, or the `records` of `mail.import` itself.
final class ImportRecords {
    /// The parsed document; views into it live as long as this object.
    private let root: JanssonValue
    private let array: JSONView

    /// How many records there are, good and bad.
    var count: Int { array.count }

    /// The array `root` is or, with `member`, the array at that member of the object `root` is;
    /// nil for any other shape.
    init?(_ root: JanssonValue, member: String? = nil) {
        self.root = root
        var array: JSONView? = root.view
        if let member { array = root.view.kind == .object ? root.view[member] : nil }
        guard let array, array.kind == .array else { return nil }
        self.array = array
    }

    /// Record `index` as a message to store, or why it cannot be one.
    func record(at index: Int, now: Int64) -> Result<ImportRecord, ImportProblem> {
        // `root`, which owns the views, lives as long as `self`.
        guard let item = array[index], item.kind == .object else {
            return .failure(ImportProblem(index: index, reason: "expected an object, got \(JSONImportFile.describe(array[index]))"))
        }
        let record: ImportRecord
        do {
            record = try Self.record(item, now: now)
        } catch {
            // Name the bad member's type, never its text, whatever the check that refused it quoted:
            // the records may be a file's.
            var problem = error
            problem.got = JSONImportFile.describe(item[problem.field])
            return .failure(ImportProblem(index: index, reason: problem.description))
        }
        do {
            // The sizes `mail.send` allows; the error gives a size, not the text.
            try record.message.checkLimits(replyField: "responseToUid")
        } catch {
            return .failure(ImportProblem(index: index, reason: error.description))
        }
        return .success(record)
    }

    private static func record(_ item: JSONView, now: Int64) throws(JSONFieldError) -> ImportRecord {
        let uid = try string(item, "uid", required: true)
        guard !uid.isEmpty, uid.utf8.count <= 200, !uid.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw JSONFieldError.outOfRange(field: "uid", expected: "a non-empty string of at most 200 bytes without control characters", got: uid)
        }
        let from = try AddressField.address(try string(item, "from", required: true), field: "from")
        let toText = try string(item, "to", required: true)
        var to: [String] = []
        for part in toText.split(separator: ",") { to.append(try AddressField.address(String(part), field: "to")) }
        guard !to.isEmpty else { throw JSONFieldError.outOfRange(field: "to", expected: EmailAddress.expected, got: toText) }
        let reply = try string(item, "responseToUid", required: false)
        let dateText = try string(item, "dateTime", required: true)
        guard let time = date(dateText, now: now) else {
            throw JSONFieldError.outOfRange(field: "dateTime", expected: "an RFC 3339 time, \"Today\" or \"Yesterday\"", got: dateText)
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
        // SQLite would cut the text at U+0000; refused, as in every other method's params.
        guard !text.utf8.contains(0) else { throw JSONFieldError.outOfRange(field: name, expected: "a string without U+0000 (NUL)", got: text) }
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
