/// What changed in a domain since a state the client holds, as JMAP's `/changes` reports it.
public struct ChangeSet: Codable, Sendable, Equatable {
    public var created: [String]
    public var updated: [String]
    public var destroyed: [String]
    /// The state after these changes: pass it as `sinceState` next time.
    public var newState: String
    /// True when more changes follow: call again with `newState`.
    public var hasMoreChanges: Bool

    public init(created: [String], updated: [String], destroyed: [String], newState: String, hasMoreChanges: Bool) {
        self.created = created
        self.updated = updated
        self.destroyed = destroyed
        self.newState = newState
        self.hasMoreChanges = hasMoreChanges
    }
}

/// One recorded change of one item.
public struct ChangeRecord: Sendable, Equatable {
    public enum Kind: String, Sendable { case created, updated, destroyed }

    /// Position in the domain's change log; the state string is derived from it.
    public var sequence: Int64
    public var itemID: String
    public var kind: Kind

    public init(sequence: Int64, itemID: String, kind: Kind) {
        self.sequence = sequence
        self.itemID = itemID
        self.kind = kind
    }
}

/// Turns a run of change records into a ``ChangeSet``, and state strings into log positions.
public enum ChangeTracking {
    /// Most changes reported in one answer.
    public static let maxChanges = 500

    /// How many change records a log keeps (SQLite and in memory alike); states older than that are
    /// answered `cannotCalculateChanges`.
    public static let retainedRecords = 100_000

    /// Records written between two prunes of a log: the log holds at most
    /// `retainedRecords + pruneInterval`, and each prune drops `pruneInterval` records at once.
    public static let pruneInterval = 10_000

    /// The state string for a log position in `domain`: opaque to clients.
    public static func state(domain: String, sequence: Int64) -> String { "\(domain)-\(String(sequence, radix: 36))" }

    /// The log position a state names, or the error telling the client to reload.
    public static func sequence(of state: String, domain: String, oldest: Int64, latest: Int64) throws(ServiceError) -> Int64 {
        let prefix = "\(domain)-"
        let digits = state.dropFirst(prefix.count)
        // Only what ``state(domain:sequence:)`` writes: base-36 digits, no sign (`mail--5` is no state).
        guard state.hasPrefix(prefix), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }),
              let sequence = Int64(digits, radix: 36), sequence <= latest else {
            throw ServiceError.cannotCalculateChanges(state: state, reason: "is not a state of \(domain)")
        }
        guard sequence >= oldest else {
            throw ServiceError.cannotCalculateChanges(state: state, reason: "is older than the change log kept")
        }
        return sequence
    }

    /// Folds records (in log order, after the client's state) into a change set, at most `limit` items.
    public static func fold(_ records: [ChangeRecord], domain: String, since: Int64, limit: Int) -> ChangeSet {
        // Ids compared by their bytes, as the stores compare them (``ExactID``).
        var order: [ExactID] = []
        var net: [ExactID: (first: ChangeRecord.Kind, last: ChangeRecord.Kind)] = [:]
        var lastSequence = since
        var hasMore = false
        for record in records {
            let id = ExactID(record.itemID)
            if let seen = net[id] {
                net[id] = (seen.first, record.kind)
            } else {
                if order.count == limit { hasMore = true; break }
                order.append(id)
                net[id] = (record.kind, record.kind)
            }
            lastSequence = record.sequence
        }
        var set = ChangeSet(created: [], updated: [], destroyed: [], newState: state(domain: domain, sequence: lastSequence), hasMoreChanges: hasMore)
        for id in order {
            guard let (first, last) = net[id] else { continue }
            switch (first, last) {
            case (.created, .destroyed): continue
            case (.created, _): set.created.append(id.id)
            case (_, .destroyed): set.destroyed.append(id.id)
            default: set.updated.append(id.id)
            }
        }
        return set
    }
}
