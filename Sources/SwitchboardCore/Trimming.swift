extension StringProtocol {
    /// The text without the characters `isSpace` accepts at either end.
    ///
    /// Inlinable, so callers in other modules get it specialized: the generic body's first run looks
    /// conformances up at run time, a scan of the whole static binary on a one-shot call's path.
    @inlinable
    public func trimming(_ isSpace: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
