/// One message as the thread view and `mail.get` show it, with its full text.
public struct Message: Codable, Sendable, Equatable {
    /// Unique within its account.
    public var uid: String
    /// The uid of the conversation's root message (see ``MailService``).
    public var threadId: String
    public var folder: Folder
    public var from: String
    public var to: [String]
    public var cc: [String]
    public var subject: String
    public var text: String
    /// The uid of the message this one answers (the prototype's `responseToUid`); `null` for none.
    public var inReplyTo: String?
    /// RFC 3339, UTC.
    public var date: String
    public var read: Bool

    public init(uid: String, threadId: String, folder: Folder, from: String, to: [String], cc: [String],
                subject: String, text: String, inReplyTo: String?, date: String, read: Bool) {
        self.uid = uid
        self.threadId = threadId
        self.folder = folder
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.text = text
        self.inReplyTo = inReplyTo
        self.date = date
        self.read = read
    }

    enum CodingKeys: String, CodingKey { case uid, threadId, folder, from, to, cc, subject, text, inReplyTo, date, read }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid, forKey: .uid)
        try container.encode(threadId, forKey: .threadId)
        try container.encode(folder, forKey: .folder)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(cc, forKey: .cc)
        try container.encode(subject, forKey: .subject)
        try container.encode(text, forKey: .text)
        try container.encode(inReplyTo, forKey: .inReplyTo)  // null when none, never absent
        try container.encode(date, forKey: .date)
        try container.encode(read, forKey: .read)
    }
}
