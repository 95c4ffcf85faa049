import Synchronization

/// When each plugin tool appeared, as a sequence number that only grows: a `tools/list` cursor keeps the
/// number it was made at, so the next page can add a tool that sorts before the cursor but arrived since
/// (a plugin that started late, or changed its tools) instead of skipping it.
final class ToolArrivals: Sendable {
    private struct State {
        var latest: UInt64 = 0
        /// Method name (`ns.tool`) → the number it arrived at.
        var arrival: [String: UInt64] = [:]
        /// Namespace → the method names its plugin offers now.
        var offered: [String: Set<String>] = [:]
    }

    private let state = Mutex(State())

    /// The plugin of `namespace` now offers exactly `tools` (none when it stopped): a name not offered a
    /// moment ago arrives now.
    func offer(namespace: String, tools: some Sequence<String>) {
        let names = Set(tools.map { namespace + "." + $0 })
        state.withLock { state in
            let before = state.offered[namespace] ?? []
            for gone in before.subtracting(names) { state.arrival[gone] = nil }
            let new = names.subtracting(before)
            if !new.isEmpty {
                state.latest += 1
                for name in new { state.arrival[name] = state.latest }
            }
            state.offered[namespace] = names
        }
    }

    /// The number `name` arrived at; 0 for one offered from the start (or no plugin's).
    func arrival(of name: String) -> UInt64 { state.withLock { $0.arrival[name] ?? 0 } }

    /// The latest arrival's number.
    var latest: UInt64 { state.withLock { $0.latest } }
}
