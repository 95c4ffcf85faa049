import FuzzSupport
import Jansson
import SwitchboardCore

/// Pagination cursors, as a client sends them back. The input is `list NUL text`, or for building
/// one, `list US sortKey US id`.
///
/// Properties: decoding never traps; a cursor that decodes is of the list asked for and encodes to
/// text that decodes to the same cursor; any cursor built from parts decodes back to itself; an
/// error quotes a short excerpt only.
enum CursorFuzz: FuzzTarget {
    static let name = "cursor"
    static let summary = "Cursor.decode of client text, Cursor.encoded round trips"
    static let maxLength = 1024

    static func run(_ input: [UInt8]) {
        let parts = input.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let list = String(decoding: parts[0], as: UTF8.self)
        let text = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : list
        do {
            let cursor = try Cursor.decode(text, list: list)
            require(cursor.list == list, "a cursor of \(cursor.list) was accepted for \(list)")
            let again = try? Cursor.decode(cursor.encoded, list: list)
            require(again == cursor, "\(cursor) did not survive encoding")
        } catch {
            require(error.description.count < 600, "a cursor error of \(error.description.count) characters")
        }
        checkBuilt(input)
    }

    static func checkBuilt(_ input: [UInt8]) {
        let fields = input.split(separator: 0x1F, maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, !input.contains(0) else { return }
        let texts = fields.map { String(decoding: $0, as: UTF8.self) }
        guard !texts[2].unicodeScalars.contains("\u{1F}") else { return }
        let cursor = Cursor(list: texts[0], sortKey: texts[1], id: texts[2])
        guard cursor.encoded.utf8.count <= Cursor.maximumLength else { return }
        let again = try? Cursor.decode(cursor.encoded, list: cursor.list)
        require(again == cursor, "built \(cursor) did not decode back")
    }
}
