import CJansson
import Jansson
import Logging

/// What a handler knows of the request it answers, and how it talks back while it runs.
public struct RequestContext: Sendable {
    /// The request's id; `nil` when the method was called as a notification.
    public let id: RequestID?
    public let method: String
    /// `params._meta.progressToken`, when the client asked for progress.
    public let progressToken: JSONValue?
    /// The connection the request came on: for its answer, notifications and the connection's limits.
    public let connection: Connection
    /// Who the request acts for: the state methods keep between requests, such as the account
    /// `mail.login` signed in. The connection's own, except for a plugin's callback into the host,
    /// which acts for the client the plugins serve (``MethodEntry/acting(for:)``).
    public let session: ConnectionSession
    /// A real id as the request wrote it, echoed in the answer (`id` alone would write `1e2` as `100.0`).
    let exactID: ExactID?
    /// What runs once the answer is queued; only task-run requests with an id have one.
    let afterAnswerActions: AfterAnswer?
    /// The admission slot a task-run request holds until its task ends.
    let slot: AdmissionSlot?

    init(id: RequestID?, method: String, progressToken: JSONValue?, connection: Connection, idView: JSONView? = nil,
         runsAsTask: Bool = false) {
        self.id = id
        self.method = method
        self.progressToken = progressToken
        self.connection = connection
        session = connection.session
        afterAnswerActions = runsAsTask && id != nil ? AfterAnswer(promised: connection.promisedWork) : nil
        slot = runsAsTask ? AdmissionSlot(gate: connection.gate) : nil
        if case .number = id, let idView { exactID = ExactID(idView) } else { exactID = nil }
    }

    public var logger: Logger { connection.logger }

    /// Sends `$/progress {"token": …, "value": value}` when the client gave a progress token; else nothing.
    public func reportProgress(_ value: JSONValue) {
        guard let progressToken, !Task.isCancelled else { return }
        connection.notify(method: "$/progress", params: ["token": progressToken, "value": value])
    }

    /// Marks the request as a long-lived stream (MCP `subscriptions/listen`): it gives its admission slot
    /// to other work and no longer counts against `maxInFlight`, while it stays in flight (cancellable)
    /// and a drain at exit still waits for it. `-32600` when the connection has
    /// ``AdmissionGate/maxStreams`` streams open already. Does nothing for a request that runs no task.
    public func becomeStream() throws(ResponseError) {
        guard let slot, !slot.becomeStream() else { return }
        throw ResponseError(code: .invalidRequest,
                            message: "This connection has \(AdmissionGate.maxStreams) streams open, the most allowed: cancel one first",
                            data: ["limit": .integer(Int64(AdmissionGate.maxStreams))])
    }

    /// Throws `CancellationError` once the client has cancelled this request.
    public func checkCancellation() throws {
        try Task.checkCancellation()
    }
}

/// A request's id as a jansson value of its own (a reference held), for answering after the request's
/// document is gone. The value is never changed, and jansson counts references atomically.
final class ExactID: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<json_t>

    init(_ view: JSONView) { pointer = json_incref(view.pointer)! }
    deinit { json_decref(pointer) }

    var view: JSONView { JSONView(pointer) }
}
