import SwitchboardCore

/// The bookkeeping of one mail write, the same on every SQL backend: the mail sequence number it is
/// stamped with, the change records it makes (in order) and the conversations whose listing rows it
/// must rebuild. A backend stores the rows, then writes ``changes`` to its change log under ``scope``
/// and rebuilds ``touched`` (``ConversationRefresh``).
///
/// What is logged: a stored message is `created`; a read-flag change, a move and a message pulled into
/// another conversation are `updated`.
struct MailWrite: Sendable {
    /// One change record.
    struct Change: Sendable, Equatable {
        var uid: String
        var kind: ChangeRecord.Kind
    }

    /// A stored conversation that joins another: its messages, oldest first, with their folders.
    struct Rethread: Sendable {
        var old: String
        var new: String
        var members: [(uid: String, folder: Folder)]
    }

    let account: String
    let sequence: Int64
    private(set) var changes: [Change] = []
    private(set) var touched = Set<GroupKey>()

    init(account: String, sequence: Int64) {
        self.account = account
        self.sequence = sequence
    }

    /// The change log's scope of the account (`mail/ACCOUNT`).
    var scope: String { mailScope(account) }

    mutating func created(_ record: MailRecord) {
        changes.append(Change(uid: record.uid, kind: .created))
        touched.insert(GroupKey(account: account, folder: record.folder, threadId: record.threadId))
    }

    /// `record`'s read flag changed.
    mutating func flagged(_ record: MailRecord) {
        changes.append(Change(uid: record.uid, kind: .updated))
        touched.insert(GroupKey(account: account, folder: record.folder, threadId: record.threadId))
    }

    /// `record` left its folder for `folder`.
    mutating func moved(_ record: MailRecord, to folder: Folder) {
        changes.append(Change(uid: record.uid, kind: .updated))
        touched.insert(GroupKey(account: account, folder: record.folder, threadId: record.threadId))
        touched.insert(GroupKey(account: account, folder: folder, threadId: record.threadId))
    }

    /// Every message of `move.old` joined `move.new`.
    mutating func rethreaded(_ move: Rethread) {
        for member in move.members {
            changes.append(Change(uid: member.uid, kind: .updated))
            touched.insert(GroupKey(account: account, folder: member.folder, threadId: move.old))
            touched.insert(GroupKey(account: account, folder: member.folder, threadId: move.new))
        }
    }
}
