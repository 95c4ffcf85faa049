import Synchronization
import SwitchboardCore

/// The feed held in memory: the demo items are computed on demand from their id (a million items
/// cost no memory), appended items are kept, and changes go to an in-memory log. Deterministic.
public final class InMemoryFeedService: FeedService {
    private struct State {
        var appended: [Profile] = []
        var log: InMemoryChangeLog
    }

    private let demoCount: Int64
    private let state: Mutex<State>
    private let signal: ChangeSignal

    /// - Parameters:
    ///   - retainedChanges: change records kept (see ``InMemoryChangeLog``).
    ///   - signal: posted after each write.
    public init(demoCount: Int = DemoFeed.defaultCount, retainedChanges: Int = ChangeTracking.retainedRecords,
                signal: ChangeSignal = ChangeSignal()) {
        self.demoCount = Int64(demoCount)
        self.signal = signal
        state = Mutex(State(log: InMemoryChangeLog(retained: retainedChanges,
                                                   interval: min(ChangeTracking.pruneInterval, retainedChanges))))
    }

    public func items(after afterID: Int64, limit: Int) async throws -> [Profile] {
        let appended = state.withLock { $0.appended }
        let total = demoCount + Int64(appended.count)
        let first = max(afterID + 1, 1)
        guard first <= total else { return [] }
        let last = min(total, first + Int64(limit) - 1)
        return (first...last).map { profile($0, appended: appended) }
    }

    public func slice(after afterID: Int64, limit: Int) async throws -> FeedSlice {
        FeedSlice(items: try await items(after: afterID, limit: limit), total: try await count(), state: try await state())
    }

    public func item(id: Int64) async throws -> Profile? {
        let appended = state.withLock { $0.appended }
        guard id >= 1, id <= demoCount + Int64(appended.count) else { return nil }
        return profile(id, appended: appended)
    }

    public func count() async throws -> Int64 {
        demoCount + Int64(state.withLock { $0.appended.count })
    }

    public func state() async throws -> String {
        state.withLock { $0.log.state(domain: feedDomain) }
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        try state.withLock { state throws(ServiceError) in try state.log.changes(domain: feedDomain, since: sinceState, limit: limit) }
    }

    public func append(_ profiles: [Profile]) async throws -> Committed<[Profile]> {
        defer { signal.post() }
        return state.withLock { state in
            let stored = profiles.map { profile in
                var stored = profile
                stored.id = demoCount + Int64(state.appended.count) + 1
                state.appended.append(stored)
                state.log.record(itemID: String(stored.id), kind: .created)
                return stored
            }
            return Committed(stored, state: state.log.state(domain: feedDomain))
        }
    }

    private func profile(_ id: Int64, appended: [Profile]) -> Profile {
        id <= demoCount ? DemoFeed.profile(id) : appended[Int(id - demoCount - 1)]
    }
}
