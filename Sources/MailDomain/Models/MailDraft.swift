/// A message to store: one the account sends, or one read by `mail.import`. Addresses are already
/// validated and lower-cased.
public struct MailDraft: Sendable, Equatable {
    public var from: String
    public var to: [String]
    public var cc: [String]
    public var subject: String
    public var text: String
    public var inReplyTo: String?

    public init(from: String, to: [String], cc: [String] = [], subject: String, text: String, inReplyTo: String? = nil) {
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.text = text
        self.inReplyTo = inReplyTo
    }
}

/// One good record of an import file: the message and the uid and time it came with.
public struct ImportRecord: Sendable, Equatable {
    public var uid: String
    public var message: MailDraft
    /// Milliseconds since the epoch.
    public var time: Int64

    public init(uid: String, message: MailDraft, time: Int64) {
        self.uid = uid
        self.message = message
        self.time = time
    }
}

/// What an import did with its records.
public struct ImportOutcome: Sendable, Equatable {
    /// Uids stored, in file order.
    public var imported: [String]
    /// Uids already present, in file order.
    public var skipped: [String]
    /// The mail state read inside the write's (last) transaction: see ``Committed``.
    public var state: String

    public init(imported: [String] = [], skipped: [String] = [], state: String = "") {
        self.imported = imported
        self.skipped = skipped
        self.state = state
    }
}
