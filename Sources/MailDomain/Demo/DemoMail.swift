import SwitchboardCore
/// The demo mailbox of ``DemoAccount``: realistic threads between the account and a few dozen
/// contacts, a pure function of the message count and the clock, so both services (and every
/// run with the same `--now`) hold the same mail.
///
/// Threads are reply chains (each reply answers the message before it, the prototype's
/// `responseToUid`); what contacts write is in the Inbox (recent mail often unread), the Archive or
/// the Trash; what the account writes is in Sent; a few unsent drafts sit in Drafts. Dates run back
/// from the clock over `max(30 days, 20 minutes × messages)`.
public enum DemoMail {
    /// "A few hundred messages".
    public static let defaultCount = 400

    static let minute: Int64 = 60_000
    static let day: Int64 = 86_400_000

    /// Calls `body` with each thread's messages, oldest first, `count` messages in all.
    static func generate(messages count: Int, now: Int64, _ body: ([MailRecord]) throws -> Void) rethrows {
        let now = now - now % 1000
        let span = max(30 * day, Int64(count) * 20 * minute)
        var made = 0
        var thread: UInt64 = 0
        while made < count {
            thread += 1
            var random = SplitMix64(seed: thread &* 0xD1B5_4A32_D192_ED03 ^ 0x6D61_696C)
            let records = makeThread(&random, firstUID: made + 1, limit: count - made, now: now, span: span)
            made += records.count
            try body(records)
        }
    }

    static func uid(_ number: Int) -> String {
        let digits = String(number)
        return "m" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    private static func makeThread(_ random: inout SplitMix64, firstUID: Int, limit: Int, now: Int64, span: Int64) -> [MailRecord] {
        let me = DemoAccount.email
        let people = DemoContacts.people
        let contactIndex = random.next(below: people.count)
        let contact = people[contactIndex]
        let other = people[(contactIndex + 1 + random.next(below: people.count - 1)) % people.count]
        let myself = DemoContacts.Person(email: me, first: "Demo")
        let root = uid(firstUID)
        let topic = random.pick(DemoTopics.all)
        let details = DemoTopics.Details(&random)
        let roll = random.next(below: 100)
        let size = min(limit, roll < 40 ? 1 : roll < 65 ? 2 : roll < 80 ? 3 : 4 + random.next(below: 4))
        let isDraft = random.chance(3)
        let startedByMe = isDraft || random.chance(20)
        let withCC = random.chance(25)
        let fate = random.next(below: 100)
        let incomingFolder: Folder = fate < 70 ? .inbox : fate < 93 ? .archive : .trash

        var time = now - 1000 - Int64(random.next(below: Int(span / 1000))) * 1000
        var records: [MailRecord] = []
        var fromMe = startedByMe
        for index in 0..<(isDraft ? 1 : size) {
            if index > 0 {
                time += Int64(10 + random.next(below: 30 * 60)) * minute
                if time >= now { break }
                fromMe.toggle()
            }
            let sender = fromMe ? myself : contact
            let recipient = fromMe ? contact : myself
            let folder: Folder = isDraft ? .drafts : fromMe ? .sent : incomingFolder
            let recent = now - time < 3 * day
            let read = fromMe || folder != .inbox ? true : !(recent ? random.chance(70) : random.chance(8))
            let text = index == 0
                ? DemoTopics.opening(topic, details, to: recipient.first, from: sender.first, &random)
                : DemoTopics.reply(topic, details, to: recipient.first, from: sender.first, &random)
            records.append(MailRecord(
                account: me, uid: uid(firstUID + index), threadId: root, folder: folder, from: sender.email,
                to: [recipient.email], cc: withCC && index == 0 ? [other.email] : [],
                subject: index == 0 ? topic.subject(details, &random) : Subject.reply(to: records[0].subject),
                text: text, inReplyTo: records.last?.uid, time: time, read: read, folderSeq: 0
            ))
        }
        return records
    }
}
