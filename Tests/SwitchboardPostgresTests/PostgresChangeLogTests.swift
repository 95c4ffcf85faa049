import PostgresNIO
import PostgresTesting
import SwitchboardCore
@testable import SwitchboardPostgres
import Testing

/// The change log's positions are commit-ordered: a reader following the log never skips a change that
/// commits late, and never sees one twice.
@Suite("PostgreSQL: the change log", .enabled(if: TestPostgres.isAvailable, TestPostgres.skipComment))
struct PostgresChangeLogTests {
    static let logger = TestPostgres.logger

    static func migrated(_ settings: PostgresSettings) async throws -> PostgresConnection {
        let connection = try await TestPostgres.connect(settings)
        try await PostgresMigrator.migrate([PostgresChangeLog.migrations], on: connection, logger: logger)
        return connection
    }

    @Test("a change that took its position first but commits last is not skipped by a reader that saw the later one")
    func lateCommitIsNotSkipped() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let first = try await Self.migrated(settings)
            let second = try await TestPostgres.connect(settings)
            let reader = try await TestPostgres.connect(settings)

            try await first.query("BEGIN", logger: Self.logger)
            try await PostgresChangeLog.record(first, domain: "chat", itemID: "early", kind: .created, logger: Self.logger)

            // The second writer appends and commits while the first is still open.
            let secondDone = SharedCount()
            let secondWriter = Task {
                defer { secondDone.add() }
                _ = try await second.withTransaction(logger: Self.logger) { connection in
                    try await PostgresChangeLog.record(connection, domain: "chat", itemID: "late", kind: .created, logger: Self.logger)
                }
            }
            // Either it committed (then the reader must not see it ahead of "early") or it waits for the first.
            try await TestPostgres.waitUntil("the second writer committed or waits for the first") {
                if secondDone.value > 0 { return true }
                return try await TestPostgres.waitingLocks(reader) > 0
            }
            var seen: [ChangeRecord] = []
            var position: Int64 = 0
            func follow() async throws {
                let read = try await PostgresChangeLog.records(reader, after: position, limit: 100, logger: Self.logger)
                seen += read.records
                position = read.records.last?.sequence ?? position
            }
            try await follow()
            try await first.query("COMMIT", logger: Self.logger)
            _ = try await secondWriter.value
            try await follow()

            #expect(seen.map(\.itemID) == ["early", "late"])
            #expect(seen.map(\.sequence) == [1, 2])
            for connection in [first, second, reader] { try await connection.close() }
        }
    }

    @Test("two writers interleaving commits while a reader follows: every change once, in commit order, no gaps")
    func twoWritersOneReader() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let setup = try await Self.migrated(settings)
            try await setup.close()
            let transactions = 150
            let writersDone = SharedCount()
            let writers = (0..<2).map { writer in
                Task {
                    defer { writersDone.add() }
                    let connection = try await TestPostgres.connect(settings)
                    for transaction in 0..<transactions {
                        // One to three changes per transaction, in two domains.
                        _ = try await connection.withTransaction(logger: Self.logger) { connection in
                            for change in 0...(transaction % 3) {
                                try await PostgresChangeLog.record(
                                    connection, domain: change == 1 ? "calendar" : "chat", itemID: "w\(writer)-t\(transaction)-c\(change)",
                                    kind: .created, logger: Self.logger)
                            }
                        }
                    }
                    try await connection.close()
                }
            }
            let reader = try await TestPostgres.connect(settings)
            var seen: [ChangeRecord] = []
            var position: Int64 = 0
            while true {
                let finished = writersDone.value == 2
                let read = try await PostgresChangeLog.records(reader, after: position, limit: 37, logger: Self.logger)
                seen += read.records
                position = read.records.last?.sequence ?? position
                // Done when the writers had finished before a read that came back short.
                if finished && read.records.count < 37 { break }
            }
            for writer in writers { try await writer.value }

            let expected = (0..<2).flatMap { writer in
                (0..<transactions).flatMap { transaction in (0...(transaction % 3)).map { "w\(writer)-t\(transaction)-c\($0)" } }
            }
            #expect(seen.count == expected.count)
            #expect(Set(seen.map(\.itemID)) == Set(expected))
            #expect(seen.map(\.sequence) == Array(1...Int64(expected.count)))
            // Each writer's changes appear in the order it committed them.
            for writer in 0..<2 {
                let own = seen.map(\.itemID).filter { $0.hasPrefix("w\(writer)-") }
                #expect(own == expected.filter { $0.hasPrefix("w\(writer)-") })
            }
            try await reader.close()
        }
    }

    @Test("changes since a state fold the log as on SQLite; a state from another domain or before the kept log is refused")
    func changesSinceState() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let connection = try await Self.migrated(settings)
            let start = try await PostgresChangeLog.state(connection, domain: "chat", logger: Self.logger)
            _ = try await connection.withTransaction(logger: Self.logger) { connection in
                try await PostgresChangeLog.record(connection, domain: "chat", itemID: "a", kind: .created, logger: Self.logger)
                try await PostgresChangeLog.record(connection, domain: "chat", itemID: "b", kind: .created, logger: Self.logger)
                try await PostgresChangeLog.record(connection, domain: "mail/acct", itemID: "m", kind: .created, logger: Self.logger)
                try await PostgresChangeLog.record(connection, domain: "chat", itemID: "a", kind: .updated, logger: Self.logger)
                try await PostgresChangeLog.record(connection, domain: "chat", itemID: "b", kind: .destroyed, logger: Self.logger)
            }
            let changes = try await PostgresChangeLog.changes(connection, domain: "chat", since: start, limit: 10, logger: Self.logger)
            #expect(changes == ChangeSet(created: ["a"], updated: [], destroyed: [], newState: ChangeTracking.state(domain: "chat", sequence: 5), hasMoreChanges: false))
            let mail = try await PostgresChangeLog.changes(connection, domain: "mail", scope: "mail/acct", since: "mail-0", limit: 10, logger: Self.logger)
            #expect(mail.created == ["m"])

            let foreign = await #expect(throws: ServiceError.self) {
                try await PostgresChangeLog.changes(connection, domain: "chat", since: "mail-1", limit: 10, logger: Self.logger)
            }
            #expect(foreign == .cannotCalculateChanges(state: "mail-1", reason: "is not a state of chat"))
            _ = try await connection.withTransaction(logger: Self.logger) { connection in
                try await PostgresChangeLog.prune(connection, keeping: 2, logger: Self.logger)
            }
            let pruned = await #expect(throws: ServiceError.self) {
                try await PostgresChangeLog.changes(connection, domain: "chat", since: start, limit: 10, logger: Self.logger)
            }
            #expect(pruned == .cannotCalculateChanges(state: start, reason: "is older than the change log kept"))
            try await connection.close()
        }
    }

    @Test("changes recorded by one statement take consecutive positions in their order; passing a prune mark prunes")
    func batchRecord() async throws {
        try await TestPostgres.withFreshDatabase { settings in
            let connection = try await Self.migrated(settings)
            let batch = [
                PostgresChange(domain: "mail/acct", itemID: "m1", kind: .created),
                PostgresChange(domain: "chat", itemID: "r1", kind: .updated),
                PostgresChange(domain: "mail/acct", itemID: "m2", kind: .destroyed),
            ]
            let last = try await connection.withTransaction(logger: Self.logger) { connection in
                try await PostgresChangeLog.record(connection, [], logger: Self.logger)
                return try await PostgresChangeLog.record(connection, batch, logger: Self.logger)
            }
            #expect(last == 3)
            let read = try await PostgresChangeLog.records(connection, after: 0, limit: 10, logger: Self.logger)
            #expect(read.records == [ChangeRecord(sequence: 1, itemID: "m1", kind: .created),
                                     ChangeRecord(sequence: 2, itemID: "r1", kind: .updated),
                                     ChangeRecord(sequence: 3, itemID: "m2", kind: .destroyed)])
            #expect(read.latest == 3)

            // A batch that passes a multiple of the prune interval prunes to the newest retained records.
            let mark = Int64(ChangeTracking.pruneInterval + ChangeTracking.retainedRecords)
            try await connection.query("UPDATE change_log_head SET sequence = \(mark - 2) WHERE id = 1", logger: Self.logger)
            let passed = try await connection.withTransaction(logger: Self.logger) { connection in
                try await PostgresChangeLog.record(connection, (0..<5).map { PostgresChange(domain: "chat", itemID: "p\($0)", kind: .created) },
                                                   logger: Self.logger)
            }
            #expect(passed == mark + 3)
            let head = try await PostgresChangeLog.head(connection, logger: Self.logger)
            #expect(head.floor == mark + 3 - Int64(ChangeTracking.retainedRecords))
            let kept = try await PostgresChangeLog.records(connection, after: 0, limit: 10, logger: Self.logger)
            #expect(kept.records.map(\.itemID) == (0..<5).map { "p\($0)" }, "the first batch's records are pruned")
            try await connection.close()
        }
    }
}
