import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The client examples under `examples/` run against the built binary.
@Suite("Examples, against the binary", .offCooperativePool)
struct ExamplesTests {
    /// The repository's root, from this file's place in it.
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// Runs a shell command and returns its output and exit status.
    static func shell(_ command: String) -> (output: String, status: Int32) {
        BinaryHarness.expectOffCooperativePool()
        guard let pipe = popen(command + " 2>&1", "r") else { return ("popen failed", -1) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        let status = pclose(pipe)
        return (String(decoding: output, as: UTF8.self), (status >> 8) & 0xFF)
    }

    @Test("the editor-style LSP client example: handshake, progress, cancellation, shutdown and exit 0")
    func lspClient() {
        let run = Self.shell("python3 '\(Self.root)/examples/lsp_client.py' '\(BinaryHarness.binaryPath)'")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("framing: lsp"))
        #expect(run.output.contains("request 2 answered: -32800"))
        #expect(run.output.contains("exit status: 0"))
    }

    @Test("the shell example pipes, batches and calls without an envelope")
    func shellExample() {
        let run = Self.shell("bash '\(Self.root)/examples/shell.sh' '\(BinaryHarness.binaryPath)'")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(#"{"jsonrpc":"2.0","id":1,"result":"pong"}"#))
        #expect(run.output.contains("refused a bad limit"))
    }
}
