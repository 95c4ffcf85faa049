import JSONRPC
@testable import PluginHost
import Synchronization

/// What a test waits for, in the order it arrived: a waiter names what it wants as a function of
/// everything so far and resumes as soon as that is there. A wait that is never satisfied fails the
/// test after ``Inbox/hangGuardMilliseconds`` (only a hang guard: no test relies on it passing).
final class Inbox<Element: Sendable>: Sendable {
    /// Five minutes: a loaded 2-core machine may hold a test up for long, never that long.
    static var hangGuardMilliseconds: Int { 300_000 }

    private struct Waiter {
        let key: Int
        let find: @Sendable ([Element]) -> (any Sendable)?
        let resume: @Sendable (Result<any Sendable, any Error>) -> Void
    }

    private let state = Mutex<(items: [Element], waiters: [Waiter], next: Int)>(([], [], 0))

    var items: [Element] { state.withLock { $0.items } }

    func append(_ item: Element) {
        let ready = state.withLock { state -> [(Waiter, any Sendable)] in
            state.items.append(item)
            var ready: [(Waiter, any Sendable)] = []
            state.waiters.removeAll { waiter in
                guard let found = waiter.find(state.items) else { return false }
                ready.append((waiter, found))
                return true
            }
            return ready
        }
        for (waiter, found) in ready { waiter.resume(.success(found)) }
    }

    /// Suspends until `find` returns something for the items so far.
    func wait<Found: Sendable>(for what: String, _ find: @escaping @Sendable ([Element]) -> Found?) async throws -> Found {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<any Sendable, any Error>, Never>) in
            let once = ResumeOnce(continuation)
            let key: Int? = state.withLock { state in
                if let found = find(state.items) {
                    once.resume(.success(found))
                    return nil
                }
                state.next += 1
                state.waiters.append(Waiter(key: state.next, find: { find($0) }, resume: { once.resume($0) }))
                return state.next
            }
            guard let key else { return }
            let guardKey = DeadlineWatch.shared.schedule(in: Self.hangGuardMilliseconds) { [weak self] in
                let seen = self?.state.withLock { state -> [Element] in
                    state.waiters.removeAll { $0.key == key }
                    return state.items
                } ?? []
                once.resume(.failure(InboxTimeout(what: what, seen: seen.map { "\($0)" })))
            }
            once.whenDone { DeadlineWatch.shared.cancel(guardKey) }
        }
        guard let found = try outcome.get() as? Found else { throw InboxTimeout(what: what, seen: ["(a value of another type)"]) }
        return found
    }

    /// The first item that satisfies `predicate`, once there is one.
    func first(_ what: String, where predicate: @escaping @Sendable (Element) -> Bool) async throws -> Element {
        try await wait(for: what) { $0.first(where: predicate) }
    }
}

/// A wait the hang guard ended.
struct InboxTimeout: Error, CustomStringConvertible {
    let what: String
    let seen: [String]
    var description: String { "never came: \(what); seen:\n  " + seen.suffix(30).joined(separator: "\n  ") }
}
