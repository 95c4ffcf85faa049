import Jansson
import JSONRPC
import Synchronization

/// What the plugin offers, read at the handshake and again when it says a list changed.
extension PluginSession {
    /// A list the plugin may say changed (`notifications/…/list_changed`).
    enum ListKind: Hashable, Sendable { case tools, resources, prompts }

    /// A notification that the plugin's tools, resources or prompts changed: read them again, then tell
    /// clients if they did change.
    ///
    /// - Important: at most one reading of a list runs at a time; notifications meanwhile mark it stale,
    ///   and one more reading follows. A flood of notifications costs two readings, not one each.
    func listChanged(_ kind: ChangeKind) {
        let list: ListKind
        switch kind {
        case .tools: list = .tools
        case .resources: list = .resources
        case .prompts: list = .prompts
        case .resourceUpdated:
            Task { onChange(kind) }
            return
        }
        let first = state.withLock { state in
            guard state.refreshing.insert(list).inserted else {
                state.stale.insert(list)
                return false
            }
            return true
        }
        guard first else { return }
        Task {
            var changed = false
            repeat {
                // A reading that failed (a time-out, the run ended) leaves the list as it was.
                if (try? await refresh(list)) == true { changed = true }
            } while state.withLock { state in
                if state.stale.remove(list) != nil { return true }
                state.refreshing.remove(list)
                return false
            }
            if changed { onChange(kind) }
        }
    }

    private func refresh(_ list: ListKind) async throws -> Bool {
        switch list {
        case .tools: try await refreshTools()
        case .resources: try await refreshResources()
        case .prompts: try await refreshPrompts()
        }
    }

    /// Reads `tools/list`, every page; true when the tools changed.
    @discardableResult
    func refreshTools() async throws -> Bool {
        let items = try await listAll("tools/list", member: "tools")
        guard items != state.withLock({ $0.toolItems }) else { return false }
        var tools: [String: PluginTool] = [:]
        for item in items {
            if let tool = PluginTool(item) { tools[tool.name] = tool }
        }
        state.withLock {
            $0.tools = tools
            $0.toolItems = items
        }
        return true
    }

    /// Reads `resources/list` and `resources/templates/list`, every page; true when they changed.
    @discardableResult
    func refreshResources() async throws -> Bool {
        let resources = try await listAll("resources/list", member: "resources")
        let templates = (try? await listAll("resources/templates/list", member: "resourceTemplates")) ?? []
        return state.withLock {
            guard $0.resources != resources || $0.templates != templates else { return false }
            $0.resources = resources
            $0.templates = templates
            return true
        }
    }

    /// Reads `prompts/list`, every page; an item without a string `name` is left out. True when they changed.
    @discardableResult
    func refreshPrompts() async throws -> Bool {
        let prompts = try await listAll("prompts/list", member: "prompts").filter { $0["name"]?.stringValue != nil }
        return state.withLock {
            guard $0.prompts != prompts else { return false }
            $0.prompts = prompts
            return true
        }
    }

    /// A paginated MCP list, at most 100 pages.
    private func listAll(_ method: String, member: String) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        var cursor: JSONValue?
        for _ in 0..<100 {
            let page = try await request(method, params: cursor.map { ["cursor": $0] } ?? [:])
            items += page[member]?.arrayValue ?? []
            guard let next = page["nextCursor"], next.stringValue != nil else { break }
            cursor = next
        }
        return items
    }
}
