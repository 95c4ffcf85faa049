import Synchronization
import SwitchboardCore

/// The resource updates plugins reported (`notifications/resources/updated`), in order, like a
/// change log: a `resources.subscribe` subscription reads the ones after its position, so a burst
/// of updates wakes it once and none is missed. Keeps the newest ``retained``; a position older than
/// those is `cannotCalculateChanges` (the subscription is dropped as too far behind).
public final class ResourceUpdates: Sendable {
    public static let retained = 10_000

    /// Posted after every update recorded: the subscription hub listens to it.
    public let signal = ChangeSignal()
    private let log = Mutex(Log())

    private struct Log: Sendable {
        var latest: Int64 = 0
        var entries: [(sequence: Int64, uri: String)] = []
    }

    public init() {}

    /// Records that `uri` changed and wakes the subscriptions.
    public func record(_ uri: String) {
        log.withLock { log in
            log.latest += 1
            log.entries.append((log.latest, uri))
            if log.entries.count > Self.retained + Self.retained / 10 { log.entries.removeFirst(log.entries.count - Self.retained) }
        }
        signal.post()
    }

    /// The position now.
    public var position: String { ChangeTracking.state(domain: "resources", sequence: log.withLock { $0.latest }) }

    /// Whether `uri` was updated after `position`, and the position now.
    public func updated(_ uri: String, after position: String) throws(ServiceError) -> (updated: Bool, position: String) {
        try log.withLock { log throws(ServiceError) in
            let oldest = (log.entries.first?.sequence ?? log.latest + 1) - 1
            let since = try ChangeTracking.sequence(of: position, domain: "resources", oldest: oldest, latest: log.latest)
            let updated = log.entries.contains { $0.sequence > since && $0.uri == uri }
            return (updated, ChangeTracking.state(domain: "resources", sequence: log.latest))
        }
    }
}
