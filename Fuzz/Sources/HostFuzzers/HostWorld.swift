import CalendarDomain
import CatalogDomain
import ChatDomain
import DomainMethods
import FeedDomain
import FuzzSupport
import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import SwitchboardHost

/// The host's methods on fresh in-memory services with a little demo data (none for the catalog:
/// indexing its demo is slow), wired as the executable's HostRegistry wires them (without plugins,
/// resources and the MCP server, which live in the executable): built anew for every input, so that
/// a finding does not depend on earlier inputs.
enum HostWorld {
    /// A fixed "now" (2026-01-15T09:00:00Z), so that runs repeat.
    static let clock = FixedClock(milliseconds: 1_768_467_600_000)

    /// The host's own methods hold no state of a run; building them (their schemas) is the slow part.
    static let hostMethods = MethodRegistry.hostMethods()

    static func dispatcher() -> Dispatcher {
        let signal = ChangeSignal()
        let subscriptions = SubscriptionHub(signal: signal)
        var registry = hostMethods
        registry.add(.mailMethods(InMemoryMailService(clock: clock, demoMessages: 4, signal: signal),
                                  defaultAccount: DemoAccount.email, clock: clock, subscriptions: subscriptions))
        registry.add(.feedMethods(InMemoryFeedService(demoCount: 10, signal: signal)))
        registry.add(.calendarMethods(CalendarContext(calendar: InMemoryCalendarService(signal: signal), clock: clock, defaultZone: "UTC"),
                                      subscriptions: subscriptions))
        registry.add(.chatMethods(InMemoryChatService(clock: clock, signal: signal, peerReplies: false), subscriptions: subscriptions))
        registry.add(.catalogMethods(InMemoryCatalogService(demo: false, signal: signal), subscriptions: subscriptions))
        do { return try registry.freeze() } catch { fatalError("the host's methods: \(error)") }
    }

    /// One NDJSON request line `{"jsonrpc":"2.0","id":<id>,"method":…,"params":<params>}`; `params`
    /// is put in as it is, valid JSON or not.
    static func requestLine(id: Int, method: String, params: [UInt8]) -> [UInt8] {
        var line = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"#.utf8)
        line += Array(JSONValue.string(method).jsonText().utf8)
        line += Array(#","params":"#.utf8)
        line += params
        line += Array("}\n".utf8)
        return line
    }

    /// Sends one request with `params` (raw JSON text) to a fresh host and checks the answer.
    @discardableResult
    static func call(_ method: String, params: [UInt8]) -> JSONValue? {
        exchange([(method, params)])[0]
    }

    /// Sends requests one after the other (each once the one before was answered) to one fresh host,
    /// with ids 1, 2, …; checks that every valid request is answered exactly once, and returns the
    /// answers (nil where none came).
    static func exchange(_ calls: [(method: String, params: [UInt8])]) -> [JSONValue?] {
        let session = HostSession(dispatcher(), framing: .ndjson)
        var output: OutputCheck?
        for (index, call) in calls.enumerated() {
            let line = requestLine(id: index + 1, method: call.method, params: call.params)
            output = session.run([line[...]], endInput: index == calls.count - 1)
            let answers = output?.responses.filter { $0["id"]?.int64Value == Int64(index + 1) } ?? []
            // A newline in the params splits the line: that is two broken messages, not a request.
            let request = call.params.contains(0x0A) ? nil : try? JSONValue(parsing: line.dropLast())
            if let params = request?["params"], params.objectValue != nil || params.arrayValue != nil {
                require(answers.count == 1, "\(call.method) was answered \(answers.count) times")
            }
        }
        return (1...calls.count).map { id in output?.responses.first { $0["id"]?.int64Value == Int64(id) } }
    }
}
