import Jansson

/// A registered method with its handler, its params already typed away: what the dispatcher runs.
public struct MethodEntry: Sendable {
    public enum Kind: String, Sendable {
        /// Answers a request.
        case request
        /// Takes a notification and never answers.
        case notification
    }

    /// How the handler runs.
    enum Body: Sendable {
        /// Runs at once on the input thread, with no task hop: for cheap methods that never block.
        case immediate(@Sendable (_ params: JSONView?, _ context: RequestContext) throws -> JanssonValue)
        /// Decodes params on the input thread, then runs `work` as a task of its own.
        case task(@Sendable (_ params: JSONView?) throws -> PendingWork)
    }

    /// The part of a task-run method that runs in its task: it returns the encoded result.
    typealias PendingWork = @Sendable (_ context: RequestContext) async throws -> JanssonValue

    public let name: String
    public let summary: String
    public let kind: Kind
    let body: Body

    /// The namespace: what precedes the last `.` of the name (`inbox` for `inbox.list`), or the name.
    public var namespace: String {
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    /// True when the handler runs as a task of its own.
    var runsAsTask: Bool { !isImmediate }

    /// True when the method runs on the input thread without a task.
    public var isImmediate: Bool {
        if case .immediate = body { true } else { false }
    }
}

extension MethodEntry {
    /// A method whose params and result are free-form JSON, for plugins and proxies.
    public static func dynamic(
        name: String, summary: String,
        handler: @escaping @Sendable (_ params: JSONValue?, _ context: RequestContext) async throws -> JSONValue
    ) -> MethodEntry {
        MethodEntry(name: name, summary: summary, kind: .request, body: .task { params in
            let value = params.map(JSONValue.init)
            return { context in try await handler(value, context).makeJansson() }
        })
    }
}
