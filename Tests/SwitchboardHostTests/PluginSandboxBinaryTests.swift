#if canImport(Glibc)
import Glibc
#endif
import Jansson
import SchemaTesting
import Testing

/// Plugins run confined by default (issue 24): the `jail` fixture tries to read a secret under the host's
/// `HOME`, write outside its folders, connect to a TCP listener of the test's, fork past its process limit
/// and allocate past its address space; each is refused while what its policy allows works. Also: the
/// path of a kernel without Landlock (forced by the test-only `SWITCHBOARD_TEST_NO_LANDLOCK=1`), the escape
/// hatches, and `--plugin-sandbox`.
@Suite("Plugin sandbox (binary)", .serialized, .offCooperativePool)
struct PluginSandboxBinaryTests {
    typealias H = BinaryHarness

    static let fixtures: String = {
        let file = #filePath
        return String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]) + "/Fixtures/sandbox"
    }()

    /// A temporary home holding a secret (`~/.ssh/id_secret`) and a folder the jail's policy allows (`~/allowed`).
    struct Home {
        let path: String
        let data: String
        let secret: String
        let allowed: String

        init() throws {
            let root = try H.temporaryFolder("sandbox-home")
            path = root + "/home"
            data = root + "/data"
            secret = path + "/.ssh/id_secret"
            allowed = path + "/allowed/note.txt"
            for folder in [path, path + "/.ssh", path + "/allowed", data] { mkdir(folder, 0o700) }
            try PluginShippedTests.write("PRIVATE KEY\n", to: secret, mode: 0o600)
            try PluginShippedTests.write("allowed note\n", to: allowed, mode: 0o600)
        }

        var environment: [String: String?] {
            ["HOME": path, "XDG_DATA_HOME": data, "XDG_CONFIG_HOME": path + "/.config", "SWITCHBOARD_TEST_NO_LANDLOCK": nil]
        }
    }

    /// A TCP listener on 127.0.0.1 (a free port), non-blocking.
    final class Listener {
        let fd: Int32
        let port: Int

        init(backlog: Int32 = 16) throws {
            let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) } }
            guard socketFD >= 0, bound == 0, listen(socketFD, backlog) == 0 else { throw H.Failure("cannot listen on 127.0.0.1") }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) } }
            fd = socketFD
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        /// Waits for one connection, reads its request head, answers `answer` and closes; returns the head.
        func serveOne(answer: String) throws -> String {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(H.answerTimeout)) == 1 else { throw H.Failure("no connection reached the listener") }
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { throw H.Failure("accept failed") }
            defer { close(connection) }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                var reader = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard poll(&reader, 1, Int32(H.answerTimeout)) == 1 else { throw H.Failure("the request did not arrive") }
                let count = Glibc.read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                head += buffer[..<count]
            }
            _ = Array(answer.utf8).withUnsafeBytes { Glibc.write(connection, $0.baseAddress, $0.count) }
            return String(decoding: head, as: UTF8.self)
        }

        /// A connection that already arrived (the plugin answered after its connect returned), if any.
        func acceptArrived() -> Bool {
            let connection = accept(fd, nil, nil)
            if connection >= 0 { close(connection) }
            return connection >= 0
        }

        deinit { close(fd) }
    }

    static func call(_ host: SpawnedHost, _ id: Int, _ method: String, _ params: String = "{}") throws -> JSONValue {
        try PluginBinaryTests.call(host, id, method, params)
    }

    /// The jail's answer to one tool (its structuredContent).
    static func jail(_ host: SpawnedHost, _ id: Int, _ tool: String, _ arguments: String = "{}") throws -> JSONValue {
        let answer = try call(host, id, "jail." + tool, arguments)
        return try #require(answer["result"], "\(answer)")
    }

    static func item(_ host: SpawnedHost, _ id: Int, _ name: String) throws -> JSONValue {
        let items = try call(host, id, "plugins.list")["result"]?["items"]?.arrayValue ?? []
        return try #require(items.first { $0["name"] == .string(name) })
    }

    static func host(_ home: Home, _ extra: [String] = [], environment: [String: String?] = [:]) throws -> SpawnedHost {
        try SpawnedHost(arguments: ["serve", "--plugins", fixtures, "--backend", "memory", "--plugin-grace", "500"] + extra,
                        environment: home.environment.merging(environment) { _, given in given })
    }

    static func json(_ text: String) -> String { JSONValue.string(text).jsonText() }

    @Test("Confined by default: the secret, a write outside, a TCP connect, forks and memory past the limits are refused; the allowed read and writes work")
    func jailIsConfined() throws {
        let home = try Home()
        let listener = try Listener()
        let host = try Self.host(home)

        let secret = try Self.jail(host, 1, "read", #"{"path":\#(Self.json(home.secret))}"#)
        #expect(secret["ok"] == false && secret["error"] == "EACCES", "\(secret)")
        let note = try Self.jail(host, 2, "read", #"{"path":\#(Self.json(home.allowed))}"#)
        #expect(note["ok"] == true && note["text"] == "allowed note\n", "\(note)")

        let outside = home.path + "/planted.txt"
        let planted = try Self.jail(host, 3, "write", #"{"path":\#(Self.json(outside)),"text":"x"}"#)
        #expect(planted["ok"] == false && planted["error"] == "EACCES", "\(planted)")
        #expect(access(outside, F_OK) != 0)
        let dataFile = home.data + "/switchboard/plugins/jail/kept.txt"
        #expect(try Self.jail(host, 4, "write", #"{"path":\#(Self.json(dataFile)),"text":"kept"}"#)["ok"] == true)
        #expect(try RegularFileText.read(dataFile) == "kept")

        // Its HOME and TMPDIR are a private temporary folder, writable; not the user's home.
        let env = try Self.jail(host, 5, "env")["env"]
        let privateHome = try #require(env?["HOME"]?.stringValue)
        #expect(privateHome != home.path && env?["TMPDIR"]?.stringValue == privateHome, "\(String(describing: env))")
        #expect(env?["XDG_DATA_HOME"]?.stringValue == home.data + "/switchboard/plugins/jail")
        #expect(try Self.jail(host, 6, "write", #"{"path":\#(Self.json(privateHome + "/scratch")),"text":"t"}"#)["ok"] == true)

        let connected = try Self.jail(host, 7, "connect", #"{"host":"127.0.0.1","port":\#(listener.port)}"#)
        #expect(connected["ok"] == false, "\(connected)")
        #expect(!listener.acceptArrived(), "the plugin reached the test's listener")

        #expect(try Self.jail(host, 8, "allocate", #"{"mb":16}"#)["ok"] == true)
        let tooBig = try Self.jail(host, 9, "allocate", #"{"mb":1024}"#)
        #expect(tooBig["ok"] == false && tooBig["error"] == "MemoryError", "\(tooBig)")

        let item = try Self.item(host, 10, "jail")
        let sandbox = try #require(item["sandbox"]?.objectValue, "\(item)")
        #expect(sandbox["enforced"] == true)
        #expect((sandbox["landlockAbi"]?.int64Value ?? 0) >= 1)
        #expect(sandbox["read"]?.arrayValue?.contains(.string(home.path + "/allowed")) == true)
        #expect(sandbox["read"]?.arrayValue?.contains(.string(home.path)) == false)
        #expect(sandbox["write"]?.arrayValue?.contains(.string(privateHome)) == true)
        #expect(sandbox["missing"] == ["~/no-such-folder"])
        #expect(sandbox["network"] == false)
        #expect(sandbox["limits"]?["addressSpaceMB"] == 512 && sandbox["limits"]?["openFiles"] == 64 && sandbox["limits"]?["coreDumps"] == false)

        // Processes: a pids cgroup of its own where the host can make one (root included), else RLIMIT_NPROC
        // counting its own processes in its user namespace; root is exempt from that, and plugins.list says so
        // instead of showing a limit that does not hold (PluginProcessCgroupBinaryTests).
        let forked = try Self.jail(host, 11, "fork", #"{"count":40}"#)
        if sandbox["limits"]?["processesBy"] == nil {
            #expect(getuid() == 0 && sandbox["limits"]?["processes"] == nil)
            #expect(sandbox["notes"]?.arrayValue?.contains { $0.stringValue?.contains("exempts root") == true } == true, "\(sandbox)")
            #expect(forked["forked"] == 40)
        } else {
            #expect(sandbox["limits"]?["processes"] == 16)
            #expect(forked["ok"] == false && forked["error"] == "EAGAIN" && (forked["forked"]?.int64Value ?? 99) < 16, "\(forked)")
        }
        let status = try #require(try Self.call(host, 12, "host.status")["result"]?["sandbox"])
        #expect(status["available"] == true && status["landlockAbi"] == sandbox["landlockAbi"], "\(status)")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("The root in disguise grants nothing: --mcp-config args and env of /., // and /tmp/.., and a manifest cwd that climbs out of its folder; the secret stays out of reach")
    func rootInDisguise() throws {
        let home = try Home()
        let folder = try H.temporaryFolder("sandbox-root")
        let jail = Self.fixtures + "/jail/jail.py"
        let config = folder + "/mcp.json"
        try PluginShippedTests.write(#"{"mcpServers":{"jail":{"command":"python3","args":[\#(Self.json(jail)),"/.","//"],"env":{"ROOTDIR":"/tmp/.."}}}}"#,
                                     to: config, mode: 0o600)
        let plugins = folder + "/plugins"
        for made in [plugins, plugins + "/climb"] { mkdir(made, 0o700) }
        try PluginShippedTests.write(try RegularFileText.read(jail), to: plugins + "/climb/jail.py", mode: 0o600)
        try PluginShippedTests.write(#"{"name":"climb","version":"1","namespace":"climb","command":["python3",\#(Self.json(plugins + "/climb/jail.py"))],"cwd":"../../../../../../../../.."}"#,
                                     to: plugins + "/climb/plugin.json", mode: 0o600)
        let host = try SpawnedHost(arguments: ["serve", "--mcp-config", config, "--plugins", plugins, "--backend", "memory", "--plugin-grace", "500"],
                                   environment: home.environment)
        for (id, namespace) in [(1, "jail"), (2, "climb")] {
            let answer = try Self.call(host, id, namespace + ".read", #"{"path":\#(Self.json(home.secret))}"#)
            let secret = try #require(answer["result"], "\(namespace): \(answer)")
            #expect(secret["ok"] == false && secret["error"] == "EACCES", "\(namespace): \(secret)")
        }
        for (id, name) in [(3, "jail"), (4, "climb")] {
            let sandbox = try #require(try Self.item(host, id, name)["sandbox"]?.objectValue)
            let granted = (sandbox["read"]?.arrayValue ?? []) + (sandbox["write"]?.arrayValue ?? [])
            #expect(!granted.contains { ["/", "/.", "//", "/tmp/.."].contains($0.stringValue ?? "") }, "\(name): \(sandbox)")
        }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("network false: in its own network namespace where the kernel allows one, else Landlock's TCP rules with UDP said not covered")
    func networkFalseSaysHowItIsHeld() throws {
        let home = try Home()
        let host = try Self.host(home)
        _ = try Self.jail(host, 1, "env")
        let item = try Self.item(host, 2, "jail")
        let status = try Self.call(host, 3, "host.status")
        let flag: Bool? = status["result"]?["sandbox"]?["networkNamespaces"]?.boolValue
        let namespaces = try #require(flag as Bool?)
        if namespaces {
            #expect(item["sandbox"]?["networkEnforcement"] == "namespace", "\(item)")
        } else {
            #expect(item["sandbox"]?["networkEnforcement"] == "landlockTcp", "\(item)")
            #expect(item["sandbox"]?["notes"]?.arrayValue?.contains { $0.stringValue?.contains("UDP is not covered") == true } == true)
        }
    }

    @Test("network.allow by name: the plugin's only way out is the host's proxy, which lets it reach an allowed host:port and refuses another name with a logged line")
    func allowListThroughTheProxy() throws {
        let home = try Home()
        let listener = try Listener()
        let file = home.path + "/jail-sandbox.json"
        try PluginShippedTests.write(#"{"network": {"allow": ["127.0.0.1:\#(listener.port)"]}}"#, to: file, mode: 0o600)
        let host = try Self.host(home, ["--plugin-sandbox", "jail=\(file)"])
        let sandbox = try Self.item(host, 1, "jail")["sandbox"]
        #expect(sandbox?["network"] == ["allow": [.string("127.0.0.1:\(listener.port)")]], "\(String(describing: sandbox))")
        let namespaces = try Self.call(host, 2, "host.status")["result"]?["sandbox"]?["networkNamespaces"] == true

        // The allowed name: the request reaches the test's listener through the proxy, the answer comes back.
        try host.send(H.request(3, "jail.fetch", #"{"url":"http://127.0.0.1:\#(listener.port)/forecast"}"#))
        let request = try listener.serveOne(answer: "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nsunny")
        #expect(request.hasPrefix("GET /forecast HTTP/1.1\r\n"), "\(request)")
        let fetched = try #require(try host.response(to: 3).response["result"])
        #expect(fetched["ok"] == true && fetched["text"] == "sunny", "\(fetched)")
        // The override replaced the whole policy: the manifest's ~/allowed is not readable now, the secret still is not.
        #expect(try Self.jail(host, 4, "read", #"{"path":\#(Self.json(home.allowed))}"#)["error"] == "EACCES")
        #expect(try Self.jail(host, 5, "read", #"{"path":\#(Self.json(home.secret))}"#)["error"] == "EACCES")
        guard namespaces else {
            // Without network namespaces only the ports are checked (Landlock): said in the notes.
            #expect(try Self.item(host, 6, "jail")["sandbox"]?["networkEnforcement"] == "landlockTcpPorts")
            return
        }
        #expect(try Self.item(host, 6, "jail")["sandbox"]?["networkEnforcement"] == "proxy")
        // A name outside the list: refused by the proxy (403), with a line naming the plugin and the host.
        let refused = try Self.jail(host, 7, "fetch", #"{"url":"http://elsewhere.example:\#(listener.port)/"}"#)
        #expect(refused["ok"] == false && refused["error"] == "HTTP 403", "\(refused)")
        // Around the proxy: its namespace has only loopback, so the listener is out of reach.
        #expect(try Self.jail(host, 8, "connect", #"{"host":"127.0.0.1","port":\#(listener.port)}"#)["ok"] == false)
        #expect(!listener.acceptArrived(), "the plugin reached the listener around the proxy")
        host.closeInput()
        _ = try host.waitForExit()
        #expect(host.stderrText.contains("plugin jail: network refused elsewhere.example:\(listener.port)"), "\(host.stderrText)")
    }

    @Test("A sandbox file that is not a sandbox makes the plugin invalid, naming the member")
    func badOverrideIsInvalid() throws {
        let home = try Home()
        let file = home.path + "/bad.json"
        try PluginShippedTests.write(#"{"network": {"allow": ["no-port"]}}"#, to: file, mode: 0o600)
        let host = try Self.host(home, ["--plugin-sandbox", "jail=\(file)"])
        let item = try Self.item(host, 1, "jail")
        #expect(item["state"] == "invalid")
        #expect(item["lastError"]?.stringValue?.contains("sandbox.network.allow[0]") == true, "\(item)")
    }

    @Test("--unconfined-plugin runs it as today: it reads the secret, plugins.list shows sandbox null, stderr warns")
    func unconfinedPlugin() throws {
        let home = try Home()
        let host = try Self.host(home, ["--unconfined-plugin", "jail"])
        #expect(try Self.jail(host, 1, "read", #"{"path":\#(Self.json(home.secret))}"#)["text"] == "PRIVATE KEY\n")
        #expect(try Self.item(host, 2, "jail")["sandbox"] == .null)
        host.closeInput()
        _ = try host.waitForExit()
        #expect(host.stderrText.contains("plugin jail runs UNCONFINED"))
    }

    @Test("Without Landlock (forced off): a plugin with a policy fails with sandboxUnavailable naming the kernel; --allow-unconfined-plugins runs it unconfined")
    func landlockUnavailable() throws {
        let home = try Home()
        let host = try Self.host(home, environment: ["SWITCHBOARD_TEST_NO_LANDLOCK": "1"])
        let refused = try Self.call(host, 1, "jail.env")
        #expect(refused["error"]?["code"] == -32070)
        #expect(refused["error"]?["data"]?["reason"] == "sandboxUnavailable", "\(refused)")
        let kernel = try #require(try Self.call(host, 2, "host.status")["result"]?["sandbox"])
        #expect(kernel["available"] == false && kernel["landlockAbi"] == nil)
        let release = try #require(kernel["kernel"]?.stringValue)
        #expect(refused["error"]?["data"]?["kernel"] == .string(release))
        #expect(refused["error"]?["message"]?.stringValue?.contains(release) == true)
        let item = try Self.item(host, 3, "jail")
        #expect(item["state"] == "failed" && item["sandbox"]?["enforced"] == false, "\(item)")
        // Failed, not retried: the next call answers the same without starting it.
        #expect(try Self.call(host, 4, "jail.env")["error"]?["data"]?["reason"] == "sandboxUnavailable")
        #expect(try Self.item(host, 5, "jail")["pid"] == nil)

        let allowed = try Self.host(home, ["--allow-unconfined-plugins"], environment: ["SWITCHBOARD_TEST_NO_LANDLOCK": "1"])
        #expect(try Self.jail(allowed, 1, "read", #"{"path":\#(Self.json(home.secret))}"#)["text"] == "PRIVATE KEY\n")
        let unconfined = try Self.item(allowed, 2, "jail")["sandbox"]
        #expect(unconfined?["enforced"] == false, "\(String(describing: unconfined))")
        allowed.closeInput()
        _ = try allowed.waitForExit()
        #expect(allowed.stderrText.contains("plugin jail runs UNCONFINED"))
    }

    @Test("A step of the confinement that fails between fork and exec fails the plugin with sandboxFailed, naming the step; it never runs unconfined")
    func confinementFailureIsReported() throws {
        let home = try Home()
        let file = home.path + "/many-files.json"
        // More open files than the kernel's nr_open (1048576 by default): setrlimit fails in the child.
        try PluginShippedTests.write(#"{"read": ["~/allowed"], "limits": {"openFiles": 16000000}}"#, to: file, mode: 0o600)
        let host = try Self.host(home, ["--plugin-sandbox", "jail=\(file)"])
        let failed = try Self.call(host, 1, "jail.env")
        #expect(failed["error"]?["data"]?["reason"] == "sandboxFailed", "\(failed)")
        #expect(failed["error"]?["message"]?.stringValue?.contains("setrlimit failed") == true)
        #expect(try Self.item(host, 2, "jail")["state"] == "failed")
    }

    @Test("The shipped weather and words plugins answer under the default sandbox")
    func shippedPluginsRunConfined() throws {
        let home = try Home()
        // The weather plugin offline (its synthetic forecasts): the tests have no internet, and its allow-list's
        // proxy is tested apart.
        let host = try SpawnedHost(arguments: ["serve", "--plugins", PluginShippedTests.repository + "/Plugins", "--backend", "memory"],
                                   environment: home.environment.merging(["WEATHER_OFFLINE": "1"]) { _, new in new })
        #expect(try Self.call(host, 1, "words.count", #"{"text":"a b"}"#)["result"]?["words"] == 2)
        let weather = try Self.call(host, 2, "weather.forecast", #"{"date":"2026-11-22","place":"Berlin"}"#)
        #expect(weather["result"] != nil, "\(weather)")
        for (id, name) in [(3, "words"), (4, "weather")] {
            let sandbox = try Self.item(host, id, name)["sandbox"]
            #expect(sandbox?["enforced"] == true, "\(name): \(String(describing: sandbox))")
        }
    }
}

/// A small file's text, for the tests' checks.
enum RegularFileText {
    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BinaryHarness.Failure("cannot read \(path)") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let count = Glibc.read(fd, &bytes, bytes.count)
        guard count >= 0 else { throw BinaryHarness.Failure("cannot read \(path)") }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
