/// One libFuzzer target: a name `scripts/fuzz` selects it by, the longest input worth trying, and
/// the function run on every input. A target checks properties with ``require(_:_:file:line:)``,
/// not only that nothing traps.
public protocol FuzzTarget: SendableMetatype {
    /// The name on the command line and of the corpus folder, `Fuzz/corpus/<name>/`.
    static var name: String { get }
    /// What it covers, one line for `scripts/fuzz --list`.
    static var summary: String { get }
    /// libFuzzer's `-max_len` for it.
    static var maxLength: Int { get }
    /// Runs one input.
    static func run(_ input: [UInt8])
}
