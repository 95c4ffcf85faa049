/// Storing new messages (a send, an import batch), the same on every SQL backend: ``ImportThreading``
/// plans the conversations, the backend moves the stored conversations that join others and inserts
/// ``rows(_:placement:)``, then records both here.
extension MailWrite {
    /// The order a write logs its changes in.
    enum Order: Sendable {
        /// A sent message, then the conversations it pulls in (as storing one message always did).
        case messagesFirst
        /// An import batch: the conversations that join others, then the new messages.
        case rethreadsFirst
    }

    /// The rows of the messages `threading` stores, in batch order, each in the folder `placement`
    /// gives, with its final conversation, stamped with this write's sequence.
    func rows(_ threading: ImportThreading, placement: (ImportRecord) -> (folder: Folder, read: Bool)) -> [MailRecord] {
        threading.entries.map { entry in
            let record = entry.record, message = entry.record.message
            let (folder, read) = placement(record)
            return MailRecord(account: account, uid: record.uid, threadId: entry.threadId, folder: folder, from: message.from,
                              to: message.to, cc: message.cc, subject: message.subject, text: message.text,
                              inReplyTo: message.inReplyTo, time: record.time, read: read, folderSeq: sequence)
        }
    }

    /// Records the stored `rows` and the conversations `rethreads` moved, in `order`.
    mutating func stored(_ rows: [MailRecord], rethreads: [Rethread], order: Order) {
        if order == .rethreadsFirst { rethreads.forEach { rethreaded($0) } }
        rows.forEach { created($0) }
        if order == .messagesFirst { rethreads.forEach { rethreaded($0) } }
    }
}
