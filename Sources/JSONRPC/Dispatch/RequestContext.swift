import Jansson
import Logging

/// What a handler knows of the request it answers, and how it talks back while it runs.
public struct RequestContext: Sendable {
    /// The request's id; `nil` when the method was called as a notification.
    public let id: RequestID?
    public let method: String
    /// `params._meta.progressToken`, when the client asked for progress.
    public let progressToken: JSONValue?
    /// The connection the request came on: for notifications to the client and connection state.
    public let connection: Connection

    public var logger: Logger { connection.logger }

    /// Sends `$/progress {"token": …, "value": value}` when the client gave a progress token; else nothing.
    public func reportProgress(_ value: JSONValue) {
        guard let progressToken, !Task.isCancelled else { return }
        connection.notify(method: "$/progress", params: ["token": progressToken, "value": value])
    }

    /// Throws `CancellationError` once the client has cancelled this request.
    public func checkCancellation() throws {
        try Task.checkCancellation()
    }
}
