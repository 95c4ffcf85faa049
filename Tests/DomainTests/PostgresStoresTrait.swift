import PostgresTesting
import SwitchboardPostgres
import Synchronization
import Testing

/// Fresh PostgreSQL stores for the test cases of a suite marked `.postgresStores`: a store made in a test
/// case (``PostgresStores/fresh(migrations:)``) has a database of its own, closed and dropped when the
/// test case ends, so a test may make a service as it makes an SQLite one, without a closure around it.
struct PostgresStoresTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else {
            try await function()
            return
        }
        let stores = PostgresStores()
        do {
            try await PostgresStores.$current.withValue(stores) { try await function() }
        } catch {
            await stores.closeAll()
            throw error
        }
        await stores.closeAll()
    }
}

extension Trait where Self == PostgresStoresTrait {
    /// Each test case may open fresh PostgreSQL stores, dropped at its end; see ``PostgresStoresTrait``.
    static var postgresStores: Self { PostgresStoresTrait() }
}

/// The stores one test case opened, each held open by a task inside `TestPostgres.withFreshStore` until
/// the test case ends.
final class PostgresStores: Sendable {
    @TaskLocal static var current: PostgresStores?

    private struct Holder {
        var release: AsyncStream<Never>.Continuation
        var done: Task<Void, Never>
    }

    private let holders = Mutex<[Holder]>([])
    /// Further stores on the databases of fresh ones (other hosts' pools), closed first.
    private let others = Mutex<[PostgresStore]>([])

    /// A store on a new database migrated with `migrations`, for the current test case.
    static func fresh(migrations: [PostgresMigrations]) async throws -> PostgresStore {
        guard let current else { throw PostgresStoresError.outsideScope }
        return try await current.fresh(migrations: migrations)
    }

    /// Another store (another host's pool) on the database of `store`, closed when the test case ends.
    static func another(_ store: PostgresStore, migrations: [PostgresMigrations]) async throws -> PostgresStore {
        guard let current else { throw PostgresStoresError.outsideScope }
        let another = try await PostgresStore.open(store.settings, migrations: migrations, logger: TestPostgres.logger)
        current.others.withLock { $0.append(another) }
        return another
    }

    private func fresh(migrations: [PostgresMigrations]) async throws -> PostgresStore {
        let (opened, deliver) = AsyncStream.makeStream(of: Result<PostgresStore, any Error>.self)
        let (released, release) = AsyncStream.makeStream(of: Never.self)
        let done = Task {
            do {
                try await TestPostgres.withFreshStore(migrations: migrations) { store in
                    deliver.yield(.success(store))
                    for await _ in released {}
                }
            } catch {
                deliver.yield(.failure(error))
            }
            deliver.finish()
        }
        holders.withLock { $0.append(Holder(release: release, done: done)) }
        for await result in opened { return try result.get() }
        throw PostgresStoresError.notOpened
    }

    /// Closes every store and drops its database.
    func closeAll() async {
        for store in others.withLock({ others in defer { others.removeAll() }; return others }) { await store.close() }
        let all = holders.withLock { holders in
            defer { holders.removeAll() }
            return holders
        }
        for holder in all { holder.release.finish() }
        for holder in all { await holder.done.value }
    }
}

enum PostgresStoresError: Error, CustomStringConvertible {
    case outsideScope, notOpened

    var description: String {
        switch self {
        case .outsideScope: "a PostgreSQL store was asked for outside a suite marked .postgresStores"
        case .notOpened: "the fresh PostgreSQL store ended before it was handed out"
        }
    }
}
