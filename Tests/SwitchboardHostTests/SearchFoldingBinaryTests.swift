import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Search folds Unicode, against the binary on both services (issue 6, point 14).
@Suite("Search folding, against the binary", .offCooperativePool)
struct SearchFoldingBinaryTests {
    typealias H = InputHygieneBinaryTests

    @Test("a decomposed cafe\\u0301 finds \"Café\" over the wire", arguments: ["memory", "sqlite"])
    func unicodeSearch(backend: String) throws {
        let folder = try H.temporaryFolder()
        defer { _ = system("rm -rf '\(folder)'") }
        let host = try H.host(backend, folder: folder)
        let sent = try H.result(host, 1, "mail.send", #"{"to":"ann@example.com","subject":"Café on Friday","text":"t"}"#)
        let uid = try #require(sent["message"]?["uid"]?.stringValue)
        let hits = try H.result(host, 2, "mail.search", #"{"query":"cafe\u0301"}"#)
        #expect(hits["items"]?.strings("uid").contains(uid) == true, "\(hits)")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
