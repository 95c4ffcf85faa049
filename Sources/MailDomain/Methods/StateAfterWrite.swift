/// The mail state to report once a write has committed. The write happened, so its answer must go
/// out even if the client cancels now: the state is read in a task the request's cancellation does
/// not reach (GRDB's async reads stop at cancellation).
func stateAfterWrite(_ mail: any MailService) async throws -> String {
    try await Task.detached { try await mail.state() }.value
}
