/// A sector or brochure an import could not take: where it is in the document, as a JSON path
/// (`$.sectors[2].brochures[0].id`), and why.
public struct CatalogImportProblem: Error, Codable, Sendable, Equatable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
