import CalendarDomain
import CatalogDomain
import ChatDomain
import FeedDomain
import Jansson
import JSONRPC
import Logging
import MailDomain
import SchemaTesting
import SwitchboardHost
import Testing

/// The schemas every answer in the domain tests is checked against, asked of `rpc.discover` once per
/// test process, on an in-process connection serving the host's, the mail, the feed the chat, the catalog and the calendar methods.
enum DomainSchemas {
    static let shared: Result<AnswerSchemas, any Error> = Result {
        var registry = MethodRegistry.hostMethods()
        registry.add(.mailMethods(InMemoryMailService(clock: mailTestClock, demoMessages: 0), defaultAccount: DemoAccount.email, clock: mailTestClock))
        registry.add(.feedMethods(InMemoryFeedService(demoCount: 1)))
        registry.add(.chatMethods(InMemoryChatService()))
        registry.add(.catalogMethods(InMemoryCatalogService(demo: false)))
        registry.add(.calendarMethods(CalendarContext(calendar: InMemoryCalendarService())))
        let outcome = InProcessCall.callBlocking("rpc.discover", params: nil, dispatcher: try registry.freeze(),
                                                 logger: Logger(label: "schemas") { _ in SwiftLogNoOpLogHandler() })
        return try AnswerSchemas(openRPC: outcome.result ?? .null)
    }

    /// Records a test issue for every way `response`, the answer to `method`, breaks its schema or the error shape.
    static func expectValid(_ response: JSONValue, answering method: String, sourceLocation: SourceLocation = #_sourceLocation) {
        switch shared {
        case .success(let schemas):
            for problem in schemas.problems(in: response, answering: method) {
                let text = response.jsonText()
                Issue.record("answer does not match its schema: \(problem)\n  in \(text.count > 600 ? String(text.prefix(597)) + "…" : text)",
                             sourceLocation: sourceLocation)
            }
        case .failure(let error):
            Issue.record("answers cannot be checked: rpc.discover failed: \(error)", sourceLocation: sourceLocation)
        }
    }
}
