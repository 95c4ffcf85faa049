import CatalogDomain
import MailDomain
import SwitchboardCore

/// A mail service a test wraps around another to change a call or two: every call it does not
/// implement itself goes to ``base``.
protocol MailServiceWrapper: MailService {
    var base: any MailService { get }
}

extension MailServiceWrapper {
    func login(email: String) async throws -> LoginOutcome { try await base.login(email: email) }
    func folders(account: String) async throws -> [FolderSummary] { try await base.folders(account: account) }
    func conversations(account: String, folder: Folder, unreadOnly: Bool, page: PageRequest) async throws -> Page<Conversation> {
        try await base.conversations(account: account, folder: folder, unreadOnly: unreadOnly, page: page)
    }
    func thread(account: String, threadId: String, page: PageRequest) async throws -> ThreadDetail? {
        try await base.thread(account: account, threadId: threadId, page: page)
    }
    func message(account: String, uid: String) async throws -> Message? { try await base.message(account: account, uid: uid) }
    func send(account: String, _ message: MailDraft) async throws -> Committed<Message> { try await base.send(account: account, message) }
    func markRead(account: String, uids: [String], read: Bool) async throws -> Committed<[String]> {
        try await base.markRead(account: account, uids: uids, read: read)
    }
    func move(account: String, uids: [String], to folder: Folder) async throws -> Committed<[String]> {
        try await base.move(account: account, uids: uids, to: folder)
    }
    func search(account: String, query: String, page: PageRequest) async throws -> Page<SearchHit> {
        try await base.search(account: account, query: query, page: page)
    }
    func importMessages(account: String, _ records: [ImportRecord]) async throws -> ImportOutcome {
        try await base.importMessages(account: account, records)
    }
    func state() async throws -> String { try await base.state() }
    func changes(account: String, since sinceState: String, limit: Int) async throws -> ChangeSet {
        try await base.changes(account: account, since: sinceState, limit: limit)
    }
}

/// A catalog service a test wraps around another: every call it does not implement itself goes to ``base``.
protocol CatalogServiceWrapper: CatalogService {
    var base: any CatalogService { get }
}

extension CatalogServiceWrapper {
    func sectors() async throws -> [Sector] { try await base.sectors() }
    func sector(id: Int64) async throws -> Sector? { try await base.sector(id: id) }
    func brochures(sectorId: Int64?, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        try await base.brochures(sectorId: sectorId, after: afterID, limit: limit)
    }
    func brochure(id: Int64) async throws -> Brochure? { try await base.brochure(id: id) }
    func search(_ query: CatalogQuery, after afterID: Int64, limit: Int) async throws -> [Brochure] {
        try await base.search(query, after: afterID, limit: limit)
    }
    func importBatch(_ batch: [CatalogEntry]) async throws -> Committed<CatalogImportCounts> { try await base.importBatch(batch) }
    func state() async throws -> String { try await base.state() }
    func changes(since sinceState: String, limit: Int) async throws -> ChangeSet { try await base.changes(since: sinceState, limit: limit) }
}
