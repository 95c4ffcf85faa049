import CatalogDomain
import Jansson
import JSONRPC
import SchemaTesting
import SwitchboardCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `catalog.import`: the backend format, invalid items reported by JSON path, re-imports that
/// update, and files confined like `mail.import`'s.
@Suite("Catalog import", .postgresStores)
struct CatalogImportTests {
    /// A fresh allowed folder with a good catalog file, and a folder outside it with one too.
    final class Folders {
        let base: String
        var allowed: String { base + "/allowed" }
        var outside: String { base + "/outside" }

        init() throws {
            base = try TestScratch.folder("catalog")
            mkdir(allowed, 0o755)
            mkdir(outside, 0o755)
            let document = JSONValue.object(["sectors": [backendSector(1, name: "Öl", brochures: [backendBrochure(10)])]]).jsonText()
            write(document, to: allowed + "/catalog.json")
            write(document, to: outside + "/catalog.json")
        }

        deinit { _ = system("rm -rf '\(base)'") }

        func write(_ text: String, to path: String) {
            let file = fopen(path, "wb")
            _ = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
            fclose(file)
        }

        func client(_ backend: CatalogBackend) async throws -> MailRPCClient {
            try await backend.client(demo: false, readRoots: try ReadRoots(resolving: [allowed]))
        }
    }

    /// The `path` of every error of an import answer.
    static func paths(_ outcome: JSONValue) -> [String] {
        outcome["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
    }

    @Test("negative, missing and non-integer ids are reported by JSON path and reason; the rest is kept", arguments: CatalogBackend.available)
    func invalidIDs(backend: CatalogBackend) async throws {
        let client = try await backend.client(demo: false)
        let document: JSONValue = ["sectors": [
            backendSector(1, name: "Lebensmittel", brochures: [backendBrochure(10), backendBrochure(-3), backendBrochure(11)]),
            backendSector(-1, name: "Negativ", brochures: [backendBrochure(20), backendBrochure(21)]),
            ["name": "Ohne Id", "brochures": [backendBrochure(30)]],
            backendSector(2, name: "Möbel", brochures: [["title": "no id"], backendBrochure("12"), backendBrochure(1.5), backendBrochure(12), 7]),
            "not a sector",
            backendSector(3, name: "Leer"),
        ]]
        let outcome = try await client.result("catalog.import", ["document": document])
        #expect(Self.paths(outcome) == ["$.sectors[0].brochures[1].id", "$.sectors[1].id", "$.sectors[2].id", "$.sectors[3].brochures[0].id",
                                        "$.sectors[3].brochures[1].id", "$.sectors[3].brochures[2].id", "$.sectors[3].brochures[4]", "$.sectors[4]"])
        let reasons = outcome["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        #expect(reasons[0] == "a negative id is invalid, got -3")
        #expect(reasons[1] == "a negative id is invalid, got -1; its 2 brochures were not imported")
        #expect(reasons[2] == "missing: a sector needs a non-negative integer id; its 1 brochure was not imported")
        #expect(reasons[3] == "missing: a brochure needs a non-negative integer id")
        // The bad value is named by its type, never quoted: the document may be a file's.
        #expect(reasons[4] == "expected a non-negative integer id, got a string")
        #expect(reasons[5].hasPrefix("expected a non-negative integer id, got a number"))
        #expect(outcome["invalid"] == 8)
        #expect(outcome["sectors"] == ["created": 3, "updated": 0, "unchanged": 0])
        #expect(outcome["brochures"] == ["created": 3, "updated": 0, "unchanged": 0])
        let sectors = try await client.result("catalog.sectors", ["locale": "de"])
        // Lebensmittel, Leer, Möbel.
        #expect(sectors["items"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [1, 3, 2])
        #expect(sectors["items"]?.arrayValue?.compactMap { $0["brochureCount"]?.int64Value } == [2, 0, 1])
    }

    @Test("members of the wrong type, duplicates and too long text are invalid by their path; null urls are kept as null",
          arguments: CatalogBackend.available)
    func otherProblems(backend: CatalogBackend) async throws {
        let client = try await backend.client(demo: false)
        let document: JSONValue = ["sectors": [
            backendSector(1, name: "A", url: "https://x.example/a.png", brochures: [backendBrochure(10, cover: 5), backendBrochure(11)]),
            ["id": 2, "name": 3],
            backendSector(5, name: "B", brochures: [backendBrochure(11), backendBrochure(12, title: String(repeating: "t", count: 1_001))]),
            ["id": 4, "name": "C", "brochures": "none"],
        ]]
        let outcome = try await client.result("catalog.import", ["document": document])
        #expect(Self.paths(outcome) == ["$.sectors[0].brochures[0].coverUrl", "$.sectors[1].name",
                                        "$.sectors[2].brochures[0].id", "$.sectors[2].brochures[1].title", "$.sectors[3].brochures"])
        let reasons = outcome["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        #expect(reasons[2] == "brochure id 11 appears before, at $.sectors[0].brochures[1]; this one is ignored")
        let sectors = try await client.result("catalog.sectors", ["locale": "de"])
        #expect(outcome["invalid"] == 5)
        #expect(sectors["items"] == [["id": 1, "name": "A", "imageUrl": "https://x.example/a.png", "brochureCount": 1],
                                     ["id": 5, "name": "B", "imageUrl": nil, "brochureCount": 0],
                                     ["id": 4, "name": "C", "imageUrl": nil, "brochureCount": 0]])
    }

    @Test("a repeated sector is ignored with its brochures, and says so; a sector without a name is invalid", arguments: CatalogBackend.available)
    func repeatedAndNamelessSectors(backend: CatalogBackend) async throws {
        let client = try await backend.client(demo: false)
        let document: JSONValue = ["sectors": [
            backendSector(1, name: "A", brochures: [backendBrochure(10)]),
            backendSector(1, name: "A again", brochures: [backendBrochure(11), backendBrochure(12)]),
            ["id": 2, "brochures": [backendBrochure(20)]],
            backendSector(3, name: " \t "),
            ["id": 4, "name": nil],
        ]]
        let outcome = try await client.result("catalog.import", ["document": document])
        #expect(Self.paths(outcome) == ["$.sectors[1].id", "$.sectors[2].name", "$.sectors[3].name", "$.sectors[4].name"])
        let reasons = outcome["errors"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        #expect(reasons == ["sector id 1 appears before, at $.sectors[0]; this one is ignored; its 2 brochures were not imported",
                            "missing: a sector needs a name; its 1 brochure was not imported",
                            "a sector needs a name that is not blank",
                            "missing: a sector needs a name"])
        #expect(outcome["invalid"] == 4)
        #expect(outcome["sectors"] == ["created": 1, "updated": 0, "unchanged": 0])
        #expect(outcome["brochures"] == ["created": 1, "updated": 0, "unchanged": 0])
        let sectors = try await client.result("catalog.sectors", ["locale": "de"])
        #expect(sectors["items"] == [["id": 1, "name": "A", "imageUrl": nil, "brochureCount": 1]])
        let brochures = try await client.result("catalog.brochures", ["sectorId": 1])
        #expect(brochures["items"]?.arrayValue?.compactMap { $0["id"]?.int64Value } == [10])
    }

    @Test("importing twice updates nothing; a changed document updates what changed", arguments: CatalogBackend.available)
    func reimport(backend: CatalogBackend) async throws {
        let client = try await backend.client()
        let document: JSONValue = ["sectors": [backendSector(100, name: "Neu", brochures: [backendBrochure(9_000), backendBrochure(9_001)])]]
        let first = try await client.result("catalog.import", ["document": document])
        #expect(first["sectors"]?["created"] == 1 && first["brochures"]?["created"] == 2)
        let second = try await client.result("catalog.import", ["document": document])
        #expect(second["sectors"] == ["created": 0, "updated": 0, "unchanged": 1])
        #expect(second["brochures"] == ["created": 0, "updated": 0, "unchanged": 2])
        #expect(second["state"] == first["state"])
        let changed: JSONValue = ["sectors": [backendSector(100, name: "Neu", brochures: [backendBrochure(9_000, title: "Anders"), backendBrochure(9_001)])]]
        let third = try await client.result("catalog.import", ["document": changed])
        #expect(third["brochures"] == ["created": 0, "updated": 1, "unchanged": 1])
        let all = try await client.result("catalog.brochures", ["sectorId": 100])
        #expect(all["items"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Anders", "Title"])
        let changes = try await client.result("catalog.changes", ["sinceState": try #require(second["state"])])
        #expect(changes["updated"] == ["brochure/9000"] && changes["created"] == [])
    }

    @Test("a large import goes in batches, with $/progress after each when asked", arguments: CatalogBackend.available)
    func batchesAndProgress(backend: CatalogBackend) async throws {
        let client = try await backend.client(demo: false)
        let brochures = (0..<1_200).map { backendBrochure(.integer(Int64($0))) }
        let document: JSONValue = ["sectors": [backendSector(1, brochures: brochures)]]
        let outcome = try await client.result("catalog.import", ["document": document], progressToken: "imp")
        #expect(outcome["brochures"]?["created"] == 1_200)
        let done = client.notifications.filter { $0["method"] == "$/progress" }.compactMap { $0["params"]?["value"]?["done"]?.int64Value }
        #expect(done == [500, 1_000, 1_201])
    }

    @Test("a file inside the allowed folder imports; outside, every path gets the one refusal mail.import gives", arguments: CatalogBackend.available)
    func fileAccess(backend: CatalogBackend) async throws {
        let folders = try Folders()
        let client = try await folders.client(backend)
        let inside = try await client.result("catalog.import", ["path": .string(folders.allowed + "/catalog.json")])
        #expect(inside["sectors"]?["created"] == 1 && inside["brochures"]?["created"] == 1)
        symlink(folders.outside + "/catalog.json", folders.allowed + "/link.json")
        for path in [folders.outside + "/catalog.json", folders.outside + "/missing.json", folders.allowed + "/../outside/catalog.json",
                     folders.allowed + "/link.json", "/etc/passwd", "/proc/self/environ"] {
            let error = try await client.error("catalog.import", ["path": .string(path)])
            #expect(error["code"] == -32602 && error["data"]?["field"] == "path", "\(path)")
            #expect(error["data"]?["expected"] == "a file inside the folders this host lets requests read (--allow-read)", "\(path)")
        }
    }

    @Test("inside the folder the reason is given, without quoting the file; a NUL in the file is reported by path",
          arguments: CatalogBackend.available)
    func reasonsInside(backend: CatalogBackend) async throws {
        let folders = try Folders()
        let client = try await folders.client(backend)
        folders.write("{\"sectors\": [\n  {\"id\": secret-token}]}", to: folders.allowed + "/broken.json")
        folders.write("{\"inbox\": []}", to: folders.allowed + "/inbox.json")
        folders.write(#"{"sectors":[{"id":1,"name":"a\u0000b"}]}"#, to: folders.allowed + "/nul.json")
        let cases: [(String, String)] = [
            (folders.allowed + "/missing.json", "a readable file (no such file)"),
            (folders.allowed + "/broken.json", "a JSON file (not valid JSON: invalid syntax at line 2, column "),
            (folders.allowed + "/inbox.json", "a JSON file of the form {\"sectors\": [...]}"),
        ]
        for (path, expected) in cases {
            let error = try await client.error("catalog.import", ["path": .string(path)])
            #expect(error["data"]?["field"] == "path" && error["data"]?["expected"]?.stringValue?.hasPrefix(expected) == true, "\(path): \(error)")
            #expect(error.jsonText().contains("secret-token") == false)
        }
        let nul = try await client.result("catalog.import", ["path": .string(folders.allowed + "/nul.json")])
        #expect(Self.paths(nul) == ["$.sectors[0].name"])
    }

    @Test("exactly one of path and document; document is an object with sectors", arguments: CatalogBackend.available)
    func oneSource(backend: CatalogBackend) async throws {
        let client = try await backend.client(demo: false)
        let both = try await client.error("catalog.import", ["path": "x.json", "document": ["sectors": []]])
        #expect(both["data"]?["expected"] == "exactly one of path and document" && both["data"]?["got"] == "both")
        #expect(try await client.error("catalog.import", [:])["data"]?["got"] == "neither")
        for document: JSONValue in [["sectors": ["a": 1]], ["inbox": []], [:]] {
            #expect(try await client.error("catalog.import", ["document": document])["data"]?["field"] == "document")
        }
        #expect(try await client.error("catalog.import", ["document": []])["code"] == -32602)
        let empty = try await client.result("catalog.import", ["document": ["sectors": []]])
        #expect(empty["invalid"] == 0 && empty["state"]?.stringValue?.hasPrefix("catalog-") == true)
    }
}
