import Jansson
import SwitchboardHost

extension PromptCommand {
    /// What the history file keeps of `line`, typed as this command: the line itself, unless it holds a
    /// secret (`mail.login password=…`). Then a call is kept with its params redacted as `--record`
    /// redacts them (``SecretRedaction``), written as JSON; a line that could not be read is cut
    /// before the secret.
    func historyText(of line: String) -> String {
        switch self {
        case .call(let method, let params?):
            let redacted = SecretRedaction.redact(params)
            return redacted == params ? line : "\(method) \(redacted.jsonText())"
        case .invalid:
            return SecretRedaction.redact(text: line)
        case .call(_, nil), .empty, .help, .quit:
            return line
        }
    }
}
