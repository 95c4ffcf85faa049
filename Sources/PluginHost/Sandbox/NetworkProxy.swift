#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging
import Synchronization

/// The only way out of a plugin with `network: {"allow": [...]}`: it runs in a network namespace of its own
/// (only loopback), where the host listens on 127.0.0.1:``port`` (the child made that socket in its
/// namespace and handed it over), and the plugin finds it as `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`. Each
/// connection asks for one destination — `CONNECT host:port` (HTTPS, any TCP) or a plain HTTP request with
/// an absolute URI — which the host reaches from its own namespace if the allow-list has it, else answers
/// `403` and logs a line naming the plugin and the host.
///
/// - Important: what a plugin can take from the host is bounded: one accepting thread, and at most
///   ``maxConnections`` connections at once (each a thread and two descriptors); past that a connection gets
///   `503` and one log line per burst. An upstream that does not answer within ``connectTimeoutMilliseconds``
///   gets the plugin a `504`. ``stop()`` ends every open connection.
final class NetworkProxy: Sendable {
    /// The port the proxy has inside the plugin's namespace.
    static let port: Int32 = 3128
    /// The most a request's head may take.
    static let headLimit = 16_384
    /// The most connections one plugin may have open through the proxy at once.
    static let maxConnections = 32
    /// How long an upstream connect may take: 10 s, or `SWITCHBOARD_TEST_PROXY_CONNECT_MS` in the host's
    /// environment (a test-only setting).
    static let connectTimeoutMilliseconds: Int = {
        guard let text = getenv("SWITCHBOARD_TEST_PROXY_CONNECT_MS"), let value = Int(String(cString: text)), value > 0 else { return 10_000 }
        return value
    }()

    private let listener: Int32
    private let allow: [NetworkAddress]
    let plugin: String
    let logger: Logger
    /// The sockets of the open connections (the plugin's and the upstream's), shut by ``stop()``.
    private let active = Mutex(OpenConnections())

    struct OpenConnections {
        var count = 0
        var sockets: Set<Int32> = []
        var stopped = false
        /// Whether the refusal past the bound was logged since a connection was last admitted.
        var refusalLogged = false
    }

    init(listener: Int32, allow: [NetworkAddress], plugin: String, logger: Logger) {
        self.listener = listener
        self.allow = allow
        self.plugin = plugin
        self.logger = logger
    }

    /// The variables that send the plugin's HTTP clients through the proxy.
    static var environment: [String: String] {
        let url = "http://127.0.0.1:\(port)"
        return ["HTTPS_PROXY": url, "HTTP_PROXY": url, "ALL_PROXY": url, "https_proxy": url, "http_proxy": url, "all_proxy": url]
    }

    /// Starts accepting on a thread of its own; the listener closes when ``stop()`` shuts it.
    func start() throws(ThreadStartError) {
        try OSThread.detach(name: "sb-plugin-proxy") { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    if !isStopped { logger.error("plugin \(plugin): its network proxy stopped: accept: \(String(cString: strerror(errno)))") }
                    break
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                admit(connection)
            }
            close(listener)
        }
    }

    /// Serves `connection` on a thread of its own if the plugin is under the bound, else refuses it.
    private func admit(_ connection: Int32) {
        enum Admission { case serve, refuse, refuseAndLog, stopped }
        let admission = active.withLock { state -> Admission in
            guard !state.stopped else { return .stopped }
            guard state.count < Self.maxConnections else {
                defer { state.refusalLogged = true }
                return state.refusalLogged ? .refuse : .refuseAndLog
            }
            state.count += 1
            state.refusalLogged = false
            state.sockets.insert(connection)
            return .serve
        }
        switch admission {
        case .serve:
            do {
                try OSThread.detach(name: "sb-plugin-relay", stackBytes: 256 * 1024) { [self] in
                    serve(connection)
                    release(connection)
                }
            } catch {
                release(connection)
            }
        case .refuse, .refuseAndLog:
            if admission == .refuseAndLog {
                logger.warning("plugin \(plugin): network connection refused: \(Self.maxConnections) proxy connections open, the most a plugin may have")
            }
            reply(connection, "503 Service Unavailable", "too many connections through the proxy (at most \(Self.maxConnections) at once)")
            Self.closeAfterReply(connection)
        case .stopped:
            close(connection)
        }
    }

    /// Adds an upstream socket to those ``stop()`` shuts; false when the proxy has stopped (then close it).
    func track(_ socket: Int32) -> Bool {
        active.withLock { state in
            guard !state.stopped else { return false }
            state.sockets.insert(socket)
            return true
        }
    }

    /// Closes a socket ``track(_:)`` added (it leaves the set first, so ``stop()`` never shuts a number reused).
    func untrack(_ socket: Int32) {
        active.withLock { _ = $0.sockets.remove(socket) }
        close(socket)
    }

    /// Ends a connection: closes the plugin's socket and frees its place.
    private func release(_ connection: Int32) {
        active.withLock { state in
            state.sockets.remove(connection)
            state.count -= 1
        }
        close(connection)
    }

    private var isStopped: Bool { active.withLock { $0.stopped } }

    /// Wakes the accepting thread, which then closes the listener (the plugin's run ended), and ends every
    /// open connection.
    func stop() {
        active.withLock { state in
            state.stopped = true
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Whether `host:port` is on the allow-list (`*.example.com` covers the names below example.com).
    func allows(host: String, port: UInt16) -> Bool {
        let name = host.lowercased()
        return allow.contains { entry in
            guard entry.port == port else { return false }
            if entry.host.hasPrefix("*.") { return name.hasSuffix(String(entry.host.dropFirst(1))) }
            return entry.host == name
        }
    }

    /// Answers `status` with `text` as its body, and nothing more.
    func reply(_ client: Int32, _ status: String, _ text: String = "") {
        let body = text.isEmpty ? "" : "switchboard proxy: \(text)\n"
        _ = Self.send(client, Array("HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8))
    }

    /// Closes a connection after its answer: the end of writing first, and what the plugin sent meanwhile read
    /// away, so the close does not reset the connection before the plugin has read the answer.
    static func closeAfterReply(_ connection: Int32) {
        shutdown(connection, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 1_024)
        var rounds = 0
        while rounds < 16, recv(connection, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 { rounds += 1 }
        close(connection)
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Glibc.send(fd, base + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }
}

/// The destination a proxy request asks for: `CONNECT host:port HTTP/1.1`, or `GET http://host[:port]/path HTTP/1.1`
/// (passed on with the path alone in its first line).
struct ProxyRequest {
    var host: String
    var port: UInt16
    var tunnel: Bool
    var forwardedHead: [UInt8] = []

    init?(head: [UInt8]) {
        guard let lineEnd = head.indices.dropLast().first(where: { head[$0] == 13 && head[$0 + 1] == 10 }) else { return nil }
        let parts = String(decoding: head[..<lineEnd], as: UTF8.self).split(separator: " ")
        guard parts.count == 3 else { return nil }
        let method = String(parts[0]), target = String(parts[1]), version = String(parts[2])
        if method == "CONNECT" {
            guard let address = NetworkAddress(target) else { return nil }
            (host, port, tunnel) = (address.host, address.port, true)
            return
        }
        guard target.lowercased().hasPrefix("http://") else { return nil }
        let afterScheme = target.dropFirst("http://".count)
        let authority = afterScheme.prefix { $0 != "/" }
        let path = afterScheme.dropFirst(authority.count)
        let address = NetworkAddress(authority.contains(":") && !authority.hasSuffix("]") ? String(authority) : authority + ":80")
        guard let address else { return nil }
        (host, port, tunnel) = (address.host, address.port, false)
        forwardedHead = Array("\(method) \(path.isEmpty ? "/" : path) \(version)".utf8) + head[lineEnd...]
    }
}
