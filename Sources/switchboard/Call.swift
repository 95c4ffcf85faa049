import ArgumentParser
import ChatDomain
import PluginHost
import Jansson
import Logging
import MCPServerFace
import JSONRPC
import SwitchboardCore
import SwitchboardHost
import SwitchboardTerminal
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `switchboard call METHOD [PARAMS]`: one call in-process, no envelope to write.
struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call one method in-process and print its result as pretty JSON.",
        discussion: """
            Prints the result on stdout and exits 0, or prints the JSON-RPC error on stderr and exits 1.
            Notifications the method sends while it runs (progress) go to stderr, one per line; a chat.send \
            whose chat.messageState says failed exits 1.
              switchboard call host.echo '{"hello":"world"}'
            Params may also be key=value words: a value that reads as a JSON number, true, false or null is \
            that, one in JSON quotes ('"3"') is that string, anything else is the text as a string.
              switchboard call inbox.list limit=3 folder=Inbox
            A method of a plugin's namespace starts that plugin (from --plugins, --mcp-config and \
            $XDG_CONFIG_HOME/switchboard/plugins, as serve finds them) and stops it after the answer.
              switchboard call words.count text='a b'
            """
    )

    @Argument(help: "The method, e.g. host.ping.")
    var method: String

    @Argument(help: ArgumentHelp("The params: JSON text (an object or an array), or key=value words.", valueName: "params"))
    var params: [String] = []

    @OptionGroup var store: StoreOptions
    @OptionGroup var access: AccessOptions
    @OptionGroup var plugins: PluginOptions
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let parsed = try Self.parsedParams(params)
        try Self.call(method, params: parsed, store: store.configuration, readRoots: access.readRoots(),
                      plugins: plugins.launch, logger: logging.makeLogger())
    }

    /// Calls `method` in-process, prints its result (exit code 0) or its error (1), and ends the process.
    /// A method the host does not have is looked for among the plugins: the plugin of its namespace is
    /// started for the call and stopped after it.
    static func call(_ method: String, params: JSONValue?, store: StoreConfiguration, readRoots: ReadRoots,
                     plugins launch: PluginLaunch = PluginLaunch(), logger: Logger) throws -> Never {
        // SIGINT, SIGTERM or SIGHUP cancel the call as $/cancelRequest would (an import says what it
        // stored), its plugin is stopped as at a host's exit, and the process exits 128 + the signal;
        // a second one exits at once. Before any thread starts, so that each has the signals blocked.
        let interruption = InProcessCall.Interruption()
        let services = DomainServices(options: store, logger: logger, followsOtherProcesses: false)
        let registry = HostRegistry.make(services: services, readRoots: readRoots)
        let hostMethods = registry.names
        var plugins: PluginSupervisor?
        let known = hostMethods.contains(method)
        // A domain call fails at start, in one line, when the database cannot be used.
        if known, !["host.", "rpc."].contains(where: method.hasPrefix) {
            do {
                try store.checkStorage()
            } catch {
                writeLine("switchboard: \(error)", to: STDERR_FILENO)
                Glibc.exit(1)
            }
        }
        // The plugins are set up (each starts only when called) for a method of theirs, for the host's
        // methods about them (plugins.list, prompts), and whenever --plugins or --mcp-config names some;
        // else not at all, so a plain call reads no plugin folder.
        if !known || !launch.folders.isEmpty || !launch.mcpConfigs.isEmpty
            || (MethodRegistry.pluginMethods(.none).names + MethodRegistry.promptMethods(.none).names).contains(method) {
            let supervisor = launch.makeSupervisor(limits: ConnectionLimits(), policy: NamespacePolicy(hostMethods: hostMethods), logger: logger)
            if known || supervisor.router.namespaces.contains(where: { method.hasPrefix($0 + ".") }) { plugins = supervisor }
        }
        let dispatcher = try (plugins.map { HostRegistry.make(services: services, readRoots: readRoots, plugins: $0) } ?? registry).freeze()

        // A write answered first and done after (chat.send's pending, then chat.messageState) that failed
        // fails the call: the notice says why, on stderr.
        let laterFailure = Atomic<Bool>(false)
        let outcome = InProcessCall.callBlocking(method, params: params, dispatcher: dispatcher, logger: logger,
                                                 onConnection: { connection in
                                                     plugins?.attach(client: connection)
                                                     interruption.watch(connection)
                                                 }) { note in
            if let method = note["method"]?.stringValue, HostPush.listChanges.contains(method) { return }
            writeLine(note.jsonText(), to: STDERR_FILENO)
            if note["method"]?.stringValue == ChatMessageState.method, note["params"]?["state"]?.stringValue == "failed" {
                laterFailure.store(true, ordering: .relaxed)
            }
        }
        // The plugin is asked to stop (its stdin closed, then SIGTERM after --plugin-grace): a write it
        // made for the call is done by then.
        plugins?.shutdownBlocking()
        // The answer's result (or error) indented from its text, which the scanner checked: no values built.
        let answered: Bool
        if let message = outcome.responseMessage, message.isObject {
            answered = message.result != nil
            let printed = message.result ?? message.error ?? message.range
            var text = outcome.responseText.withUnsafeBytes { JSONIndenter.indented(UnsafeRawBufferPointer(rebasing: $0[printed])) }
            text.append(0x0A)
            SystemCall.writeAll(answered ? STDOUT_FILENO : STDERR_FILENO, text)
        } else {
            writeLine("switchboard: the answer is not JSON", to: STDERR_FILENO)
            answered = false
        }
        // Every task is done (`callBlocking`) and every write committed: the process ends here, as the
        // services and the dispatcher are, since tearing them down (closures, connections, their
        // observers) would only cost time, about a tenth of a one-shot call's CPU.
        let succeeded = answered && !laterFailure.load(ordering: .relaxed)
        if let signal = interruption.received {
            withExtendedLifetime((services, dispatcher)) { Glibc.exit(128 + signal) }
        }
        withExtendedLifetime((services, dispatcher)) { Glibc.exit(succeeded ? 0 : 1) }
    }
}

extension Call {
    /// No params, one JSON text, or `key=value` words.
    static func parsedParams(_ params: [String]) throws -> JSONValue? {
        if ParamShorthand.applies(to: params) {
            do {
                return try ParamShorthand.params(from: params)
            } catch {
                throw ValidationError("PARAMS: \(error)")
            }
        }
        guard let text = params.first else { return nil }
        guard params.count == 1 else {
            throw ValidationError("PARAMS is one JSON text or key=value words, got \(params.count) words")
        }
        do {
            return try JSONValue(parsing: text)
        } catch {
            // What a served request is told (`-32602`): jansson's own message says only "invalid Unicode".
            let bytes = Array(text.utf8)
            if let escape = LoneSurrogateEscapes.find(in: bytes).first {
                throw ValidationError("PARAMS holds a lone UTF-16 surrogate escape, \(String(decoding: bytes[escape], as: UTF8.self)) "
                    + "at byte offset \(escape.lowerBound): send the pair, or U+FFFD")
            }
            // As a served request's -32700 says it: the text near the failure is not quoted when the
            // params hold a secret (a `mail.login` password).
            let refusal = bytes.withUnsafeBytes { ResponseError.parseError(error, in: $0) }
            let reason = refusal.data?["reason"]?.stringValue ?? error.problem
            throw ValidationError("PARAMS is not valid JSON: \(reason) at line \(error.line), column \(error.column)")
        }
    }
}

/// Writes `text` and a newline to `fd`, bypassing Swift's buffered `print`.
func writeLine(_ text: String, to fd: Int32, newline: Bool = true) {
    SystemCall.writeAll(fd, Array(text.utf8) + (newline ? [0x0A] : []))
}
