import Jansson
import JSONRPC
import Synchronization

/// One configured plugin and its life: `stopped` until first used, `starting`, `running`, back to
/// `stopped` when it exits (restarted on the next call, after a back-off), `failed` after
/// `maxCrashes` crashes within the window (until `plugins.restart`), or `invalid` from the start.
public final class Plugin: Sendable {
    public let name: String
    public let namespace: String
    public let version: String
    let manifest: PluginManifest?
    /// Whether calls into its namespace are routed to it (every valid plugin's; see ``init(invalid:namespace:version:reason:settings:ownsNamespace:)``).
    let ownsNamespace: Bool
    private let settings: PluginSettings
    private let host: HostTable
    private let state: Mutex<State>
    /// Called on every change of phase, and with what changed at the plugin.
    private let onEvent: @Sendable (Plugin, PluginEvent) -> Void

    enum Phase {
        case stopped
        case starting(Task<PluginSession, any Error>)
        case running(PluginSession)
        case failed(ResponseError)
        case invalid(String)
    }

    private struct State {
        var phase: Phase
        var generation = 0
        var restarts = 0
        var crashes: [UInt64] = []
        var lastError: String?
        /// `data.reason` of the last crash or failed start (`startFailed` shows as the state until the next try).
        var lastReason: String?
        /// Who the plugin said it was in its last handshake.
        var server: PluginServerInfo?
        /// What the last run that ended had announced: its resources and templates.
        var lastOffer = ResourceOffer()
        /// Whether a run ever finished its handshake, so its listing (tools, resources) is known.
        var listed = false
        /// The sandbox of the last run that started, else as planned; nil for an invalid plugin.
        var sandbox: PluginSandboxField?
    }

    init(manifest: PluginManifest, settings: PluginSettings, host: HostTable, onEvent: @escaping @Sendable (Plugin, PluginEvent) -> Void) {
        name = manifest.name
        namespace = manifest.namespace
        version = manifest.version
        self.manifest = manifest
        ownsNamespace = true
        self.settings = settings
        self.host = host
        self.onEvent = onEvent
        state = Mutex(State(phase: .stopped, sandbox: settings.sandbox.planned(manifest)))
    }

    /// An `invalid` plugin: calls into its namespace answer `-32070` `reason: "invalid"` when it
    /// `ownsNamespace` (it was refused for something else than its namespace), else reach no plugin.
    init(invalid name: String, namespace: String, version: String, reason: String, settings: PluginSettings, ownsNamespace: Bool = false) {
        self.name = name
        self.namespace = namespace
        self.version = version
        self.ownsNamespace = ownsNamespace
        manifest = nil
        self.settings = settings
        host = HostTable()
        onEvent = { _, _ in }
        state = Mutex(State(phase: .invalid(reason), lastError: reason))
    }

    // MARK: Use

    /// The running session, starting the plugin if needed (after the back-off of recent crashes).
    func session() async throws -> PluginSession {
        enum Step { case ready(PluginSession), wait(Task<PluginSession, any Error>), fail(ResponseError) }
        let step: Step = state.withLock { state in
            switch state.phase {
            case .running(let session): return .ready(session)
            case .starting(let task): return .wait(task)
            case .failed(let error): return .fail(error)
            case .invalid(let reason):
                return .fail(PluginError.unavailable(name, reason: "invalid", message: reason))
            case .stopped:
                guard let manifest else { return .fail(PluginError.unavailable(name, reason: "invalid", message: "no manifest")) }
                state.generation += 1
                let task = startTask(manifest, generation: state.generation, delay: backoff(state))
                state.phase = .starting(task)
                return .wait(task)
            }
        }
        switch step {
        case .ready(let session): return session
        case .fail(let error): throw error
        case .wait(let task):
            onEvent(self, .phase)
            return try await StartWait.session(of: task)
        }
    }

    /// The pause still owed after the last crash.
    private func backoff(_ state: State) -> Int {
        let recent = state.crashes.count
        guard let last = state.crashes.last else { return 0 }
        let elapsed = Int((monotonicNanoseconds() - last) / 1_000_000)
        return max(0, settings.backoffMilliseconds(afterCrashes: recent) - elapsed)
    }

    private func startTask(_ manifest: PluginManifest, generation: Int, delay: Int) -> Task<PluginSession, any Error> {
        let settings = self.settings
        let host = self.host
        return Task {
            if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            do {
                let callbacks = try PluginCallbacks(manifest: manifest, host: host, logger: settings.logger)
                let session = try await PluginSession.start(
                    manifest, settings: settings, callbacks: callbacks,
                    onChange: { [weak self] kind in if let self { self.onEvent(self, .changed(kind)) } },
                    onEnd: { [weak self] session, error, expected in
                        self?.ended(session, generation: generation, error: error, expected: expected)
                    }
                )
                enum Outcome { case running, superseded, ended(ResponseError) }
                let outcome = state.withLock { state -> Outcome in
                    guard state.generation == generation else { return .superseded }
                    // It may have ended right after its handshake, before it was running: then that is
                    // its start failing (counted once, below), not a crash of a running plugin.
                    if let error = session.endError { return .ended(error) }
                    state.phase = .running(session)
                    state.sandbox = session.process.sandbox
                    state.listed = true
                    state.server = session.server
                    return .running
                }
                switch outcome {
                case .running: break
                case .superseded:
                    await session.stop()
                    throw PluginError.unavailable(manifest.name, reason: "stopped", message: "the plugin was restarted meanwhile")
                case .ended(let error): throw error
                }
                onEvent(self, .started(session))
                return session
            } catch {
                let failure = ResponseError(error)
                recordCrash(generation: generation, error: failure)
                // Stopped while it started (plugins.restart, exit): the calls waiting for it cancelled
                // nothing, so they fail as calls to a stopped plugin, not -32800.
                if Task.isCancelled {
                    throw PluginError.unavailable(manifest.name, reason: "stopped", message: "the plugin was stopped while it started")
                }
                throw failure
            }
        }
    }

    /// The session of `generation` ended: a crash unless the host stopped it. A session that ends before
    /// it was running (in its handshake) is a failed start, which ``startTask`` counts: not twice.
    private func ended(_ session: PluginSession, generation: Int, error: ResponseError, expected: Bool) {
        let offer = session.offer
        let wasRunning = state.withLock { state in
            state.lastOffer = offer
            if case .running(let running) = state.phase { return running === session }
            return false
        }
        if expected {
            state.withLock { state in
                if state.generation == generation, case .running = state.phase { state.phase = .stopped }
            }
            onEvent(self, .phase)
        } else if wasRunning {
            recordCrash(generation: generation, error: error)
        }
        onEvent(self, .ended(session))
    }

    /// Counts a crash (or a failed start): `stopped` to be restarted, or `failed` past the limit.
    private func recordCrash(generation: Int, error: ResponseError) {
        let window = UInt64(settings.crashWindowSeconds) * 1_000_000_000
        let now = monotonicNanoseconds()
        state.withLock { state in
            guard state.generation == generation else { return }
            state.crashes = state.crashes.filter { now - $0 < window } + [now]
            state.lastError = error.message
            state.lastReason = error.data?["reason"]?.stringValue
            if let reason = state.lastReason, reason.hasPrefix("sandbox") {
                // Trying again would not confine it either: failed until plugins.restart.
                state.phase = .failed(error)
            } else if state.crashes.count >= settings.maxCrashes {
                state.phase = .failed(PluginError.unavailable(
                    name, reason: "failed",
                    message: "failed \(state.crashes.count) times within \(settings.crashWindowSeconds) s; call plugins.restart",
                    details: ["lastError": .string(error.message)]
                ))
            } else {
                state.phase = .stopped
                state.restarts += 1
            }
        }
        onEvent(self, .phase)
    }

    // MARK: Control

    /// Stops the plugin if it runs and forgets its crashes; it starts again on its next use.
    func restart() async {
        let session = stop(resetting: true)
        await session?.stop()
        onEvent(self, .phase)
    }

    /// Stops the plugin for good (the host is exiting).
    func shutdown() async {
        let session = stop(resetting: false)
        await session?.stop()
    }

    private func stop(resetting: Bool) -> PluginSession? {
        state.withLock { state in
            if case .invalid = state.phase { return nil }
            state.generation += 1
            var session: PluginSession?
            switch state.phase {
            case .running(let running): session = running
            case .starting(let task): task.cancel()
            default: break
            }
            state.phase = .stopped
            if resetting {
                state.crashes = []
                state.lastError = nil
                state.lastReason = nil
            }
            return session
        }
    }

    // MARK: Observation

    /// The running session, if any, without starting one.
    var runningSession: PluginSession? {
        state.withLock { if case .running(let session) = $0.phase { session } else { nil } }
    }

    /// Whether `uri` is the plugin's: one of the resources or templates its running session announced,
    /// or, while it is not running, its last run did.
    func offers(_ uri: String) -> Bool {
        runningSession.map { $0.offer.contains(uri) } ?? state.withLock { $0.lastOffer }.contains(uri)
    }

    /// Whether no run of the plugin ever listed what it offers (it crashed or failed before its first
    /// listing, or never started): who owns a URI cannot be told without starting it.
    var neverListed: Bool {
        guard manifest != nil else { return false }
        return state.withLock { !$0.listed }
    }

    /// Still to be settled for a listing: never started and not failed, or starting.
    var isPending: Bool {
        state.withLock { state in
            switch state.phase {
            case .starting: true
            case .stopped: state.crashes.isEmpty
            default: false
            }
        }
    }

    /// What `plugins.list` shows.
    var status: PluginStatus {
        state.withLock { state in
            let session: PluginSession? = if case .running(let running) = state.phase { running } else { nil }
            let phase = switch state.phase {
            // A start that failed (a command missing, say) says so, as the call that started it did.
            case .stopped where state.lastReason == "startFailed": "startFailed"
            case .stopped: "stopped"
            case .starting: "starting"
            case .running: "running"
            case .failed: "failed"
            case .invalid: "invalid"
            }
            // The last run's end and this run's listing problems, both: one does not hide the other.
            let problems = [state.lastError, session?.listingProblem].compactMap { $0 }
            return PluginStatus(
                name: name, namespace: namespace, version: version.isEmpty ? state.server?.version ?? "" : version,
                server: state.server, state: phase, pid: session?.pid.map(Int.init),
                restarts: state.restarts, lastError: problems.isEmpty ? nil : problems.joined(separator: "; "),
                methods: (session?.tools.keys.sorted() ?? []).map { namespace + "." + $0 },
                resources: (session?.resources ?? []).compactMap { $0["uri"]?.stringValue },
                sandbox: state.sandbox
            )
        }
    }
}

/// What a plugin tells its supervisor.
enum PluginEvent: Sendable {
    /// Its phase changed (stopped, crashed, failed).
    case phase
    /// It is running, with what it announced.
    case started(PluginSession)
    /// That run ended (stopped, crashed, broke the protocol, or failed), with what it had announced.
    case ended(PluginSession)
    case changed(PluginSession.ChangeKind)
}

/// One item of `plugins.list`.
public struct PluginStatus: Encodable, Sendable, Equatable {
    public var name: String
    public var namespace: String
    /// The manifest's version, else the one the server gave in its handshake.
    public var version: String
    /// Who the server said it is (`serverInfo`), once it has started.
    public var server: PluginServerInfo?
    public var state: String
    public var pid: Int?
    public var restarts: Int
    public var lastError: String?
    public var methods: [String]
    public var resources: [String]
    /// The sandbox as applied to the last run (as planned before the first); `null` when it runs
    /// unconfined on purpose; absent for an invalid plugin.
    public var sandbox: PluginSandboxField?
}
