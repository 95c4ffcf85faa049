import Synchronization
import SwitchboardCore

/// The feed held in memory: the demo items are computed on demand from their id (a million items
/// cost no memory), appended items are kept, and changes go to an in-memory log. Deterministic.
public final class InMemoryFeedService: FeedService {
    private struct State {
        var appended: [Profile] = []
        var log: [ChangeRecord] = []
        var sequence: Int64 = 0
    }

    private let demoCount: Int64
    private let state = Mutex(State())

    public init(demoCount: Int = DemoFeed.defaultCount) {
        self.demoCount = Int64(demoCount)
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
        ChangeTracking.state(domain: feedDomain, sequence: state.withLock { $0.sequence })
    }

    public func changes(since sinceState: String, limit: Int) async throws -> ChangeSet {
        let (log, latest) = state.withLock { ($0.log, $0.sequence) }
        return try ChangeTracking.changes(in: log, domain: feedDomain, since: sinceState, latest: latest, limit: limit)
    }

    public func append(_ profiles: [Profile]) async throws -> Committed<[Profile]> {
        state.withLock { state in
            let stored = profiles.map { profile in
                var stored = profile
                stored.id = demoCount + Int64(state.appended.count) + 1
                state.appended.append(stored)
                state.sequence += 1
                state.log.append(ChangeRecord(sequence: state.sequence, itemID: String(stored.id), kind: .created))
                return stored
            }
            return Committed(stored, state: ChangeTracking.state(domain: feedDomain, sequence: state.sequence))
        }
    }

    private func profile(_ id: Int64, appended: [Profile]) -> Profile {
        id <= demoCount ? DemoFeed.profile(id) : appended[Int(id - demoCount - 1)]
    }
}
