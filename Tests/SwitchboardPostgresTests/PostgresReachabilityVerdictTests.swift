import PostgresNIO
@testable import SwitchboardPostgres
import Testing

/// What the store's probe (``PostgresReachability``) takes for an answer of the server when a start-up
/// fails: an error the server sent says it is there, unless it says the backend itself was ended.
@Suite("PostgreSQL: what the probe takes for an answer")
struct PostgresReachabilityVerdictTests {
    @Test("a backend ended by the server (57P01 admin_shutdown, 57P02 crash_shutdown) is no answer", arguments: ["57P01", "57P02"])
    func backendEnded(sqlState: String) {
        #expect(!PostgresReachability.isAnswer(sqlState: sqlState))
    }

    @Test("a server starting up or shutting down (57P03 cannot_connect_now) answers: it is there, only not taking new sessions now")
    func cannotConnectNow() {
        #expect(PostgresReachability.isAnswer(sqlState: "57P03"))
    }

    @Test("a server refusing the start-up (28P01 a wrong password, 53300 too many clients, 3D000 no such database) answers", arguments: ["28P01", "53300", "3D000"])
    func refusal(sqlState: String) {
        #expect(PostgresReachability.isAnswer(sqlState: sqlState))
    }

    @Test("a start-up the server refused without a SQLSTATE (no TLS, a password or SASL mechanism the host cannot give) answers",
          arguments: [PSQLError.Code.sslUnsupported, .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError])
    func refusalWithoutSQLState(code: PSQLError.Code) {
        #expect(PostgresReachability.isAnswer(code: code))
    }

    @Test("a connection that failed or closed before the server said anything is no answer",
          arguments: [PSQLError.Code.connectionError, .serverClosedConnection, .uncleanShutdown])
    func noAnswer(code: PSQLError.Code) {
        #expect(!PostgresReachability.isAnswer(code: code))
    }
}
