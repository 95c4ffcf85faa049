import Jansson

extension MailDraft {
    /// Throws unless every part is within ``TextLimit``: one rule for what `mail.send` sends and
    /// what `mail.import` stores. `replyField` names the member `inReplyTo` came from (`responseToUid`
    /// in an import record). An error names the member and its size, never its text.
    func checkLimits(replyField: String = "inReplyTo") throws(JSONFieldError) {
        try TextLimit.check(subject, field: "subject", maximum: TextLimit.subject)
        try TextLimit.check(text, field: "text", maximum: TextLimit.text)
        if let inReplyTo { try TextLimit.check(inReplyTo, field: replyField, maximum: TextLimit.id) }
        for (field, addresses) in [("to", to), ("cc", cc)] where addresses.count > TextLimit.addresses {
            throw JSONFieldError(field: field, expected: "at most \(TextLimit.addresses) addresses", got: "\(addresses.count) addresses")
        }
    }
}
