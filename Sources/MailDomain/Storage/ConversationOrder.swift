import Jansson
import SwitchboardCore

/// The order of a folder's listing and its keyset cursors, shared by both services.
///
/// Conversations are listed newest activity first: by latest message time, then thread id, both
/// descending. A cursor holds the position of the last conversation served and the mail sequence
/// number of the first page (the *snapshot*). A later page places every conversation as it stood at
/// the snapshot: one that gained a message since keeps its old position (its key is recomputed from
/// the messages that were in the folder then), and one that did not exist then is left out (it
/// arrived above the first page). So a message arriving between two page requests never makes a
/// conversation be skipped or served twice.
///
/// - Important: The guarantee covers arrivals (sends, imports) and flag changes. A conversation whose
///   latest message is moved out of the folder between pages may move down and be served again.
enum ConversationOrder {
    /// The list a cursor belongs to: account, folder and the unread filter.
    static func listID(account: String, folder: Folder, unreadOnly: Bool) -> String {
        "inbox/\(account)/\(folder.rawValue)/\(unreadOnly ? "unread" : "all")"
    }

    /// A position in the listing: compares in listing order (`a < b` when `a` is listed first).
    struct Key: Comparable, Sendable {
        var time: Int64
        var threadId: String

        static func < (a: Key, b: Key) -> Bool {
            a.time != b.time ? a.time > b.time : ByteOrder.less(b.threadId, a.threadId)
        }
    }

    /// Where a page starts.
    struct Position: Sendable {
        /// The mail sequence number the list is placed at.
        var snapshot: Int64
        /// The last conversation served; `nil` on the first page.
        var after: Key?
    }

    /// Reads the cursor of `page` (the first page when there is none), taking `current` as the snapshot then.
    static func position(_ cursor: String?, list: String, current: Int64) throws(JSONFieldError) -> Position {
        guard let cursor else { return Position(snapshot: current, after: nil) }
        let decoded = try Cursor.decode(cursor, list: list)
        let parts = decoded.sortKey.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let snapshot = Int64(parts[0]), let time = Int64(parts[1]),
              snapshot >= 0, snapshot <= current, !decoded.id.isEmpty else {
            throw Cursor.invalid(cursor)
        }
        return Position(snapshot: snapshot, after: Key(time: time, threadId: decoded.id))
    }

    /// One listed conversation and the key it is placed by.
    struct Placed: Sendable {
        var conversation: Conversation
        var key: Key
    }

    /// The page: `candidates` (every conversation placed after the cursor that a page could hold,
    /// in any order) sorted, cut to `limit`, with the cursor of the rest.
    static func page(_ candidates: [Placed], limit: Int, list: String, snapshot: Int64) -> Page<Conversation> {
        let sorted = candidates.sorted { $0.key < $1.key }
        let items = sorted.prefix(limit)
        guard sorted.count > limit, let last = items.last else {
            return Page(items: items.map(\.conversation), nextCursor: nil)
        }
        let cursor = Cursor(list: list, sortKey: "\(snapshot):\(last.key.time)", id: last.key.threadId)
        return Page(items: items.map(\.conversation), nextCursor: cursor.encoded)
    }
}
