import CatalogDomain
import Jansson
import JSONRPC
import MailDomain
import SwitchboardCore
import Synchronization
import Testing

/// `mail.import` and `catalog.import` store a batch of 500 at a time, each in a transaction of its
/// own. Stopped after a batch was stored, cancelled or failed, the answer says what stays stored: a
/// bare `-32800` would tell the client nothing was done.
@Suite("Imports stopped partway", .timeLimit(.minutes(5)))
struct ImportStoppedPartwayTests {
    @Test("mail.import cancelled while its second batch waits answers -32800 with the 500 records stored; importing again stores the rest")
    func cancelledMailImport() async throws {
        let gate = SecondBatchGate()
        let client = MailRPCClient(try mailDispatcher(GatedImportMail(InMemoryMailService(clock: mailTestClock, demoMessages: 0), gate: gate)))
        let records = JSONValue.array((0..<1_200).map { prototypeRecord(uid: "p\($0)") })
        let id = client.send("mail.import", ["records": records])
        await gate.untilReached()
        client.notify("$/cancelRequest", ["id": .integer(id)])
        gate.release()
        let response = try await client.response(to: id, answering: "mail.import")
        let error = try #require(response["error"], "\(response.jsonText())")
        #expect(error["code"] == -32800)
        #expect(error["message"]?.stringValue == "Request cancelled; the first 500 of 1200 records were done (each stored, or skipped as stored already or invalid); importing again does the rest")
        #expect(error["data"]?["done"] == 500 && error["data"]?["total"] == 1_200)
        let state = try #require(error["data"]?["state"]?.stringValue)
        // The state after the stored batch is the mail's state now: nothing else was stored.
        #expect(try await client.result("mail.import", ["records": []])["state"]?.stringValue == state)
        let again = try await client.result("mail.import", ["records": records])
        #expect(again["imported"] == 700 && again["skipped"] == 500)
    }

    @Test("catalog.import whose second batch fails answers that batch's error with the first 500 entries stored; nothing before it is lost")
    func failedCatalogImport() async throws {
        let client = try CatalogBackend.client(of: SecondBatchFails(InMemoryCatalogService(demo: false)))
        let document = JSONValue.object(["sectors": .array((1...600).map { backendSector(.integer(Int64($0)), name: "Sector \($0)") })])
        let error = try await client.error("catalog.import", ["document": document])
        #expect(error["code"] == -32050)
        #expect(error["message"]?.stringValue?.hasSuffix("; the first 500 of 600 sectors and brochures were done (each stored, or skipped as stored already or invalid); importing again does the rest") == true,
                "\(error)")
        #expect(error["data"]?["cause"] == "the disk went away" && error["data"]?["done"] == 500 && error["data"]?["total"] == 600)
        #expect(try await client.result("catalog.sectors")["items"]?.arrayValue?.count == 500)
    }

    @Test("catalog.import cancelled while its second batch's commit is of unknown outcome answers that storage error, not -32800, with the first 500 done")
    func cancelledDuringUnknownCommit() async throws {
        let gate = SecondBatchGate()
        let client = try CatalogBackend.client(of: UnknownSecondCommit(InMemoryCatalogService(demo: false), gate: gate))
        let document = JSONValue.object(["sectors": .array((1...600).map { backendSector(.integer(Int64($0)), name: "Sector \($0)") })])
        let id = client.send("catalog.import", ["document": document])
        await gate.untilReached()
        client.notify("$/cancelRequest", ["id": .integer(id)])
        gate.release()
        let response = try await client.response(to: id, answering: "catalog.import")
        let error = try #require(response["error"], "\(response.jsonText())")
        #expect(error["code"] == -32050, "\(error)")
        #expect(error["message"]?.stringValue?.contains("so the write may have been committed; the first 500 of 600 sectors and brochures were done") == true, "\(error)")
        #expect(error["data"]?["done"] == 500)
    }

    @Test("an import stopped in its first batch stored nothing and answers the plain error")
    func stoppedInFirstBatch() async throws {
        let client = try CatalogBackend.client(of: SecondBatchFails(InMemoryCatalogService(demo: false), failing: 1))
        let error = try await client.error("catalog.import", ["document": ["sectors": [backendSector(1)]]])
        #expect(error["code"] == -32050 && error["data"]?["done"] == nil, "\(error)")
    }
}

/// Holds the second `importMessages` call until ``release()``; it then throws if its task was
/// cancelled meanwhile, as a database write does.
private final class SecondBatchGate: Sendable {
    private let state = Mutex<(calls: Int, reached: Bool, open: Bool, reachedWaiters: [CheckedContinuation<Void, Never>],
                               held: [CheckedContinuation<Void, Never>])>((0, false, false, [], []))

    /// Whether the next ``enter()`` is the second call.
    func isSecond() -> Bool { state.withLock { $0.calls == 1 } }

    func enter() async throws {
        let second = state.withLock { state -> Bool in
            state.calls += 1
            return state.calls == 2
        }
        guard second else { return }
        await withCheckedContinuation { continuation in
            let (waiters, open) = state.withLock { state in
                state.reached = true
                if !state.open { state.held.append(continuation) }
                defer { state.reachedWaiters = [] }
                return (state.reachedWaiters, state.open)
            }
            waiters.forEach { $0.resume() }
            if open { continuation.resume() }
        }
        try Task.checkCancellation()
    }

    func untilReached() async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state in
                if !state.reached { state.reachedWaiters.append(continuation) }
                return state.reached
            }
            if reached { continuation.resume() }
        }
    }

    func release() {
        let held = state.withLock { state in
            state.open = true
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0.resume() }
    }
}

/// A mail whose imports pass ``SecondBatchGate``; every other call goes straight through.
private struct GatedImportMail: MailServiceWrapper {
    let base: any MailService
    let gate: SecondBatchGate

    init(_ base: any MailService, gate: SecondBatchGate) {
        self.base = base
        self.gate = gate
    }

    func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome {
        try await gate.enter()
        return try await base.importMessages(account: account, records)
    }
}

/// A catalog whose import batch number `failing` (the second by default) fails as a storage gone away.
private final class SecondBatchFails: CatalogServiceWrapper {
    let base: any CatalogService
    private let failing: Int
    private let calls = Atomic<Int>(0)

    init(_ base: any CatalogService, failing: Int = 2) {
        self.base = base
        self.failing = failing
    }

    func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> {
        if calls.add(1, ordering: .relaxed).newValue == failing {
            throw ServiceError.storageUnavailable(path: "catalog.sqlite", cause: "the disk went away")
        }
        return try await base.importBatch(batch)
    }
}

/// A catalog whose second import batch waits at ``SecondBatchGate`` and then fails as a commit of
/// unknown outcome (PostgreSQL's connection lost after `COMMIT` was sent), whether or not it was cancelled.
private struct UnknownSecondCommit: CatalogServiceWrapper {
    let base: any CatalogService
    let gate: SecondBatchGate

    init(_ base: any CatalogService, gate: SecondBatchGate) {
        self.base = base
        self.gate = gate
    }

    func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> {
        let second = gate.isSecond()
        try? await gate.enter()
        guard !second else {
            throw ServiceError.commitUnknown(path: "postgres://team@db/team",
                                             cause: "the connection was lost; the COMMIT had been sent, so the write may have been committed")
        }
        return try await base.importBatch(batch)
    }
}
