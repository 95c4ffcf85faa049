extension StringProtocol {
    /// The text without the characters `isSpace` accepts at either end.
    public func trimming(_ isSpace: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
