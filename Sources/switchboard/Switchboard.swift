import ArgumentParser

/// `switchboard`: a JSON-RPC 2.0 host on stdio. With no subcommand it serves.
@main
struct Switchboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "A scriptable JSON-RPC 2.0 host: speak to it over stdin/stdout.",
        discussion: """
            With no subcommand, switchboard serves JSON-RPC on stdin/stdout (same as `switchboard serve`):
              printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"host.ping"}' | switchboard
            """,
        version: "0.1.0",
        subcommands: [Serve.self, Call.self, Methods.self, Seed.self],
        defaultSubcommand: Serve.self
    )
}
