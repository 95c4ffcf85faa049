import ArgumentParser
import JSONRPC
import Logging
import PluginHost

/// `--plugins DIR`, `--mcp-config FILE`, `--eager-plugins`, `--plugin-grace MS`, `--plugin-wait MS` of `serve`.
struct PluginOptions: ParsableArguments {
    @Option(name: .customLong("plugins"), help: ArgumentHelp(
        "A folder of plugins: each sub-folder holding a plugin.json is one (repeatable).",
        discussion: "$XDG_CONFIG_HOME/switchboard/plugins is searched after these. See Plugins/README.md.",
        valueName: "dir"
    ))
    var folders: [String] = []

    @Option(name: .customLong("mcp-config"), help: ArgumentHelp(
        "An MCP client configuration ({\"mcpServers\": …} or VS Code's {\"servers\": …}); each server becomes a plugin named after its entry (repeatable).",
        valueName: "file"
    ))
    var mcpConfigs: [String] = []

    @Flag(help: "Start every plugin at start-up instead of on first use.")
    var eagerPlugins = false

    @Option(help: "At exit, milliseconds to wait after closing a plugin's stdin before SIGTERM (and after SIGTERM before SIGKILL, at most 1000).")
    var pluginGrace: Int = PluginLaunch().graceMilliseconds

    @Option(help: ArgumentHelp(
        "Milliseconds a listing (host.methods, rpc.discover, tools/list) waits for plugins still starting.",
        discussion: "A plugin that starts later is announced when it does: host.methodsChanged, or notifications/tools/list_changed to MCP clients."
    ))
    var pluginWait: Int = PluginLaunch().listingWaitMilliseconds

    @Option(name: .customLong("plugin-sandbox"), help: ArgumentHelp(
        "Replaces a plugin's sandbox with the one in FILE (a JSON \"sandbox\" value: false, or {read, write, network, limits}) (repeatable).",
        valueName: "name=file"
    ))
    var pluginSandboxes: [String] = []

    @Option(name: .customLong("unconfined-plugin"), help: ArgumentHelp(
        "Runs the plugin NAME unconfined, as an ordinary program, with a warning (repeatable).", valueName: "name"
    ))
    var unconfinedPlugins: [String] = []

    @Flag(help: "Where the kernel offers no Landlock, run plugins unconfined (with a warning) instead of failing them (sandboxUnavailable).")
    var allowUnconfinedPlugins = false

    func validate() throws {
        for entry in pluginSandboxes {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex, entry.index(after: equals) != entry.endIndex else {
                throw ValidationError("--plugin-sandbox expects NAME=FILE, got \(entry.prefix(100))")
            }
        }
        guard (0...60_000).contains(pluginGrace) else { throw ValidationError("--plugin-grace must be 0...60000 milliseconds, got \(pluginGrace)") }
        guard (0...600_000).contains(pluginWait) else { throw ValidationError("--plugin-wait must be 0...600000 milliseconds, got \(pluginWait)") }
    }

    var launch: PluginLaunch {
        PluginLaunch(folders: folders, mcpConfigs: mcpConfigs, eager: eagerPlugins, graceMilliseconds: pluginGrace,
                     listingWaitMilliseconds: pluginWait,
                     sandboxFiles: Dictionary(pluginSandboxes.map { entry in
                         let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                         return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
                     }, uniquingKeysWith: { _, last in last }),
                     unconfined: Set(unconfinedPlugins), allowUnconfined: allowUnconfinedPlugins)
    }
}

/// The plugin settings of one `serve`, as plain values (a bare `switchboard` runs without the parser).
struct PluginLaunch {
    var folders: [String] = []
    var mcpConfigs: [String] = []
    var eager = false
    var graceMilliseconds = 2_000
    var listingWaitMilliseconds = PluginSettings.defaultListingWaitMilliseconds
    /// `--plugin-sandbox NAME=FILE`, `--unconfined-plugin NAME`, `--allow-unconfined-plugins`.
    var sandboxFiles: [String: String] = [:]
    var unconfined: Set<String> = []
    var allowUnconfined = false

    /// The supervisor of the configured plugins (none configured: `plugins.list` answers no items); no
    /// plugin takes a namespace of `policy`'s.
    func makeSupervisor(limits: ConnectionLimits, policy: @autoclosure () -> NamespacePolicy, logger: Logger) -> PluginSupervisor {
        let configuration = PluginConfiguration.load(pluginFolders: folders, mcpConfigs: mcpConfigs, policy: policy(), logger: logger)
            .overridingSandboxes(files: sandboxFiles, unconfined: unconfined, logger: logger)
        return PluginSupervisor(configuration: configuration,
                                settings: PluginSettings(limits: limits, shutdownGraceMilliseconds: graceMilliseconds,
                                                        listingWaitMilliseconds: listingWaitMilliseconds,
                                                        sandbox: SandboxSettings(allowUnconfined: allowUnconfined), logger: logger))
    }
}
