import Synchronization
import SwitchboardCore

/// The `chat.send`s of one service answered `pending` and not stored yet, by sender and
/// `clientMessageId` (compared by bytes, as the stores compare it): a retry made while the first is
/// still pending is answered that message with `duplicate: true`, as one made after it was stored is,
/// instead of being queued too and confirmed "sent" under the first's id with its own text dropped.
final class ChatSendsInFlight: Sendable {
    fileprivate struct Key: Hashable {
        var sender: String
        var clientMessageId: ExactID
    }

    private let sends = Mutex<[Key: (message: ChatMessage, claim: ObjectIdentifier)]>([:])

    /// One send's hold on its id: given up by ``Claim/release()``, or when the send's work is dropped
    /// (its answer never went out), so an id is never held by a send that will not be stored.
    final class Claim: Sendable {
        private let table: ChatSendsInFlight
        private let key: Key

        fileprivate init(table: ChatSendsInFlight, key: Key) {
            self.table = table
            self.key = key
        }

        func release() { table.release(key, claim: ObjectIdentifier(self)) }

        deinit { release() }
    }

    /// Holds `message`'s id for its sender; or, when another send holds it, that send's pending message.
    func claim(_ message: ChatMessage) -> Result<Claim, InFlight> {
        let key = Key(sender: message.senderId, clientMessageId: ExactID(message.clientMessageId ?? ""))
        return sends.withLock { sends in
            if let held = sends[key] { return .failure(InFlight(message: held.message)) }
            let claim = Claim(table: self, key: key)
            sends[key] = (message, ObjectIdentifier(claim))
            return .success(claim)
        }
    }

    /// The pending message of the send that holds an id.
    struct InFlight: Error {
        var message: ChatMessage
    }

    private func release(_ key: Key, claim: ObjectIdentifier) {
        sends.withLock { sends in
            if sends[key]?.claim == claim { sends[key] = nil }
        }
    }
}
