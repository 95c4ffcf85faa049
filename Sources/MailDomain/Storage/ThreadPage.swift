import Jansson
import SwitchboardCore

/// How `mail.thread` pages a conversation: oldest first, by time, then in the order the messages were
/// stored (their row id; a position in memory), at most `limit` messages and about ``byteBudget``
/// bytes of text a page, but always one message, with cursors of list `mail/thread/ACCOUNT/THREAD`.
/// A thread of 181 messages of 1 MB was one answer of 180 MB. Ties go by arrival, not uid: a message
/// stored between two pages with a time already paged comes after them, never before the cursor
/// (`s10` sorts before `s2` as text, and was never paged). One stored meanwhile with an earlier time
/// (an older reply imported) sorts before the cursor and is not paged, as in any keyset list.
struct ThreadPage {
    /// The most bytes of message text a page holds, but for a first message larger than that alone
    /// (counted as stored: the answer's JSON escapes may make it larger).
    static let byteBudget = 4 << 20

    private let list: String
    let limit: Int
    /// The page starts after this message (its time and arrival), or at the first.
    let after: (time: Int64, arrival: Int64)?

    /// Reads `page`'s cursor; throws the `-32602` error naming `cursor` for one not of this thread.
    init(account: String, threadId: String, page: PageRequest) throws(JSONFieldError) {
        list = "mail/thread/\(account)/\(threadId)"
        limit = page.limit
        guard let text = page.cursor else {
            after = nil
            return
        }
        let cursor = try Cursor.decode(text, list: list)
        guard let time = Int64(cursor.sortKey), let arrival = Int64(cursor.id) else { throw Cursor.invalid(text) }
        after = (time, arrival)
    }

    /// Gathers a page from the thread's messages after ``after``, offered in order.
    struct Collector {
        let page: ThreadPage
        private(set) var records: [MailRecord] = []
        private var last: (time: Int64, arrival: Int64)?
        private var bytes = 0
        /// Set once a message is offered that the page has no room for.
        private(set) var nextCursor: String?

        init(_ page: ThreadPage) {
            self.page = page
        }

        /// Takes `record`, stored as number `arrival`, when the page has room; false (and the next
        /// cursor set) when it has none, and the caller stops reading.
        mutating func offer(_ record: MailRecord, arrival: Int64) -> Bool {
            let size = record.text.utf8.count
            guard records.count < page.limit, records.isEmpty || bytes + size <= ThreadPage.byteBudget else {
                if let last {
                    nextCursor = Cursor(list: page.list, sortKey: String(last.time), id: String(last.arrival)).encoded
                }
                return false
            }
            records.append(record)
            last = (record.time, arrival)
            bytes += size
            return true
        }
    }
}
