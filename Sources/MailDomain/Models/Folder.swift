import Jansson

/// A mailbox folder: the drawer of the mail app lists these five, in this order.
public enum Folder: String, CaseIterable, Codable, Sendable, Comparable {
    case inbox = "Inbox"
    case sent = "Sent"
    case drafts = "Drafts"
    case archive = "Archive"
    case trash = "Trash"

    /// What a folder param accepts, for error messages: `one of "Inbox", "Sent", …`.
    public static let expected = "one of " + allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")

    /// The folder named `text` (any letter case), or the `-32602` error naming `field`.
    public static func parse(_ text: String, field: String) throws(JSONFieldError) -> Folder {
        guard let folder = allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            throw JSONFieldError(field: field, expected: expected, got: JSONFieldError.quote(text))
        }
        return folder
    }

    public static func < (lhs: Folder, rhs: Folder) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
