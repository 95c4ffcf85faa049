import Jansson
import JSONRPC
import Synchronization

/// The plugin's resource subscriptions (MCP `resources/subscribe`), counted: the host subscribes once a
/// client does and unsubscribes when the last client subscription of that URI ends.
extension PluginSession {
    /// Subscribes at the plugin for one more client subscription of `uri`.
    func subscribe(to uri: String) async throws {
        // Counted before the request, so an unsubscribe for an ending subscription cannot overtake it.
        state.withLock { $0.subscribers[uri, default: 0] += 1 }
        do {
            _ = try await request("resources/subscribe", params: ["uri": .string(uri)])
        } catch {
            unsubscribe(from: uri)
            throw error
        }
    }

    /// One client subscription of `uri` ended: the last one sends `resources/unsubscribe`, now, in order
    /// after everything sent to the plugin before. Its answer is awaited at most the plugin's
    /// `timeoutMs`, then given up (and `notifications/cancelled` sent), so a plugin that never answers
    /// keeps nothing here.
    func unsubscribe(from uri: String) {
        let last = state.withLock { state -> Bool in
            let remaining = (state.subscribers[uri] ?? 1) - 1
            state.subscribers[uri] = remaining > 0 ? remaining : nil
            return remaining <= 0
        }
        guard last else { return }
        let deadline = callDeadline()
        let value = JanssonValue.string(uri)
        guard connection.startRequest(method: "resources/unsubscribe", members: [("uri", value.view)], deadline: deadline,
                                      onAnswer: { _ in }) != nil else { return }
        armTimeouts(at: deadline)
    }
}
