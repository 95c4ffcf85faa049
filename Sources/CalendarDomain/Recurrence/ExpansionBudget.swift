import Synchronization

/// The candidates every expansion of one request may look at together
/// (``RecurrenceExpansion/iterate(_:from:notBefore:through:maximumSteps:_:)``), on top of each
/// iteration's own ``RecurrenceExpansion/candidateBudget``: ten rules whose by-parts seldom pass made
/// one `calendar.day` look at 2.5 million candidates, about 8.5 s of libical, on every call.
/// `calendar.agenda` and `calendar.day` run with one (``RecurrenceExpansion/requestBudget``); what it
/// cuts is reported as a truncation, like any other expansion stopped early. Writes run without one:
/// a span computed under a shared budget would be stored open-ended for want of what other events
/// in the same import spent.
final class ExpansionBudget: Sendable {
    /// Candidates one request looks at, at most, about: twice one iteration's, so one rare rule still
    /// gets its own whole budget; an agenda's 100,000 occurrences take far fewer.
    static let requestCandidates: Int64 = 500_000

    private let remaining: Atomic<Int64>

    init(candidates: Int64 = requestCandidates) {
        remaining = Atomic(candidates)
    }

    /// Takes `count` candidates; false once none are left (then stays false).
    func spend(_ count: Int64) -> Bool {
        remaining.subtract(count, ordering: .relaxed).newValue > 0
    }

    /// True once a spend found the budget used up.
    var isSpent: Bool { remaining.load(ordering: .relaxed) <= 0 }

    /// Runs `body` with a new budget for its expansions.
    static func run<T>(_ body: () async throws -> T) async rethrows -> T {
        try await RecurrenceExpansion.$requestBudget.withValue(ExpansionBudget()) { try await body() }
    }
}
