import Jansson
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The catalog against the built binary over real pipes, on both services: sectors in a locale's
/// order, pages, search, an import from an allowed folder, and the changes it made. Every answer is
/// checked against its schema by the harness.
@Suite("Binary: catalog", .offCooperativePool)
struct BinaryCatalogTests {
    typealias H = InputHygieneBinaryTests

    /// The sector names of a `catalog.sectors` answer.
    static func names(_ result: JSONValue) -> [String] { result["items"]?.strings("name") ?? [] }

    @Test("sectors in German and Swedish order, pages, search and an import, over the wire", arguments: ["memory", "sqlite"])
    func catalog(backend: String) throws {
        let folder = try H.temporaryFolder()
        defer { _ = system("rm -rf '\(folder)'") }
        let document = #"{"sectors":[{"id":3,"name":"Öl","url":null,"brochures":[{"id":-4,"title":"x"},{"id":9000,"title":"Cafe\u0301 Öl","retailerName":"Wärme","coverUrl":null}]}]}"#
        let file = fopen(folder + "/catalog.json", "wb")
        _ = document.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        fclose(file)
        let storage = backend == "memory" ? ["--backend", "memory"] : ["--db", folder + "/catalog.sqlite", "--feed-items", "10", "--mail-messages", "10"]
        let host = try SpawnedHost(arguments: storage + ["--allow-read", folder])

        let german = try H.result(host, 1, "catalog.sectors", #"{"locale":"de-DE"}"#)
        let swedish = try H.result(host, 2, "catalog.sectors", #"{"locale":"sv"}"#)
        #expect(Self.names(german).count == 12 && Self.names(german).first == "1-Euro-Shops")
        #expect(Self.names(german).firstIndex(of: "Öl & Heizung")! < Self.names(german).firstIndex(of: "Zoo & Tierbedarf")!)
        #expect(Self.names(swedish).suffix(3) == ["Åland-Reisen", "Ärzte & Apotheken", "Öl & Heizung"])
        let bad = try H.error(host, 3, "catalog.sectors", #"{"locale":"xx-YY"}"#)
        #expect(bad["code"] == -32602 && bad["data"]?["field"] == "locale")

        let page = try H.result(host, 4, "catalog.brochures", #"{"sectorId":3,"limit":2}"#)
        #expect(page["items"]?.arrayValue?.count == 2 && page["hasMore"] == true)
        let next = try H.result(host, 5, "catalog.brochures", JSONValue.object(["sectorId": 3, "cursor": page["nextCursor"]!]).jsonText())
        #expect(next["items"]?.arrayValue?.isEmpty == false)
        #expect(try H.error(host, 6, "catalog.get", #"{"id":5}"#)["code"] == -32004)

        let imported = try H.result(host, 7, "catalog.import", JSONValue.object(["path": .string(folder + "/catalog.json")]).jsonText())
        #expect(imported["errors"]?.strings("path") == ["$.sectors[0].brochures[0].id"])
        #expect(imported["sectors"]?["updated"] == 1 && imported["brochures"]?["created"] == 1)
        let hits = try H.result(host, 8, "catalog.search", #"{"query":"CAFÉ öl"}"#)
        #expect(hits["items"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [9000])
        let changes = try H.result(host, 9, "catalog.changes", JSONValue.object(["sinceState": german["state"]!]).jsonText())
        #expect(changes["updated"] == ["sector/3"] && changes["created"] == ["brochure/9000"])
        let outside = try H.error(host, 10, "catalog.import", #"{"path":"/etc/passwd"}"#)
        #expect(outside["data"]?["field"] == "path")
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }

    @Test("the host's locale comes from LC_ALL, LC_COLLATE or LANG as POSIX orders them, installed or not; a value that is no locale name is ignored, never a crash",
          arguments: [
              (["LANG": "sv_SE.UTF-8"], "sv-SE"),
              (["LC_ALL": "de_DE.UTF-8", "LANG": "sv_SE.UTF-8"], "de-DE"),
              (["LC_COLLATE": "sv_SE", "LANG": "de_DE"], "sv-SE"),
              (["LC_ALL": "aaaaaaaaaaaa"], nil),
              (["LANG": "x-aaaaaaaaaaaaaa", "LC_MESSAGES": "bbbbbbbbbbbbbbbbbbbb"], nil),
          ] as [([String: String], String?)])
    func hostLocale(environment: [String: String], expected: String?) throws {
        var variables: [String: String?] = ["LC_ALL": nil, "LC_COLLATE": nil, "LC_MESSAGES": nil, "LANG": nil]
        for (name, value) in environment { variables[name] = value }
        let host = try SpawnedHost(arguments: ["--backend", "memory"], environment: variables)
        // With a locale named in the request too: ICU's default locale is made from the environment all the same.
        let named = try H.result(host, 1, "catalog.sectors", #"{"locale":"de"}"#)
        #expect(named["locale"] == "de")
        let sectors = try H.result(host, 2, "catalog.sectors", "{}")
        if let expected { #expect(sectors["locale"] == .string(expected)) }
        host.closeInput()
        #expect(try host.waitForExit() == .exited(0))
    }
}
