import DomainMethods
import JSONRPC
import SwitchboardCore
import Testing

/// A write whose commit was under way when the storage went away (PostgreSQL's connection lost after
/// `COMMIT` was sent) may have been committed: the client sees the storage error it knows, and a
/// cancel that came meanwhile does not turn it into `-32800` ("not done").
@Suite("Commit of unknown outcome")
struct CommitUnknownErrorTests {
    @Test("commitUnknown is -32050 like storageUnavailable, its cause kept, and marked as reporting writes")
    func answeredAsStorageUnavailable() {
        let cause = "the server went silent; the COMMIT had been sent, so the write may have been committed"
        let unknown = ResponseError(service: .commitUnknown(path: "postgres://team@db/team", cause: cause))
        let unavailable = ResponseError(service: .storageUnavailable(path: "postgres://team@db/team", cause: cause))
        #expect(unknown.code == unavailable.code && unknown.message == unavailable.message && unknown.data == unavailable.data)
        #expect(unknown.reportsWrites && !unavailable.reportsWrites)
        #expect("\(ServiceError.commitUnknown(path: "p", cause: "c"))" == "\(ServiceError.storageUnavailable(path: "p", cause: "c"))")
    }
}
