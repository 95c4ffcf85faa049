import ArgumentParser
import JSONRPC
import Logging
import PluginHost

/// `--plugins DIR`, `--mcp-config FILE`, `--eager-plugins`, `--plugin-grace MS` of `serve`.
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

    @Option(help: "At exit, milliseconds to wait after closing a plugin's stdin before SIGTERM (and after SIGTERM before SIGKILL).")
    var pluginGrace: Int = PluginLaunch().graceMilliseconds

    func validate() throws {
        guard (0...60_000).contains(pluginGrace) else { throw ValidationError("--plugin-grace must be 0...60000 milliseconds, got \(pluginGrace)") }
    }

    var launch: PluginLaunch {
        PluginLaunch(folders: folders, mcpConfigs: mcpConfigs, eager: eagerPlugins, graceMilliseconds: pluginGrace)
    }
}

/// The plugin settings of one `serve`, as plain values (a bare `switchboard` runs without the parser).
struct PluginLaunch {
    var folders: [String] = []
    var mcpConfigs: [String] = []
    var eager = false
    var graceMilliseconds = 2_000

    /// The supervisor of the configured plugins (none configured: `plugins.list` answers no items).
    func makeSupervisor(limits: ConnectionLimits, logger: Logger) -> PluginSupervisor {
        let configuration = PluginConfiguration.load(pluginFolders: folders, mcpConfigs: mcpConfigs, logger: logger)
        return PluginSupervisor(configuration: configuration,
                                settings: PluginSettings(limits: limits, shutdownGraceMilliseconds: graceMilliseconds, logger: logger))
    }
}
