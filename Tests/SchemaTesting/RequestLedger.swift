import Jansson
import Synchronization

/// Which method each request id was sent with, so a harness can check every answer against the schema
/// of the method it answers. Fed with each outgoing message (a request, a notification or a batch),
/// it hands out the method for each incoming response, in the order requests with that id were sent.
public final class RequestLedger: Sendable {
    /// Methods sent under each id (its JSON text), oldest first, not yet answered.
    private let pending = Mutex<[String: [String]]>([:])

    public init() {}

    /// Records the requests in an outgoing message; anything that is not a request is ignored.
    public func recordOutgoing(_ message: JSONValue) {
        if let batch = message.arrayValue {
            batch.forEach(recordOutgoing)
            return
        }
        guard let object = message.objectValue, let method = object["method"]?.stringValue, let id = object["id"] else { return }
        pending.withLock { $0[id.jsonText(), default: []].append(method) }
    }

    /// What a response answers: `.method(name)` when its id was sent with one method, `.unknown` when the
    /// id was never sent (a request too broken to carry its method, a null id) or was reused with
    /// different methods still waiting.
    public enum Answered: Equatable, Sendable {
        case method(String)
        case unknown
    }

    /// Takes the method a response answers off the ledger.
    public func answered(by response: JSONValue) -> Answered {
        guard let id = response["id"], id != .null else { return .unknown }
        return pending.withLock { pending in
            let key = id.jsonText()
            guard var methods = pending[key], !methods.isEmpty else { return .unknown }
            let first = methods.removeFirst()
            let unambiguous = methods.allSatisfy { $0 == first }
            pending[key] = methods.isEmpty ? nil : methods
            return unambiguous ? .method(first) : .unknown
        }
    }
}

extension RequestLedger {
    /// Checks every response in an incoming message (one, or a batch's array) against `schemas`, taking
    /// each off the ledger, and every notification the host sent against its `x-notifications` entry;
    /// requests from the host pass.
    public func problems(inIncoming message: JSONValue, schemas: AnswerSchemas) -> [String] {
        if let batch = message.arrayValue {
            return batch.flatMap { problems(inIncoming: $0, schemas: schemas) }
        }
        guard message.objectValue != nil else { return [] }
        if message["method"] != nil {
            // A request from the host (it has an id) is not checked here; a notification is.
            return message["id"] == nil ? schemas.problems(inNotification: message) : []
        }
        let method: String? = switch answered(by: message) {
        case .method(let name): name
        case .unknown: nil
        }
        return schemas.problems(in: message, answering: method)
    }
}
