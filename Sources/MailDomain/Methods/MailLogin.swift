import Jansson
import JSONRPC

/// `mail.login {email, password}` → `{account, created}`: signs this connection into an account,
/// creating it on first login. The password is not checked (the prototype mocks sign-in) but must
/// not be empty.
public enum MailLogin: RPCMethod {
    public static let name = "mail.login"
    public static let summary = "Signs this connection into a mail account, creating it on first login."

    public struct Params: Decodable, Sendable {
        public var email: String
        public var password: String
    }

    public typealias Result = LoginOutcome

    static func run(_ params: Params, mail: any MailService, context: RequestContext) async throws -> LoginOutcome {
        let email = try AddressField.address(params.email, field: "email")
        try TextLimit.check(params.password, field: "password", maximum: TextLimit.password)
        guard !params.password.isEmpty else {
            throw JSONFieldError(field: "password", expected: "a non-empty password", got: "\"\"")
        }
        let outcome = try await mail.login(email: email)
        MailSession.bind(context, to: outcome.account.email)
        return outcome
    }
}
