import Jansson
import JSONRPC
import Logging

/// What the host's built-in methods need from the process that runs them.
public struct HostEnvironment: Sendable {
    /// Called with `initialize`'s `processId`, once per connection: the runner exits when that process
    /// dies. Throws when the watch cannot be started.
    public var watchClientProcess: @Sendable (_ pid: Int32) throws -> Void
    /// The store `host.status` reports; `nil` when the host serves no domains.
    public var store: HostStatus.Store?
    /// How plugins' process counts are bounded, for `host.status` (found on first use); `nil` without plugins.
    public var processLimits: (@Sendable () -> HostStatus.Processes)?

    public init(watchClientProcess: @escaping @Sendable (Int32) throws -> Void = { _ in }, store: HostStatus.Store? = nil) {
        self.watchClientProcess = watchClientProcess
        self.store = store
    }
}

extension MethodRegistry {
    /// The host's own methods: `host.*`, `rpc.discover` and the LSP-style lifecycle. The schemas are
    /// the embedded ones unless `catalog` is given; they are parsed on the first `rpc.discover`, not at
    /// start-up, where parsing them was over half of the time to the first answer.
    public static func hostMethods(environment: HostEnvironment = HostEnvironment(), catalog: SchemaCatalog? = nil) -> MethodRegistry {
        var registry = MethodRegistry()
        registry.registerImmediate(HostPing.self) { _, _ in "pong" }
        registry.registerImmediate(HostEcho.self) { params, _ in params }
        // Listings may wait for plugins to start, while the connection answers others.
        registry.registerListing(HostMethods.self) { _, _, entries in HostMethods.list(entries) }
        registry.registerImmediate(HostStatus.self) { _, context in
            HostStatus.status(of: context.connection, store: environment.store, processes: environment.processLimits?())
        }
        registry.register(HostSleep.self) { params, context in try await HostSleep.run(params, context: context) }
        registry.registerListing(RPCDiscover.self) { _, context, entries in
            RPCDiscover.document(for: context.connection.dispatcher, entries: entries, catalog: catalog ?? .embedded)
        }
        registry.registerImmediate(Initialize.self) { params, context in
            try MCPVersion.checkHandshake(params)
            if let pid = params.processId {
                if pid > 0, pid <= Int(Int32.max) {
                    try ClientProcessWatch.of(context.connection).watch(Int32(pid), start: environment.watchClientProcess)
                } else {
                    context.connection.logger.warning("initialize: processId \(pid) is not a process id; not watched, relying on end of input")
                }
            }
            return Initialize.result(params, connection: context.connection)
        }
        registry.registerNotification(Initialized.self) { _, _ in }
        registry.registerNotification(MCPInitialized.self) { _, _ in }
        registry.registerImmediate(Shutdown.self) { _, context in
            context.connection.beginShutdown()
            return NullResult()
        }
        registry.registerNotification(Exit.self) { _, context in context.connection.requestExit() }
        return registry
    }
}
