import SwitchboardCore
/// What the demo threads are about: subjects, openings and replies, filled in per thread.
struct DemoTopic: Sendable {
    var subjects: [String]
    var openings: [String]
    var replies: [String]

    func subject(_ details: DemoTopics.Details, _ random: inout SplitMix64) -> String {
        details.fill(random.pick(subjects))
    }
}

enum DemoTopics {
    static let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    static let places = ["Lisbon", "Nairobi", "Kyoto", "Montréal", "Reykjavík", "São Paulo", "Berlin", "Melbourne"]
    static let features = ["cursor pagination", "the change log", "FTS search", "the import path", "session handling", "the seed script"]

    /// What one thread is about: the same day, place, feature and number throughout.
    struct Details: Sendable {
        var day: String
        var place: String
        var feature: String
        var number: String

        init(_ random: inout SplitMix64) {
            day = random.pick(DemoTopics.days)
            place = random.pick(DemoTopics.places)
            feature = random.pick(DemoTopics.features)
            number = String(1000 + random.next(below: 9000))
        }

        /// Replaces `{day}`, `{place}`, `{feature}` and `{n}`.
        func fill(_ template: String) -> String {
            template.replacingAll("{day}", with: day).replacingAll("{place}", with: place)
                .replacingAll("{feature}", with: feature).replacingAll("{n}", with: number)
        }
    }

    static func opening(_ topic: DemoTopic, _ details: Details, to: String, from: String, _ random: inout SplitMix64) -> String {
        let greeting = random.pick(["Hi \(to),", "Hello \(to),", "Hey \(to),", "\(to),"])
        let body = sentences(topic.openings, count: 2 + random.next(below: 2), &random).map(details.fill)
        let closing = random.pick(["Thanks,", "Best,", "Cheers,", "Talk soon,"])
        return "\(greeting)\n\n\(body.joined(separator: " "))\n\n\(closing)\n\(from)"
    }

    static func reply(_ topic: DemoTopic, _ details: Details, to: String, from: String, _ random: inout SplitMix64) -> String {
        let greeting = random.pick(["Hi \(to),", "Thanks \(to)!", "\(to),", "Sounds good."])
        let body = sentences(topic.replies, count: 1 + random.next(below: 2), &random).map(details.fill)
        return "\(greeting)\n\n\(body.joined(separator: " "))\n\n\(from)"
    }

    /// `count` different sentences of `pool`, in pool order.
    private static func sentences(_ pool: [String], count: Int, _ random: inout SplitMix64) -> [String] {
        var chosen = Set<Int>()
        while chosen.count < min(count, pool.count) { chosen.insert(random.next(below: pool.count)) }
        return chosen.sorted().map { pool[$0] }
    }

    static let all: [DemoTopic] = [
        DemoTopic(
            subjects: ["Lunch on {day}?", "Lunch {day}", "Coffee this week?"],
            openings: ["Are you free for lunch on {day}?", "There is a new noodle place near the office that I keep hearing about.",
                       "I could do noon or half past.", "It has been a while since we caught up properly."],
            replies: ["{day} works for me, noon is perfect.", "Can we push it to half past? I have a call that may run over.",
                      "I booked a table for two.", "Let's do it, I'll meet you in the lobby."]
        ),
        DemoTopic(
            subjects: ["Invoice #{n}", "Your invoice #{n} is ready", "Payment received for invoice #{n}"],
            openings: ["Your invoice for this month is attached.", "The amount due is payable within 30 days.",
                       "You can download a PDF copy from your account page.", "Please reply to this message if anything looks wrong."],
            replies: ["Thanks, I have forwarded it to accounting.", "Could you add our VAT number to the invoice?",
                      "Paid this morning, the transfer should arrive in two days."]
        ),
        DemoTopic(
            subjects: ["Code review: {feature}", "Review request: {feature}", "Feedback on {feature}"],
            openings: ["I opened a pull request for {feature} and would love a second pair of eyes.",
                       "The tricky part is keeping the cursor stable while new rows arrive.",
                       "Tests pass locally, but CI is slow today.", "I left a few questions inline where I was unsure."],
            replies: ["Looks good overall, I left two small comments.", "Can we add a test for the empty case?",
                      "Approved. Nice work on {feature}.", "I think the index needs a second column for the tie-break."]
        ),
        DemoTopic(
            subjects: ["Trip to {place}", "Flight itinerary: {place}", "Hotel options in {place}"],
            openings: ["I put together a rough itinerary for the trip to {place}.", "Flights land early on {day} morning.",
                       "The hotel near the conference centre has rooms left.", "Let me know if you want to extend the stay by a day."],
            replies: ["That itinerary works for me.", "Could we take the later flight? Mornings are hard that week.",
                      "I booked the hotel, confirmation is in my inbox.", "Extending by a day sounds lovely."]
        ),
        DemoTopic(
            subjects: ["Quarterly planning", "Planning offsite agenda", "Roadmap for next quarter"],
            openings: ["Here is a first draft of the agenda for the planning session.",
                       "We should settle the priorities for search and import before {day}.",
                       "I would like each team to bring their three biggest risks.", "The room is booked from ten until four."],
            replies: ["Added my notes to the agenda.", "Can we leave an hour for open discussion?",
                      "Search should be at the top of the list.", "I'll bring the numbers from last quarter."]
        ),
        DemoTopic(
            subjects: ["Welcome to Switchboard", "Your weekly summary", "Security notice: new sign-in"],
            openings: ["Thanks for signing up, your mailbox is ready.", "You have new messages waiting in your inbox.",
                       "We noticed a sign-in from a new device on {day}.", "If this was you, there is nothing to do."],
            replies: ["Thanks for the heads-up, that was me.", "How do I turn these summaries off?"]
        ),
        DemoTopic(
            subjects: ["Book club: next pick", "Reading list for the holidays", "Have you read this one?"],
            openings: ["Our next book club meets on {day} evening.", "I just finished a wonderful novel set in {place}.",
                       "The vote for the next pick closes on Friday.", "Bring snacks if you can."],
            replies: ["I'm halfway through, no spoilers please!", "Count me in for {day}.",
                      "I vote for the one about the lighthouse.", "Loved it, the ending surprised me."]
        ),
        DemoTopic(
            subjects: ["Outage postmortem", "Incident report #{n}", "Database migration tonight"],
            openings: ["The database migration is scheduled for tonight at eleven.", "Writes will pause for about five minutes.",
                       "Yesterday's outage was caused by a full disk on the primary.", "The postmortem document is open for comments."],
            replies: ["Thanks for the clear write-up.", "Should we alert on disk usage at eighty percent?",
                      "Migration finished without issues.", "I added a section on the timeline."]
        ),
        DemoTopic(
            subjects: ["Birthday surprise for {day}", "Party planning", "Gift ideas?"],
            openings: ["We are planning a small surprise on {day}.", "Everyone is chipping in for a gift.",
                       "Please keep it quiet until then!", "I was thinking of a cake from the bakery on the corner."],
            replies: ["I'm in, count me for the gift.", "I can pick up the cake on my way.",
                      "What about a plant for the desk?", "See you there."]
        ),
        DemoTopic(
            subjects: ["Interview schedule", "Candidate feedback", "Hiring update"],
            openings: ["We have three candidates coming in on {day}.", "Could you take the systems design interview?",
                       "Please send written feedback by the end of the day.", "The scorecards are in the shared folder."],
            replies: ["Happy to take the afternoon slot.", "Strong hire from me, great at debugging.",
                      "Feedback submitted.", "Can we move my slot to the morning?"]
        ),
    ]
}

extension String {
    /// Every occurrence of `target` replaced by `replacement`.
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
