import ChatDomain
import GRDB
import SchemaTesting
import SwitchboardCore
import SwitchboardStorage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two services on one database file, each with its own connections, as two processes have them:
/// rooms and client message ids stay unique, and one sees the other's messages in order.
@Suite("Chat on one database file, two connections")
struct ChatSharedDatabaseTests {
    static let me = DemoChat.me.id

    /// Two services on a fresh seeded file; the caller removes `folder`.
    static func pair() throws -> (SQLiteChatService, SQLiteChatService, folder: String) {
        let folder = try TestScratch.folder("chat")
        let path = folder + "/chat.sqlite"
        let clock = ChatServiceTests.clock
        let first = try AppDatabase(path: path, migrations: SQLiteChatService.migrations,
                                    prepare: { database in try database.writer.write { try SQLiteChatService.seed($0, clock: clock) } })
        let second = try AppDatabase(path: path, migrations: SQLiteChatService.migrations)
        return (SQLiteChatService(database: first, clock: clock), SQLiteChatService(database: second, clock: clock), folder)
    }

    @Test("both connections opening the same direct room at once get one room, created by exactly one", arguments: 1...5)
    func openRace(round: Int) async throws {
        let (a, b, folder) = try Self.pair()
        defer { _ = system("rm -rf '\(folder)'") }
        let user = "u\(6 + round)"
        async let first = a.openDirect(user: Self.me, with: user)
        async let second = b.openDirect(user: user, with: Self.me)
        let (one, two) = try await (first, second)
        #expect(one.value.room.id == two.value.room.id)
        #expect([one.value.created, two.value.created].filter { $0 }.count == 1)
        let rooms = try await a.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_room WHERE id = ?", arguments: [one.value.room.id])
        }
        #expect(rooms == 1)
    }

    @Test("the same client message id sent through both at once is stored once; both get that message", arguments: 1...5)
    func sendRace(round: Int) async throws {
        let (a, b, folder) = try Self.pair()
        defer { _ = system("rm -rf '\(folder)'") }
        let id = "race-\(round)"
        async let first = a.send(sender: Self.me, roomId: "dm-u0-u1", text: "once", clientMessageId: id)
        async let second = b.send(sender: Self.me, roomId: "dm-u0-u1", text: "once", clientMessageId: id)
        let (one, two) = try await (first, second)
        #expect(one.value.id == two.value.id)
        #expect([one.value.duplicate, two.value.duplicate].filter { $0 }.count == 1)
        let stored = try await b.database.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chat_message WHERE client_message_id = ?", arguments: [id])
        }
        #expect(stored == 1)
    }

    @Test("messages one connection writes are read by the other after its state, in the order written")
    func messagesAcrossConnections() async throws {
        let (a, b, folder) = try Self.pair()
        defer { _ = system("rm -rf '\(folder)'") }
        let start = try await b.state()
        var written: [String] = []
        for index in 1...20 {
            let writer = index.isMultiple(of: 2) ? a : b
            written.append(try #require(try await writer.send(sender: Self.me, roomId: "grp-team", text: "\(index)", clientMessageId: "x\(index)").value.id))
        }
        var state = start
        var read: [String] = []
        repeat {
            let batch = try await a.messages(roomId: "grp-team", after: state, limit: 7)
            read += batch.messages.compactMap(\.id)
            state = batch.state
            if !batch.hasMore { break }
        } while true
        #expect(read == written)
        #expect(state == (try await b.state()))
    }
}
