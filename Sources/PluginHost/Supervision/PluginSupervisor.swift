import Jansson
import JSONRPC
import Logging
import Synchronization
import SwitchboardHost

/// Every configured plugin: starts them on first use, routes `namespace.tool` calls to them, pushes
/// what changes to the clients, and stops them all when the host exits.
///
/// ```swift
/// let plugins = PluginSupervisor(configuration: try PluginConfiguration.load(...), settings: settings)
/// registry.add(.pluginMethods(plugins))
/// registry.route(to: plugins.router)
/// plugins.attach(client: connection)   // pushes go there; plugins call back its methods, per their `calls`
/// ```
public final class PluginSupervisor: Sendable {
    public let plugins: [Plugin]
    let settings: PluginSettings
    private let byNamespace: [String: Plugin]
    private let byName: [String: Plugin]
    let host = HostTable()
    /// The resource updates the plugins reported, for `resources.subscribe`.
    public let resourceUpdates = ResourceUpdates()
    private let clients = Mutex<[WeakConnection]>([])
    private let observers = Mutex<(next: Int, byKey: [Int: @Sendable () -> Void])>((0, [:]))
    /// Set by ``shutdown()``: plugins stopping then push nothing.
    private let exiting = Atomic(false)
    /// When each tool appeared, for `tools/list` cursors.
    let toolArrivals = ToolArrivals()

    public init(configuration: PluginConfiguration, settings: PluginSettings) {
        self.settings = settings
        let host = self.host
        let pushes = PushRelay()
        plugins = configuration.entries.map { entry in
            switch entry {
            case .valid(let manifest):
                Plugin(manifest: manifest, settings: settings, host: host) { plugin, event in
                    pushes.deliver(plugin, event)
                }
            case .invalid(let name, let namespace, let version, let reason):
                Plugin(invalid: name, namespace: namespace, version: version, reason: reason, settings: settings)
            case .unusable(let manifest, let reason):
                Plugin(invalid: manifest.name, namespace: manifest.namespace, version: manifest.version, reason: reason, settings: settings,
                       ownsNamespace: true)
            }
        }
        byNamespace = Dictionary(plugins.filter(\.ownsNamespace).map { ($0.namespace, $0) }, uniquingKeysWith: { first, _ in first })
        byName = Dictionary(plugins.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        pushes.supervisor = self
    }

    /// A supervisor of no plugins.
    public static var none: PluginSupervisor {
        PluginSupervisor(configuration: PluginConfiguration(entries: []), settings: PluginSettings(logger: Logger(label: "switchboard")))
    }

    /// The router to give the host's method registry (``MethodRegistry/route(to:)``).
    public var router: PluginRouter { PluginRouter(supervisor: self) }

    /// The client the plugins serve: it receives the pushes (``addClient(_:)``), and callbacks reach its
    /// method table within each plugin's `calls`, acting for its session (the account it signed in),
    /// as its own calls do.
    public func attach(client connection: Connection) {
        host.set(connection.dispatcher, session: connection.session)
        addClient(connection)
    }

    func plugin(namespace: String) -> Plugin? { byNamespace[namespace] }

    /// The plugin a `namespace.name` method, tool or prompt names, and the name within it.
    func plugin(owning name: String) -> (plugin: Plugin, name: String)? {
        // Bytes, not characters: every call of a plugin's tool comes this way.
        guard let dot = name.utf8.firstIndex(of: UInt8(ascii: ".")), let plugin = byNamespace[String(name[..<dot])] else { return nil }
        return (plugin, String(name[name.utf8.index(after: dot)...]))
    }
    func plugin(named name: String) -> Plugin? { byName[name] }

    /// The namespaces plugins own: those that can run, and those whose configuration is unusable
    /// (their calls answer `invalid`).
    var namespaces: [String] { byNamespace.keys.sorted() }

    // MARK: Clients

    /// A client connection that receives `host.methodsChanged`, `resources.listChanged` and `prompts.listChanged` (once, however
    /// often it is added: each listing adds its caller).
    public func addClient(_ connection: Connection) {
        clients.withLock { clients in
            clients = clients.filter { $0.connection != nil && $0.connection !== connection } + [WeakConnection(connection: connection)]
        }
    }

    func push(_ method: String, params: JSONValue) {
        for client in clients.withLock({ $0 }) { client.connection?.notify(method: method, params: params) }
    }

    fileprivate func deliver(_ plugin: Plugin, _ event: PluginEvent) {
        for observer in observers.withLock({ Array($0.byKey.values) }) { observer() }
        switch event {
        case .phase:
            break
        case .started(let session):
            // Its tools are methods from now on, whether or not anyone listed before: a plugin that took
            // longer than the listing wait is announced when it arrives.
            toolArrivals.offer(namespace: plugin.namespace, tools: session.tools.keys)
            announceLists(of: session, plugin: plugin)
        case .ended(let session):
            // Its tools and resources are gone from the lists until it runs again (not worth telling at exit).
            toolArrivals.offer(namespace: plugin.namespace, tools: [])
            if !exiting.load(ordering: .acquiring) { announceLists(of: session, plugin: plugin) }
        case .changed(.tools):
            toolArrivals.offer(namespace: plugin.namespace, tools: plugin.runningSession?.tools.keys.map { $0 } ?? [])
            push(HostPush.methodsChanged, params: ["namespace": .string(plugin.namespace)])
        case .changed(.resources):
            push(HostPush.resourcesListChanged, params: ["namespace": .string(plugin.namespace)])
        case .changed(.prompts):
            push(HostPush.promptsListChanged, params: ["namespace": .string(plugin.namespace)])
        case .changed(.resourceUpdated(let uri)):
            // Delivered to the resources.subscribe subscriptions of that URI, and no one else.
            resourceUpdates.record(uri)
        }
    }

    /// Tells the clients that each list `session` had something in (tools, resources, prompts) changed.
    private func announceLists(of session: PluginSession, plugin: Plugin) {
        let params: JSONValue = ["namespace": .string(plugin.namespace)]
        if !session.tools.isEmpty { push(HostPush.methodsChanged, params: params) }
        if session.offersResources { push(HostPush.resourcesListChanged, params: params) }
        if !session.prompts.isEmpty { push(HostPush.promptsListChanged, params: params) }
    }

    // MARK: Starting and stopping

    /// Starts every plugin that can run (`--eager-plugins`), without waiting.
    public func startAll() {
        for plugin in plugins where plugin.manifest != nil {
            Task { _ = try? await plugin.session() }
        }
    }

    /// Starts the plugins not started yet and suspends until each is running or has failed, at most
    /// the listing wait: for listings that must show plugins' methods. Never blocks a thread.
    func settleForListing() async {
        let pending = plugins.filter(\.isPending)
        guard !pending.isEmpty else { return }
        for plugin in pending { Task { _ = try? await plugin.session() } }
        let settled: @Sendable () -> Bool = { [plugins] in !plugins.contains(where: \.isPending) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(continuation)
            let timer = DeadlineWatch.shared.schedule(in: settings.listingWaitMilliseconds) { once.resume(()) }
            let key = observePhases {
                guard settled() else { return }
                DeadlineWatch.shared.cancel(timer)
                once.resume(())
            }
            if settled() { once.resume(()) }
            once.whenDone { [self] in stopObserving(key) }
        }
    }

    /// Calls `observer` after every phase change of any plugin, until ``stopObserving(_:)``.
    private func observePhases(_ observer: @escaping @Sendable () -> Void) -> Int {
        observers.withLock { state in
            state.next += 1
            state.byKey[state.next] = observer
            return state.next
        }
    }

    private func stopObserving(_ key: Int) {
        observers.withLock { _ = $0.byKey.removeValue(forKey: key) }
    }

    /// Stops every plugin: closes its stdin, waits the grace time, SIGTERM, SIGKILL, to its group.
    /// Then lets go of the host's method table, whose methods hold this supervisor (a cycle otherwise).
    public func shutdown() async {
        exiting.store(true, ordering: .releasing)
        await withTaskGroup(of: Void.self) { group in
            for plugin in plugins { group.addTask { await plugin.shutdown() } }
        }
        host.clear()
    }

    /// The same from a plain thread (the main thread at exit), waiting at most the time the stop
    /// sequence takes: when every pool thread is held by requests that ignore their cancellation, the
    /// stopping task may never run, and the plugins then die with the host (`PR_SET_PDEATHSIG`).
    /// Then kills what is left in the runs' pids cgroups and removes them (``PidsCgroups``), and removes the
    /// plugins' kept temporary folders (``PrivateTemporaryFolders``).
    public func shutdownBlocking() {
        let deadline = monotonicNanoseconds() + UInt64(settings.shutdownGraceMilliseconds + 2_000) * 1_000_000
        PlainThreadWait.run(until: deadline) { await self.shutdown() }
        // What the plugins left in their pids cgroups goes with them, and the host's cgroup folder with it.
        settings.sandbox.cgroupRuns.removeAll()
        PidsCgroups.ifFound?.removeFolder()
        settings.sandbox.temporaries.removeAll()
    }
}

/// Hands plugin events to the supervisor, which does not exist yet when the plugins are made.
private final class PushRelay: Sendable {
    private struct Weak: @unchecked Sendable { weak var supervisor: PluginSupervisor? }
    private let target = Mutex(Weak())

    var supervisor: PluginSupervisor? {
        get { target.withLock { $0.supervisor } }
        set { target.withLock { $0.supervisor = newValue } }
    }

    func deliver(_ plugin: Plugin, _ event: PluginEvent) { supervisor?.deliver(plugin, event) }
}

/// A client connection, held weakly.
struct WeakConnection: @unchecked Sendable {
    weak var connection: Connection?
}
