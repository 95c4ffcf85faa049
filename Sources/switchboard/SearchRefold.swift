import Logging

/// Runs a domain's re-folding of search text an older switchboard stored (``SearchTokens/olderFoldingScalars``)
/// when the domain opens, on the opener's thread. A failure (a read-only database, say) is logged and
/// the domain opens all the same: search then misses those rows only for words holding the letters
/// whose folding changed.
enum SearchRefold {
    static func run(_ what: String, logger: Logger, _ work: @escaping @Sendable () async throws -> Int) {
        do {
            let folded = try BlockingWait.run(work)
            if folded > 0 { logger.notice("folded again the search text of \(folded) \(what) an older switchboard stored") }
        } catch {
            logger.warning("could not fold again the search text of \(what) an older switchboard stored: \(error)")
        }
    }
}
