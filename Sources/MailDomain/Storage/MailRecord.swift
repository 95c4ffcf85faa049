import SwitchboardCore

/// A stored message as both services keep it: the ``Message`` fields, the account it belongs to,
/// its time in milliseconds, and when it entered its folder.
struct MailRecord: Sendable, Equatable {
    var account: String
    var uid: String
    var threadId: String
    var folder: Folder
    var from: String
    var to: [String]
    var cc: [String]
    var subject: String
    var text: String
    var inReplyTo: String?
    /// Milliseconds since the epoch.
    var time: Int64
    var read: Bool
    /// The mail sequence number of the write that put it in its current folder (0 for demo data):
    /// what lets a list page be placed as of the snapshot its cursor was taken at.
    var folderSeq: Int64

    var message: Message {
        Message(uid: uid, threadId: threadId, folder: folder, from: from, to: to, cc: cc, subject: subject, text: text,
                inReplyTo: inReplyTo, date: Timestamp.format(time), read: read)
    }

    /// Where a stored message goes: what the account wrote is in Sent and read; the rest arrives unread in the Inbox.
    static func placement(from: String, account: String) -> (folder: Folder, read: Bool) {
        from == account ? (.sent, true) : (.inbox, false)
    }

    /// Oldest first: by time, then by uid (as UTF-8 bytes, the order SQLite's `BINARY` collation uses).
    static func chronological(_ a: MailRecord, _ b: MailRecord) -> Bool {
        a.time != b.time ? a.time < b.time : ByteOrder.less(a.uid, b.uid)
    }
}

/// String order by UTF-8 bytes, which is SQLite's `BINARY` collation: the services must sort alike.
enum ByteOrder {
    static func less(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// One conversation in one folder: the key of the summary rows.
struct GroupKey: Hashable, Sendable {
    var account: String
    var folder: Folder
    var threadId: String

    /// Thread ids (uids) compared by their bytes, as the stores compare them (``ExactID``).
    static func == (a: GroupKey, b: GroupKey) -> Bool {
        a.folder == b.folder && ExactID(a.account) == ExactID(b.account) && ExactID(a.threadId) == ExactID(b.threadId)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ExactID(account))
        hasher.combine(folder)
        hasher.combine(ExactID(threadId))
    }
}
