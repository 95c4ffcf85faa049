import CJanssonAlloc
import Dispatch
import Jansson
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// jansson's allocator (CJanssonAlloc): small blocks kept per thread for reuse.
@Suite("jansson's per-thread block lists")
struct JanssonBlockListTests {
    @Test("a small block freed is kept by its thread and handed out again for its size class; a large one is not kept")
    func smallBlocksAreReused() throws {
        let block = try #require(sb_jansson_malloc(40))
        let before = sb_jansson_cached_bytes()
        sb_jansson_free(block)
        #expect(sb_jansson_cached_bytes() == before + 48)
        let again = try #require(sb_jansson_malloc(33))
        #expect(again == block, "33 and 40 bytes share the 48-byte class")
        #expect(sb_jansson_cached_bytes() == before)
        sb_jansson_free(again)
        let large = try #require(sb_jansson_malloc(4096))
        sb_jansson_free(large)
        #expect(sb_jansson_cached_bytes() == before + 48)
    }

    @Test("a size whose rounding or header would wrap is refused, not handed a small block",
          arguments: [UInt.max, UInt.max - 8, UInt.max - 15, UInt(Int.max) + 1])
    func sizesThatWrapAreRefused(size: UInt) {
        #expect(sb_jansson_malloc(Int(bitPattern: size)) == nil)
    }

    @Test("threads parsing and writing at once get their documents back intact, and keep at most 512 KiB each")
    func concurrentDocuments() throws {
        let text = #"{"items":[{"id":1,"name":"Ada Lovelace","tags":["a","bé"],"score":0.1}],"next":null,"more":true}"#
        let results = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 8)
        defer { results.deallocate() }
        nonisolated(unsafe) let output = results
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            var same = true
            for _ in 0..<2_000 {
                guard let value = try? JSONParser.parse(text) else { same = false; break }
                same = same && JSONWriter.string(of: value.view) == text
            }
            output[index] = same && sb_jansson_cached_bytes() <= 512 << 10
        }
        #expect(results.allSatisfy { $0 })
    }

    @Test("a block a thread frees while it exits, after its list went back to malloc, is not kept (it would leak)")
    func blockFreedAfterReleaseGoesBackToMalloc() throws {
        pthread_key_create(&lateFreeKey) { value in
            // First pass of the thread's destructors: ask for a second one, after the list's own has run.
            if Int(bitPattern: value) == 1 {
                pthread_setspecific(lateFreeKey, UnsafeRawPointer(bitPattern: 2))
                return
            }
            sb_jansson_free(sb_jansson_malloc(40))
            bytesKeptAfterRelease.store(sb_jansson_cached_bytes(), ordering: .sequentiallyConsistent)
        }
        defer { pthread_key_delete(lateFreeKey) }
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { _ in
            sb_jansson_free(sb_jansson_malloc(40))
            pthread_setspecific(lateFreeKey, UnsafeRawPointer(bitPattern: 1))
            return nil
        }, nil)
        try #require(created == 0)
        pthread_join(thread, nil)
        #expect(bytesKeptAfterRelease.load(ordering: .sequentiallyConsistent) == 0)
    }
}

/// The key whose destructor frees a block late in a thread's exit, and what the thread kept then.
nonisolated(unsafe) private var lateFreeKey = pthread_key_t()
private let bytesKeptAfterRelease = Atomic<Int>(-1)
