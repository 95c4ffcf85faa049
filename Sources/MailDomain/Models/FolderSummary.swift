/// One entry of the folder drawer.
public struct FolderSummary: Codable, Sendable, Equatable {
    public var name: Folder
    /// Messages in the folder.
    public var total: Int
    /// Unread messages in the folder.
    public var unread: Int

    public init(name: Folder, total: Int, unread: Int) {
        self.name = name
        self.total = total
        self.unread = unread
    }
}
