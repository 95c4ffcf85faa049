import Jansson
import JSONRPC
import SchemaTesting
import SwitchboardHost
import Testing

/// The schemas every answer a test sees is checked against, asked of `rpc.discover` once per test
/// process: the built binary's (host and domain methods) for ``SpawnedHost``, an in-process
/// connection's (host and test methods) for ``Harness``.
enum DiscoveredSchemas {
    /// From the binary: `switchboard --backend memory`, asked `rpc.discover` over its pipes.
    static let binary: Result<AnswerSchemas, any Error> = Result {
        let host = try SpawnedHost(arguments: ["--backend", "memory"], checksAnswers: false)
        try host.send(BinaryHarness.request(1, "rpc.discover"))
        let reply = try host.response(to: 1).response
        host.closeInput()
        try host.waitForExit()
        return try AnswerSchemas(openRPC: reply["result"] ?? .null)
    }

    /// From an in-process connection with the host's methods and the test methods (whose tests push
    /// notifications of their own, which no schema lists).
    static let inProcess: Result<AnswerSchemas, any Error> = Result {
        var registry = MethodRegistry.hostMethods()
        registry.add(TestMethods.registry(Probe()))
        let outcome = InProcessCall.callBlocking("rpc.discover", params: nil, dispatcher: try registry.freeze(), logger: quietLogger)
        return try AnswerSchemas(openRPC: outcome.result ?? .null, allowingUnlistedNotifications: true)
    }
}

extension Result<AnswerSchemas, any Error> {
    /// Records a test issue for every way `message` (a response, a batch of them, or anything else the
    /// host wrote) breaks the schemas, taking its answers off `ledger`.
    func expectValidAnswers(in message: JSONValue, ledger: RequestLedger, sourceLocation: SourceLocation = #_sourceLocation) {
        switch self {
        case .success(let schemas):
            for problem in ledger.problems(inIncoming: message, schemas: schemas) {
                Issue.record("answer does not match its schema: \(problem)\n  in \(AnswerText.excerpt(message))",
                             sourceLocation: sourceLocation)
            }
        case .failure(let error):
            guard message["method"] == nil else { return }
            Issue.record("answers cannot be checked: rpc.discover failed: \(error)", sourceLocation: sourceLocation)
        }
    }
}

enum AnswerText {
    /// A message's JSON text, cut to a readable length.
    static func excerpt(_ message: JSONValue) -> String {
        let text = message.jsonText()
        return text.count > 600 ? String(text.prefix(597)) + "…" : text
    }
}
