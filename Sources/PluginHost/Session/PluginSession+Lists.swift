import Jansson
import JSONRPC
import Logging
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
        let items = try await listAll("tools/list", member: "tools", key: "name")
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
        let resources = try await listAll("resources/list", member: "resources", key: "uri")
        // A server without templates answers -32601; any other failure keeps the templates held.
        let templates: [JSONValue]
        do {
            templates = try await listAll("resources/templates/list", member: "resourceTemplates", key: "uriTemplate")
        } catch let error as ResponseError where error.code == .methodNotFound {
            templates = []
        } catch {
            templates = state.withLock { $0.templates }
        }
        return state.withLock {
            guard $0.resources != resources || $0.templates != templates else { return false }
            $0.resources = resources
            $0.templates = templates
            return true
        }
    }

    /// Reads `prompts/list`, every page; an item without a string `name`, or with a NUL in it (as a
    /// tool's), is left out. True when they changed.
    @discardableResult
    func refreshPrompts() async throws -> Bool {
        let prompts = try await listAll("prompts/list", member: "prompts", key: "name").filter { item in
            item["name"]?.stringValue.map { !$0.contains("\0") } ?? false
        }
        return state.withLock {
            guard $0.prompts != prompts else { return false }
            $0.prompts = prompts
            return true
        }
    }

    /// The most pages of one list the host reads.
    static let maxPages = 1_000
    /// The longest `nextCursor` the host follows: each is sent back, and a loop is found by those seen.
    static let maxCursorBytes = 64 << 10
    /// The most items of one list (tools, resources, templates, prompts) the host keeps per plugin: each
    /// costs memory and, for a tool, a compiled schema.
    static let maxItems = 10_000

    /// A paginated MCP list: every page until one without a `nextCursor`, a cursor already followed (a
    /// loop), ``maxPages`` or ``maxItems``; an item whose `key` another had is left out. What was cut or
    /// left out is noted (``noteListing(_:_:)``).
    private func listAll(_ method: String, member: String, key: String) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        var keys: Set<String> = []
        var duplicates = 0
        // Cursors followed, as hashes: a thousand pages of long cursors would otherwise be held whole.
        var followed: Set<Int> = []
        var cursor: String?
        var cut: String?
        pages: for page in 0... {
            guard page < Self.maxPages else {
                cut = "it has more than \(Self.maxPages) pages; the rest were not read"
                break
            }
            let answer = try await request(method, params: cursor.map { ["cursor": .string($0)] } ?? [:])
            for item in answer[member]?.arrayValue ?? [] {
                if let name = item[key]?.stringValue, !keys.insert(name).inserted {
                    duplicates += 1
                } else if items.count == Self.maxItems {
                    cut = "it lists more than \(Self.maxItems) items; the rest were left out"
                    break pages
                } else {
                    items.append(item)
                }
            }
            guard let next = answer["nextCursor"]?.stringValue else { break }
            guard next.utf8.count <= Self.maxCursorBytes else {
                cut = "its nextCursor is over \(Self.maxCursorBytes) bytes; the listing stops there"
                break
            }
            guard followed.insert(next.hashValue).inserted else {
                cut = "its nextCursor \(LogText.escaped(JSONFieldError.excerpt(JSONValue.string(next).jsonText()))) came again after \(page + 1) pages; the listing stops there"
                break
            }
            cursor = next
        }
        var problems: [String] = []
        if let cut { problems.append(cut) }
        if duplicates > 0 { problems.append("\(duplicates) items with a \(key) listed before were left out") }
        noteListing(method, problems.isEmpty ? nil : problems.joined(separator: "; "))
        return items
    }

    /// Keeps what was wrong with the plugin's last `method` listing (nil: nothing), shown in
    /// `plugins.list`'s `lastError` until a later listing of `method` is clean, and logs it when it is new.
    private func noteListing(_ method: String, _ problem: String?) {
        let isNew = state.withLock { state in
            defer { state.listingProblems[method] = problem }
            return problem != nil && state.listingProblems[method] != problem
        }
        if isNew, let problem { settings.logger.warning("plugin \(name): its \(method) listing: \(problem)") }
    }

    /// What was wrong with the run's last listings, in words; nil when nothing was.
    var listingProblem: String? {
        state.withLock { state in
            state.listingProblems.isEmpty ? nil : state.listingProblems.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        }
    }
}
