import MailDomain
import SwitchboardCore
import Testing

/// A batch is threaded in one pass; it must thread exactly as storing its messages one at a time
/// does, whatever the order: replies before their parents, chains across batches, cycles, self-replies.
@Suite("Import threading", .postgresStores)
struct ImportThreadingTests {
    /// Messages of several conversations in a seeded random order, some answering stored messages.
    static func records(seed: UInt64) -> [ImportRecord] {
        var random = SplitMix64(seed: seed)
        var records: [ImportRecord] = []
        for index in 0..<300 {
            let parent: String? = switch random.next(below: 6) {
            case 0: nil
            case 1: "t\(random.next(below: 300))"                      // anywhere, before or after, or a cycle
            case 2: "t\(index)"                                        // itself
            case 3: "missing\(random.next(below: 5))"                  // never imported
            default: index > 0 ? "t\(index - 1 - random.next(below: min(index, 5)))" : nil
            }
            let from = random.chance(30) ? DemoAccount.email : "ada@example.com"
            let message = MailDraft(from: from, to: [from == DemoAccount.email ? "ada@example.com" : DemoAccount.email],
                                          subject: "s\(index % 7)", text: "text \(index)", inReplyTo: parent)
            records.append(ImportRecord(uid: "t\(index)", message: message, time: 1_700_000_000_000 + Int64(random.next(below: 100_000)) * 1_000))
        }
        // Duplicates, within the batch and of what was imported before.
        records += records.prefix(3)
        var shuffled = records
        shuffled.shuffle(using: &random)
        return shuffled
    }

    /// Every message's thread and every inbox and sent conversation, as one comparable text.
    static func snapshot(_ mail: any MailService) async throws -> [String] {
        var lines: [String] = []
        for index in 0..<300 {
            let message = try await mail.message(account: DemoAccount.email, uid: "t\(index)")
            lines.append("t\(index) → \(message?.threadId ?? "none")")
        }
        for folder in [Folder.inbox, .sent] {
            let page = try await mail.conversations(account: DemoAccount.email, folder: folder, unreadOnly: false, page: PageRequest(limit: 500))
            lines += page.items.map { "\(folder) \($0.threadId) \($0.messageCount) \($0.unreadCount) \($0.latest.uid) \($0.participants)" }
        }
        let folders = try await mail.folders(account: DemoAccount.email)
        lines += folders.map { "\($0.name) \($0.total) \($0.unread)" }
        return lines
    }

    @Test("a batch threads as one-at-a-time storing does", arguments: MailBackend.allCases, [1, 2, 3] as [UInt64])
    func sameAsOneAtATime(backend: MailBackend, seed: UInt64) async throws {
        let records = Self.records(seed: seed)
        let oneByOne = try await backend.make(messages: 0)
        var skipped = 0
        for record in records {
            skipped += try await oneByOne.importMessages(account: DemoAccount.email, [record]).skipped.count
        }
        let batched = try await backend.make(messages: 0)
        // Two batches, so the second one re-threads what the first stored.
        let half = records.count / 2
        let first = try await batched.importMessages(account: DemoAccount.email, Array(records[..<half]))
        let second = try await batched.importMessages(account: DemoAccount.email, Array(records[half...]))
        #expect(first.skipped.count + second.skipped.count == skipped && skipped == 3)
        #expect(try await Self.snapshot(batched) == Self.snapshot(oneByOne))
    }
}
