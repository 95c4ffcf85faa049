import Foundation
import PackagePlugin

/// Embeds every `.json` file under the package's `Schemas/` folder into the target that uses the plugin,
/// as `embeddedSchemaFiles`, so the binary serves `rpc.discover` from any working directory.
@main
struct EmbedSchemas: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let root = context.package.directoryURL.appending(path: "Schemas")
        let schemas = Self.jsonFiles(under: root)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSchemas.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(schemas.count) schema files",
                executable: try context.tool(named: "schema-embedder").url,
                arguments: [output.path(), root.path()] + schemas.map { $0.path() },
                inputFiles: schemas,
                outputFiles: [output]
            )
        ]
    }

    /// The files under `root` whose names end in `.json`, sorted.
    static func jsonFiles(under root: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "json" } ?? []
        return files.sorted { $0.path() < $1.path() }
    }
}
