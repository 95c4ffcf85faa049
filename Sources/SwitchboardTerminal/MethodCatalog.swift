import Jansson

/// What the prompt knows of the methods, for `help` and completion: each one's summary and param names,
/// read from an OpenRPC document (`rpc.discover`).
public struct MethodCatalog: Sendable {
    public struct Method: Sendable, Equatable {
        public var name: String
        public var summary: String
        public var params: [String]

        public init(name: String, summary: String, params: [String]) {
            self.name = name
            self.summary = summary
            self.params = params
        }
    }

    /// Sorted by name.
    public let methods: [Method]

    public init(methods: [Method]) {
        self.methods = methods.sorted { $0.name < $1.name }
    }

    /// Reads `methods[].name`, `.summary` and `.params[].name` from an OpenRPC document.
    public init(openRPC document: JSONValue) {
        let methods = (document["methods"]?.arrayValue ?? []).compactMap { method -> Method? in
            guard let name = method["name"]?.stringValue else { return nil }
            let params = (method["params"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            return Method(name: name, summary: method["summary"]?.stringValue ?? "", params: params)
        }
        self.init(methods: methods)
    }

    public func method(named name: String) -> Method? {
        methods.first { $0.name == name }
    }

    /// `help`'s text: one line per method whose name starts with `prefix`, names aligned.
    public func helpText(prefix: String?, highlighter: JSONHighlighter) -> String {
        let shown = methods.filter { $0.name.hasPrefix(prefix ?? "") }
        guard !shown.isEmpty else { return "no method starts with \"\(prefix ?? "")\"" }
        let width = shown.map(\.name.count).max() ?? 0
        var lines = shown.map { method in
            let padding = String(repeating: " ", count: width - method.name.count)
            return highlighter.paint(method.name, "1") + padding + "  " + method.summary
        }
        if prefix == nil {
            lines.append("")
            lines.append("Type METHOD {JSON params} or METHOD key=value …; Tab completes; help PREFIX; quit (or Ctrl-D) leaves.")
        }
        return lines.joined(separator: "\n")
    }
}
