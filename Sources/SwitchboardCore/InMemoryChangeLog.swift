/// The change log of an in-memory service: records in order, each with its scope (the mail
/// account; empty for the feed), pruned as it grows exactly as the SQLite log is (see
/// ``ChangeTracking/retainedRecords``), so memory stays flat however long a session writes.
public struct InMemoryChangeLog: Sendable {
    struct Entry: Sendable {
        var scope: String
        var record: ChangeRecord
    }

    private var entries: [Entry] = []
    /// The newest position (0 when nothing was ever recorded).
    public private(set) var latest: Int64 = 0
    /// The oldest position changes can still be calculated from.
    public private(set) var oldest: Int64 = 0
    private let retained: Int
    private let interval: Int

    /// - Parameters:
    ///   - retained: records kept after a prune.
    ///   - interval: records between prunes, so pruning costs O(1) per record, amortised.
    public init(retained: Int = ChangeTracking.retainedRecords, interval: Int = ChangeTracking.pruneInterval) {
        self.retained = max(retained, 1)
        self.interval = max(interval, 1)
    }

    /// How many records are held now: at most `retained + interval`.
    public var count: Int { entries.count }

    /// The state string of the log's end.
    public func state(domain: String) -> String { ChangeTracking.state(domain: domain, sequence: latest) }

    public mutating func record(scope: String = "", itemID: String, kind: ChangeRecord.Kind) {
        latest += 1
        entries.append(Entry(scope: scope, record: ChangeRecord(sequence: latest, itemID: itemID, kind: kind)))
        if latest % Int64(interval) == 0 { prune() }
    }

    /// Drops all but the newest `retained` records; states before them become too old.
    public mutating func prune() {
        let excess = entries.count - retained
        guard excess > 0 else { return }
        oldest = entries[excess - 1].record.sequence
        entries.removeFirst(excess)
    }

    /// The changes of `scope` since `sinceState`, at most `limit` items; states older than the log
    /// kept, or not of `domain`, throw ``ServiceError/cannotCalculateChanges(state:reason:)``.
    public func changes(domain: String, scope: String = "", since sinceState: String, limit: Int) throws(ServiceError) -> ChangeSet {
        let since = try ChangeTracking.sequence(of: sinceState, domain: domain, oldest: oldest, latest: latest)
        // Entries are in sequence order: find the first after `since` by bisection.
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].record.sequence <= since { low = middle + 1 } else { high = middle }
        }
        let records = entries[low...].lazy.filter { $0.scope == scope }.map(\.record)
        var set = ChangeTracking.fold(Array(records), domain: domain, since: since, limit: limit)
        if !set.hasMoreChanges { set.newState = state(domain: domain) }
        return set
    }
}
