import Jansson

/// Methods a dispatcher serves beyond its frozen table, found by name when they are called: the tools
/// of plugins, which come and go while the host runs.
///
/// The dispatcher asks it only for names its own table lacks, so the core methods' path is unchanged.
/// `entries` and `namespaces` feed `host.methods`, `rpc.discover` and `initialize`.
public protocol MethodRouter: Sendable {
    /// The method called `name`, or nil (`-32601`).
    func entry(named name: String) -> MethodEntry?
    /// Every method it serves now; never waits (see ``settle()``).
    var entries: [MethodEntry] { get }
    /// The namespaces it owns, known without starting anything.
    var namespaces: [String] { get }
    /// The OpenRPC method object for `name` (its params and result schemas), when it has one.
    func methodDescription(named name: String) -> JSONValue?
    /// True when ``entries`` shows what a listing should; else ``settle()`` first.
    var isSettled: Bool { get }
    /// Suspends (a bounded time) until ``entries`` shows what a listing should: plugins started.
    func settle() async
    /// When method `name` appeared, as a number that only grows (0: there from the start). Lets a
    /// listing's cursor bring a method that arrived later and sorts before it.
    func arrival(of name: String) -> UInt64
    /// The number of the latest arrival (0: none since the start).
    var latestArrival: UInt64 { get }
    /// What an MCP client calling method `name` as a tool gets back (``ToolOutput``).
    func toolOutput(named name: String) -> ToolOutput
    /// The members of another MCP server's own tool entry that `tools/list` passes on as they came
    /// (`title`, `annotations`, `icons`); empty for a method of this host.
    func toolPresentation(named name: String) -> JSONObject
}

/// What `tools/call` answers for a method, and so the `outputSchema` `tools/list` may promise.
public enum ToolOutput: Sendable {
    /// The method's result, as `structuredContent` when it is an object: its result schema.
    case methodResult
    /// A `CallToolResult` passed through as another MCP server made it (a plugin's tool): only the
    /// `outputSchema` that server declared, if any (a client holds a tool with one to sending
    /// `structuredContent`).
    case passedThrough(outputSchema: JSONValue?)
}

extension MethodRouter {
    public var isSettled: Bool { true }
    public func settle() async {}
    public func arrival(of name: String) -> UInt64 { 0 }
    public var latestArrival: UInt64 { 0 }
    public func toolOutput(named name: String) -> ToolOutput { .methodResult }
    public func toolPresentation(named name: String) -> JSONObject { [:] }
}
