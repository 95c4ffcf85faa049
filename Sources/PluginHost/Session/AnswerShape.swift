import Jansson

/// Whether a plugin's result is the MCP result its request asks for, as far as the host passes it
/// on: each check names the first problem, nil when there is none.
///
/// Tolerant where MCP clients are: members it does not know stay, content blocks of types it does not
/// know are kept, a tool result without `content` has none, and an optional member that is `null` is
/// absent (as Python's SDK reads it; servers in other languages write `null` for a field they leave out).
enum AnswerShape {
    /// A `CallToolResult`: an object whose `content`, when present, is an array of blocks,
    /// `structuredContent` an object and `isError` a boolean.
    static func toolResultProblem(_ result: JSONView) -> String? {
        guard result.kind == .object else { return "the tool result is \(described(result)), not an object" }
        if let content = present(result, "content"), let problem = blocksProblem(content, named: "content") { return problem }
        if let structured = present(result, "structuredContent"), structured.kind != .object {
            return "structuredContent is \(described(structured)), not an object"
        }
        if let isError = present(result, "isError"), isError.bool == nil { return "isError is \(described(isError)), not a boolean" }
        return nil
    }

    /// An optional member of `object`, nil when it is absent or `null`.
    static func present(_ object: JSONView, _ name: String) -> JSONView? {
        guard let member = object[name], !member.isNull else { return nil }
        return member
    }

    /// `result` as MCP's strict readers take it: `structuredContent` and `isError` that are `null` left
    /// out, and `content`, which MCP's schema requires, `[]` when it is `null` or absent (a copy only
    /// when one of them is).
    static func withoutNullOptionals(_ result: JSONView) -> JanssonValue {
        let kept = JanssonValue(retaining: result.pointer)
        let nulls = ["structuredContent", "isError"].filter { result[$0]?.isNull == true }
        let noContent = result["content"].map(\.isNull) ?? true
        guard !nulls.isEmpty || noContent, let copy = kept.shallowCopy() else { return kept }
        nulls.forEach(copy.removeMember)
        if noContent { copy.set("content", JanssonValue.array()) }
        return copy
    }

    /// A `GetPromptResult`: an object whose `messages` is an array of objects.
    static func promptProblem(_ result: JSONValue) -> String? {
        withView(result) { result in
            guard result.kind == .object else { return "the prompt is \(described(result)), not an object" }
            guard let messages = result["messages"] else { return "the prompt has no messages" }
            return objectsProblem(messages, named: "messages")
        }
    }

    /// A `ReadResourceResult`: an object whose `contents` is an array of objects.
    static func readProblem(_ result: JSONValue) -> String? {
        withView(result) { result in
            guard result.kind == .object else { return "the read result is \(described(result)), not an object" }
            guard let contents = result["contents"] else { return "the read result has no contents" }
            return objectsProblem(contents, named: "contents")
        }
    }

    /// An array of content blocks: objects with a string `type`.
    private static func blocksProblem(_ blocks: JSONView, named name: String) -> String? {
        if let problem = objectsProblem(blocks, named: name) { return problem }
        for index in 0..<blocks.count where blocks[index]?["type"]?.string == nil {
            return "\(name)[\(index)] has no string type"
        }
        return nil
    }

    private static func objectsProblem(_ items: JSONView, named name: String) -> String? {
        guard items.kind == .array else { return "\(name) is \(described(items)), not an array" }
        for index in 0..<items.count where items[index]?.kind != .object {
            return "\(name)[\(index)] is \(items[index].map(described) ?? "missing"), not an object"
        }
        return nil
    }

    /// The value's kind and a short quote of it (control characters escaped, as JSON text has them).
    private static func described(_ value: JSONView) -> String {
        value.isNull ? "null" : "\(value.kind.description) \(value.preview(limit: 40))"
    }

    private static func withView<T>(_ value: JSONValue, _ body: (JSONView) -> T) -> T {
        let jansson = value.makeJansson()
        return withExtendedLifetime(jansson) { body(jansson.view) }
    }
}
