#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging
import Synchronization
import SystemCalls

/// A plugin's running process: the host's ends of its three pipes, and its exit, which one thread of
/// its own waits for, so every child is reaped exactly once and none stays a zombie.
///
/// The child runs in a process group of its own (led by `pid`), so signals reach whatever it started.
final class PluginProcess: Sendable {
    let pid: Int32
    /// Writes to the plugin's stdin; closed by the connection's sink.
    let inputFD: Int32
    /// Reads the plugin's stdout.
    let outputFD: Int32
    /// Reads the plugin's stderr.
    let errorFD: Int32

    private let exit = Mutex(ExitState())
    /// Wakes threads waiting in ``waitBlocking(milliseconds:)``.
    private let exitLock = ConditionLock()
    /// For an ``attached(inputFD:outputFD:errorFD:signal:)`` peer: what receives the signals its
    /// process group would (there is none); nil for a child the host spawned.
    private let peerSignal: (@Sendable (Int32) -> Void)?

    private struct ExitState {
        var status: ExitStatus?
        var waiters: [@Sendable (ExitStatus) -> Void] = []
    }

    /// The sandbox this run got (`null`: unconfined on purpose).
    let sandbox: PluginSandboxField
    /// The run's private temporary folder, emptied (or removed) once it has exited.
    private let temporary: TemporaryFolderLease?
    /// The run's pids cgroup: kept for the next run, or removed once every process in it is gone.
    private let cgroup: PidsCgroupLeaf?
    /// Its way out for `network.allow`, stopped once it has exited.
    let proxy = Mutex<NetworkProxy?>(nil)

    private init(pid: Int32, inputFD: Int32, outputFD: Int32, errorFD: Int32, sandbox: PluginSandboxField, temporary: TemporaryFolderLease?,
                 cgroup: PidsCgroupLeaf? = nil, peerSignal: (@Sendable (Int32) -> Void)? = nil) {
        self.pid = pid
        self.sandbox = sandbox
        self.temporary = temporary
        self.cgroup = cgroup
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.errorFD = errorFD
        self.peerSignal = peerSignal
    }

    /// A plugin already on the far side of three descriptors, no child of the host (tests: an MCP peer
    /// in the test process, ``PluginSettings/attach``). `signal` gets what would go to its process group;
    /// the peer reports its end with ``attachedPeerEnded(_:)``. Its `pid` is 0.
    static func attached(inputFD: Int32, outputFD: Int32, errorFD: Int32, signal: @escaping @Sendable (Int32) -> Void) -> PluginProcess {
        PluginProcess(pid: 0, inputFD: inputFD, outputFD: outputFD, errorFD: errorFD, sandbox: PluginSandboxField(status: nil),
                      temporary: nil, peerSignal: signal)
    }

    /// An attached peer ended with `status` (what a reaped child's exit is).
    func attachedPeerEnded(_ status: ExitStatus) {
        guard peerSignal != nil else { return }
        recordExit(status)
    }

    /// Whether the host spawned this process (it has a pid and a process group).
    var isChild: Bool { peerSignal == nil }

    /// Starts `manifest.command` with a clean environment, confined by its sandbox (``SandboxPlan``);
    /// throws a reason when it cannot be started.
    static func spawn(_ manifest: PluginManifest, sandbox settings: SandboxSettings, logger: Logger) async throws(SpawnError) -> PluginProcess {
        var environment = PluginEnvironment.make(for: manifest)
        guard let program = manifest.command.first,
              let path = PluginEnvironment.resolveProgram(program, path: environment["PATH"]) else {
            throw SpawnError("cannot find the program \"\(manifest.command.first ?? "")\" (looked in the plugin's PATH)")
        }
        let applied: AppliedSandbox?
        let field: PluginSandboxField
        do {
            (applied, field) = try settings.prepare(manifest, program: path, searchPath: environment["PATH"])
        } catch {
            throw SpawnError(error.description, reason: error.reason)
        }
        for (name, value) in applied?.environment ?? [:] where manifest.env[name] == nil && !manifest.passEnv.contains(name) {
            environment[name] = value
        }
        let arguments = [program] + manifest.command.dropFirst()
        let variables = environment.keys.sorted().map { "\($0)=\(environment[$0] ?? "")" }
        let cwd = manifest.cwd
        let result: Result<PluginProcess, SpawnError>
        do {
            let sweep = applied != nil ? settings.temporaries : nil
            let parent = settings.temporaryParent
            let lease = applied.map { TemporaryFolderLease(folder: $0.temporaryFolder, plugin: manifest.name, folders: settings.temporaries) }
            result = try await SpawnThread.shared.run {
                // A host's first confined run: the folders killed hosts left go first (``PrivateTemporaryFolders``).
                sweep?.sweepOnce(parent)
                return Self.spawnNow(path: path, arguments: arguments, variables: variables, cwd: cwd, sandbox: applied, field: field,
                                     temporary: lease)
            }
        } catch {
            applied?.close()
            applied?.abandonChannels()
            applied.map { settings.temporaries.end($0.temporaryFolder, of: manifest.name) }
            applied?.cgroup?.release(killing: true)
            throw SpawnError(error.description)
        }
        applied?.close()
        let process: PluginProcess
        do {
            process = try result.get()
        } catch {
            applied?.abandonChannels()
            applied.map { settings.temporaries.end($0.temporaryFolder, of: manifest.name) }
            applied?.cgroup?.release(killing: true)
            // Kept namespaces that could not be entered are not tried again: the next start makes new ones.
            if applied?.confinement.enter_namespaces == 1 { settings.namespaces.forget(manifest.name) }
            throw error
        }
        if let applied, let channel = applied.namespaceChannel {
            settings.namespaces.keep(manifest.name, from: channel, network: applied.confinement.network_namespace != 0)
        }
        if let applied, let channel = applied.proxyChannel {
            try process.startProxy(channel: channel, allow: applied.allow, plugin: manifest.name, logger: logger)
        }
        do {
            try OSThread.detach(name: "sb-plugin-reap") { process.reap() }
        } catch {
            let reason = process.abandon(closing: [process.inputFD, process.outputFD, process.errorFD], because: error)
            process.reap()  // killed: it is gone at once
            throw reason
        }
        return process
    }

    /// Takes the proxy's listening socket the child sent on `channel` (made in its network namespace before
    /// exec) and starts the proxy; if that fails, kills the process and throws `sandboxFailed`.
    private func startProxy(channel: Int32, allow: [NetworkAddress], plugin: String, logger: Logger) throws(SpawnError) {
        let listener = sb_receive_descriptor(channel)
        let reason = errno
        close(channel)
        var failure: String?
        if listener < 0 {
            failure = "its listening socket did not arrive: \(String(cString: strerror(reason)))"
        } else {
            let started = NetworkProxy(listener: listener, allow: allow, plugin: plugin, logger: logger)
            do {
                try started.start()
                proxy.withLock { $0 = started }
            } catch {
                close(listener)
                failure = error.description
            }
        }
        guard let failure else { return }
        signalGroup(SIGKILL)
        Self.closeAll([inputFD, outputFD, errorFD])
        reap()  // killed: it is gone at once
        throw SpawnError("cannot confine the plugin: its network proxy did not start (\(failure)); it was stopped", reason: "sandboxFailed")
    }

    /// For a start that failed after the spawn: kills the process group and closes `descriptors` (those
    /// no reader or writer took yet); returns the reason to throw.
    func abandon(closing descriptors: [Int32], because error: ThreadStartError) -> SpawnError {
        signalGroup(SIGKILL)
        Self.closeAll(descriptors)
        return SpawnError(error.description)
    }

    private static func spawnNow(path: String, arguments: [String], variables: [String], cwd: String,
                                 sandbox: AppliedSandbox?, field: PluginSandboxField, temporary: TemporaryFolderLease?) -> Result<PluginProcess, SpawnError> {
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0], errors: [Int32] = [0, 0]
        guard sb_pipe_cloexec(&input) == 0 else { return .failure(SpawnError("pipe: errno \(errno)")) }
        guard sb_pipe_cloexec(&output) == 0 else {
            closeAll(input)
            return .failure(SpawnError("pipe: errno \(errno)"))
        }
        guard sb_pipe_cloexec(&errors) == 0 else {
            closeAll(input + output)
            return .failure(SpawnError("pipe: errno \(errno)"))
        }
        var step: Int32 = 0
        let pid = withCStrings(arguments) { argv in
            withCStrings(variables) { envp in
                if var confinement = sandbox?.confinement {
                    sb_spawn_confined(path, argv, envp, cwd, input[0], output[1], errors[1], &confinement, &step)
                } else {
                    sb_spawn_plugin(path, argv, envp, cwd, input[0], output[1], errors[1])
                }
            }
        }
        let reason = errno
        closeAll([input[0], output[1], errors[1]])
        guard pid > 0 else {
            closeAll([input[1], output[0], errors[0]])
            return .failure(SpawnError(failedStep: step, errno: reason, path: path, cwd: cwd, confined: sandbox != nil))
        }
        return .success(PluginProcess(pid: pid, inputFD: input[1], outputFD: output[0], errorFD: errors[0], sandbox: field,
                                      temporary: temporary, cgroup: sandbox?.cgroup))
    }

    // MARK: Exit

    /// Waits for the process to end (on its own thread), then wakes every waiter; the pids cgroup is kept for the
    /// plugin's next run if the run left it empty, else this waits for what it left there to end and removes it.
    private func reap() {
        var status: Int32 = 0
        _ = SystemCall.retrying { waitpid(pid, &status, 0) }
        temporary?.end()
        // Before the exit is known: a restart waits for it, and then finds the cgroup free.
        let cgroupFree = cgroup?.endRun()
        proxy.withLock { $0?.stop() }
        recordExit(ExitStatus(waitStatus: status))
        if cgroupFree == false { cgroup?.release(killing: false) }
    }

    /// Records how the process ended, once, and wakes every waiter.
    private func recordExit(_ ended: ExitStatus) {
        let waiters = exit.withLock { state -> [@Sendable (ExitStatus) -> Void] in
            guard state.status == nil else { return [] }
            state.status = ended
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0(ended) }
        exitLock.withLock { exitLock.broadcast() }
    }

    /// Blocks the calling thread (never a task's) until the process ended, at most `milliseconds`.
    func waitBlocking(milliseconds: Int) -> ExitStatus? {
        let deadline = monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        return exitLock.withLock {
            while exitStatus == nil, monotonicNanoseconds() < deadline { _ = exitLock.wait(until: deadline) }
            return exitStatus
        }
    }

    /// How it ended, once it has.
    var exitStatus: ExitStatus? { exit.withLock { $0.status } }

    /// Suspends until the process has ended.
    func exited() async -> ExitStatus {
        await withCheckedContinuation { continuation in
            onExit { continuation.resume(returning: $0) }
        }
    }

    /// The exit status, waiting at most `milliseconds`; nil if it is still running then.
    func exited(within milliseconds: Int) async -> ExitStatus? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ExitStatus?, Never>) in
            let once = ResumeOnce(continuation)
            let timer = DeadlineWatch.shared.schedule(in: milliseconds) { once.resume(nil) }
            onExit { status in
                DeadlineWatch.shared.cancel(timer)
                once.resume(status)
            }
        }
    }

    /// Calls `action` once the process has ended: now if it has.
    private func onExit(_ action: @escaping @Sendable (ExitStatus) -> Void) {
        let ended: ExitStatus? = exit.withLock { state in
            if state.status == nil { state.waiters.append(action) }
            return state.status
        }
        if let ended { action(ended) }
    }

    /// Sends `signal` to the plugin's process group (the plugin and what it started).
    /// Also after the plugin itself has ended: what it started may still run in its group (the group
    /// keeps the id in use, so it cannot have gone to another process).
    func signalGroup(_ signal: Int32) {
        if let peerSignal { return peerSignal(signal) }
        kill(-pid, signal)
    }

    /// Ends the process once its stdin is closed (by the caller): waits `grace` ms for it to leave,
    /// then SIGTERM to its group, then SIGKILL; what it left running in its group is killed too.
    func terminate(graceMilliseconds grace: Int) async -> ExitStatus {
        var ended = await exited(within: grace)
        if ended == nil {
            signalGroup(SIGTERM)
            ended = await exited(within: min(grace, 1_000))
        }
        signalGroup(SIGKILL)
        if let ended { return ended }
        return await exited()
    }

    // MARK: Helpers

    private static func closeAll(_ descriptors: [Int32]) {
        for fd in descriptors { close(fd) }
    }

    /// Calls `body` with a NULL-terminated array of C strings.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

/// Why a plugin could not be started.
struct SpawnError: Error, Sendable, CustomStringConvertible {
    var description: String
    /// `data.reason` of the error calls answer: `startFailed`, or `sandboxUnavailable` / `sandboxFailed`.
    var reason: String
    init(_ description: String, reason: String = "startFailed") {
        self.description = description
        self.reason = reason
    }

    /// What sb_spawn_confined reported: the step between fork and exec that failed, and errno.
    init(failedStep step: Int32, errno number: Int32, path: String, cwd: String, confined: Bool) {
        let cause = String(cString: strerror(number))
        let what: String? = switch Int(step) {
        case Int(SB_SPAWN_STEP_NAMESPACE): "unshare (a user and network namespace)"
        case Int(SB_SPAWN_STEP_ID_MAP): "the user namespace's uid and gid maps"
        case Int(SB_SPAWN_STEP_LOOPBACK): "bringing up loopback in the network namespace"
        case Int(SB_SPAWN_STEP_NO_NEW_PRIVS): "PR_SET_NO_NEW_PRIVS"
        case Int(SB_SPAWN_STEP_LANDLOCK): "landlock_restrict_self"
        case Int(SB_SPAWN_STEP_LIMITS): "setrlimit"
        case Int(SB_SPAWN_STEP_CGROUP): "joining its pids cgroup"
        default: nil
        }
        if let what {
            self.init("cannot confine the plugin: \(what) failed: \(cause); it was not started", reason: "sandboxFailed")
        } else if confined, number == EACCES {
            self.init("cannot start \(path) in \(cwd): \(cause) (its sandbox may not allow it: see sandbox.read in Plugins/README.md)")
        } else {
            self.init("cannot start \(path) in \(cwd): \(cause)")
        }
    }
}
