#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging

/// The only way out of a plugin with `network: {"allow": [...]}`: it runs in a network namespace of its own
/// (only loopback), where the host listens on 127.0.0.1:``port`` (the child made that socket in its
/// namespace and handed it over), and the plugin finds it as `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY`. Each
/// connection asks for one destination — `CONNECT host:port` (HTTPS, any TCP) or a plain HTTP request with
/// an absolute URI — which the host reaches from its own namespace if the allow-list has it, else answers
/// `403` and logs a line naming the plugin and the host.
final class NetworkProxy: Sendable {
    /// The port the proxy has inside the plugin's namespace.
    static let port: Int32 = 3128
    /// The most a request's head may take.
    static let headLimit = 16_384

    private let listener: Int32
    private let allow: [NetworkAddress]
    private let plugin: String
    private let logger: Logger

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
                    break
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                do {
                    try OSThread.detach(name: "sb-plugin-relay") { [self] in serve(connection) }
                } catch {
                    close(connection)
                }
            }
            close(listener)
        }
    }

    /// Wakes the accepting thread, which then closes the listener (the plugin's run ended).
    func stop() {
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

    // MARK: One connection

    private func serve(_ client: Int32) {
        defer { close(client) }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var end: Int?
        while end == nil, head.count < Self.headLimit {
            let count = read(client, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            head += buffer[..<count]
            end = Self.endOfHead(head)
        }
        guard let end, let request = ProxyRequest(head: Array(head[..<end])) else {
            reply(client, "400 Bad Request")
            return
        }
        guard allows(host: request.host, port: request.port) else {
            logger.warning("plugin \(plugin): network refused \(request.host.prefix(100)):\(request.port) (not in its sandbox's network.allow)")
            reply(client, "403 Forbidden")
            return
        }
        guard let upstream = Self.connect(host: request.host, port: request.port) else {
            reply(client, "502 Bad Gateway")
            return
        }
        defer { close(upstream) }
        let rest = Array(head[end...])
        if request.tunnel {
            guard Self.send(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)), Self.send(upstream, rest) else { return }
        } else {
            guard Self.send(upstream, request.forwardedHead + rest) else { return }
        }
        sb_relay(client, upstream)
    }

    private func reply(_ client: Int32, _ status: String) {
        _ = Self.send(client, Array("HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    }

    /// The index just past the blank line ending an HTTP head, if it arrived.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
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

    /// A TCP connection from the host's namespace to `host:port`, the first address that answers.
    static func connect(host: String, port: UInt16) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0 else { return nil }
        defer { freeaddrinfo(list) }
        var entry = list
        while let current = entry {
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), current.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return fd }
                close(fd)
            }
            entry = current.pointee.ai_next
        }
        return nil
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
