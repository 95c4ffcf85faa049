import Jansson
import Testing

/// `mail.thread` a page at a time: at most `limit` messages and about 4 MB of text a page (but one
/// message always), oldest first, with a cursor of its own thread; the same on every backend.
extension MailMethodsTests {
    @Test("mail.thread pages a long conversation by limit and by bytes, every message once, in order; a cursor of another thread is -32602",
          arguments: MailBackend.allCases)
    func threadPages(backend: MailBackend) async throws {
        let client = MailRPCClient(try await Self.dispatcher(backend))
        // A conversation of 7 messages: one small, then 2 MB ones (a million two-byte characters), then small ones.
        let big = String(repeating: "é", count: 1_000_000)
        var uids: [String] = []
        for index in 0..<7 {
            var params: JSONObject = ["to": "ada@example.com", "subject": "Paging", "text": .string(1...3 ~= index ? big : "m\(index)")]
            if let last = uids.last { params["inReplyTo"] = .string(last) }
            uids.append(try #require(try await client.result("mail.send", .object(params))["message"]?["uid"]?.stringValue))
        }
        let threadId = JSONValue.string(uids[0])

        // By limit: 3, 3, 1.
        var pages: [[String]] = []
        var cursor: JSONValue = .null
        repeat {
            var params: JSONObject = ["threadId": threadId, "limit": 3]
            if cursor != .null { params["cursor"] = cursor }
            let page = try await client.result("mail.thread", .object(params))
            pages.append((page["messages"]?.arrayValue ?? []).compactMap { $0["uid"]?.stringValue })
            #expect(page["subject"] == "Paging")
            cursor = page["nextCursor"] ?? .null
        } while cursor != .null && pages.count < 10
        #expect(pages == [Array(uids[0..<3]), Array(uids[3..<6]), [uids[6]]])

        // By bytes (the default limit): the small one and two 2 MB messages (4,000,002 bytes, within 4 MiB);
        // the third would pass it, so the next page starts there.
        var sizes: [Int] = []
        cursor = .null
        repeat {
            var params: JSONObject = ["threadId": threadId]
            if cursor != .null { params["cursor"] = cursor }
            let page = try await client.result("mail.thread", .object(params))
            sizes.append(page["messages"]?.arrayValue?.count ?? 0)
            cursor = page["nextCursor"] ?? .null
        } while cursor != .null && sizes.count < 10
        #expect(sizes == [3, 4])

        // A cursor of another list or thread is refused naming cursor.
        let first = try await client.result("mail.thread", ["threadId": threadId, "limit": 1])
        let other = try #require(try await client.result("inbox.list", ["limit": 1])["items"]?.arrayValue?.first?["threadId"])
        let refused = try await client.error("mail.thread", ["threadId": other, "cursor": first["nextCursor"] ?? .null])
        #expect(refused["code"] == -32602 && refused["data"]?["field"] == "cursor", "\(refused)")
        #expect(try await client.error("mail.thread", ["threadId": threadId, "limit": 0])["data"]?["field"] == "limit")
    }

    @Test("mail.thread: messages of one time come in the order stored, and one stored between two pages comes on a later page (s10 sorts before s2 as text)",
          arguments: MailBackend.allCases)
    func threadTiesByArrival(backend: MailBackend) async throws {
        let client = MailRPCClient(try await Self.dispatcher(backend))
        // The test clock is fixed: every send has the same time.
        func send(after parent: String?) async throws -> String {
            var params: JSONObject = ["to": "ada@example.com", "subject": "Ties", "text": "t"]
            if let parent { params["inReplyTo"] = .string(parent) }
            return try #require(try await client.result("mail.send", .object(params))["message"]?["uid"]?.stringValue)
        }
        var sent = [try await send(after: nil)]
        for _ in 0..<8 { sent.append(try await send(after: sent[sent.count - 1])) }
        let threadId = JSONValue.string(sent[0])
        let first = try await client.result("mail.thread", ["threadId": threadId, "limit": 5])
        var paged = (first["messages"]?.arrayValue ?? []).compactMap { $0["uid"]?.stringValue }
        for _ in 0..<3 { sent.append(try await send(after: sent[sent.count - 1])) }
        var cursor = first["nextCursor"] ?? .null
        #expect(cursor != .null, "more were stored since")
        while cursor != .null, paged.count < 100 {
            let page = try await client.result("mail.thread", ["threadId": threadId, "limit": 9, "cursor": cursor])
            paged += (page["messages"]?.arrayValue ?? []).compactMap { $0["uid"]?.stringValue }
            cursor = page["nextCursor"] ?? .null
        }
        #expect(paged == sent, "every message once, in the order sent")
    }
}
