#if canImport(Glibc)
import Glibc
#endif
import CSystemShims
import JSONRPC
import Logging

extension NetworkProxy {
    /// Serves one connection of the plugin's: reads its request's head, refuses a name outside the list, else
    /// connects upstream (within ``connectTimeoutMilliseconds``) and relays both ways until both ends are done.
    /// The caller closes `client`.
    func serve(_ client: Int32) {
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
            reply(client, "400 Bad Request", "expected CONNECT host:port or an absolute http:// URI")
            return
        }
        guard allows(host: request.host, port: request.port) else {
            logger.warning("plugin \(plugin): network refused \(request.host.prefix(100)):\(request.port) (not in its sandbox's network.allow)")
            reply(client, "403 Forbidden", "\(request.host.prefix(100)):\(request.port) is not in the plugin's sandbox network.allow")
            return
        }
        let upstream: Int32
        switch connect(host: request.host, port: request.port) {
        case .success(let socket):
            upstream = socket
        case .failure(let failure):
            reply(client, failure.status, failure.text)
            return
        }
        defer { untrack(upstream) }
        let rest = Array(head[end...])
        if request.tunnel {
            guard Self.send(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)), Self.send(upstream, rest) else { return }
        } else {
            guard Self.send(upstream, request.forwardedHead + rest) else { return }
        }
        sb_relay(client, upstream)
    }

    /// Why an upstream could not be reached, as the plugin is told.
    struct UpstreamFailure: Error {
        var status: String
        var text: String
    }

    /// A TCP connection from the host's namespace to `host:port`, the first address that answers within
    /// ``connectTimeoutMilliseconds`` (for all of them together); tracked, so ``stop()`` ends it.
    func connect(host: String, port: UInt16) -> Result<Int32, UpstreamFailure> {
        let name = "\(host.prefix(100)):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0 else {
            return .failure(UpstreamFailure(status: "502 Bad Gateway", text: "cannot resolve \(name): \(String(cString: gai_strerror(resolved)))"))
        }
        defer { freeaddrinfo(list) }
        let deadline = monotonicNanoseconds() + UInt64(Self.connectTimeoutMilliseconds) * 1_000_000
        var entry = list
        var cause = ECONNREFUSED
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(current.pointee.ai_family, current.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                            current.pointee.ai_protocol)
            guard fd >= 0 else {
                cause = errno
                continue
            }
            guard track(fd) else {
                close(fd)
                return .failure(UpstreamFailure(status: "502 Bad Gateway", text: "the plugin's run ended"))
            }
            cause = Self.finishConnect(fd, to: current.pointee.ai_addr, length: current.pointee.ai_addrlen, deadline: deadline)
            if cause == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 { return .success(fd) }
            untrack(fd)
            if cause == ETIMEDOUT { break }
        }
        if cause == ETIMEDOUT {
            logger.warning("plugin \(plugin): network: connecting to \(name) timed out after \(Self.connectTimeoutMilliseconds) ms")
            return .failure(UpstreamFailure(status: "504 Gateway Timeout", text: "connecting to \(name) timed out after \(Self.connectTimeoutMilliseconds) ms"))
        }
        return .failure(UpstreamFailure(status: "502 Bad Gateway", text: "cannot connect to \(name): \(String(cString: strerror(cause)))"))
    }

    /// Connects the non-blocking `fd`, waiting for it until `deadline`: 0, or the errno (ETIMEDOUT past it).
    private static func finishConnect(_ fd: Int32, to address: UnsafeMutablePointer<sockaddr>?, length: socklen_t, deadline: UInt64) -> Int32 {
        if Glibc.connect(fd, address, length) == 0 { return 0 }
        guard errno == EINPROGRESS || errno == EINTR else { return errno }
        while true {
            let now = monotonicNanoseconds()
            guard now < deadline else { return ETIMEDOUT }
            var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiter, 1, Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return ready == 0 ? ETIMEDOUT : errno }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else { return errno }
            return failure
        }
    }

    /// The index just past the blank line ending an HTTP head, if it arrived.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }
}
