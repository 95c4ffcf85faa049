@testable import SwitchboardHost
import Testing

/// The allocator upkeep the host starts (`MallocUpkeep`): what it decides from the environment.
@Suite("glibc allocator upkeep: arena cap and trimming")
struct MallocUpkeepTests {
    static func environment(_ values: [String: String]) -> (String) -> String? {
        { values[$0] }
    }

    @Test("the arena cap is one per core, at least two")
    func capFollowsCores() {
        let none = Self.environment([:])
        #expect(MallocUpkeep.arenaCap(environment: none, cores: 1) == 2)
        #expect(MallocUpkeep.arenaCap(environment: none, cores: 2) == 2)
        #expect(MallocUpkeep.arenaCap(environment: none, cores: 16) == 16)
        #expect(MallocUpkeep.arenaCap(environment: none, cores: -1) == 2)
    }

    @Test("a cap the user set is left alone: MALLOC_ARENA_MAX, or arena_max in GLIBC_TUNABLES")
    func userCapRespected() {
        #expect(MallocUpkeep.arenaCap(environment: Self.environment(["MALLOC_ARENA_MAX": "8"]), cores: 2) == nil)
        #expect(MallocUpkeep.arenaCap(environment: Self.environment(["MALLOC_ARENA_MAX": ""]), cores: 2) == nil)
        let tunables = Self.environment(["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0:glibc.malloc.arena_max=4"])
        #expect(MallocUpkeep.arenaCap(environment: tunables, cores: 2) == nil)
        let other = Self.environment(["GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2"])
        #expect(MallocUpkeep.arenaCap(environment: other, cores: 2) == 2)
    }

    @Test("SWITCHBOARD_MALLOC_UPKEEP=off (or 0) turns it off; anything else leaves it on")
    func switchedOff() {
        #expect(!MallocUpkeep.enabled(environment: Self.environment(["SWITCHBOARD_MALLOC_UPKEEP": "off"])))
        #expect(!MallocUpkeep.enabled(environment: Self.environment(["SWITCHBOARD_MALLOC_UPKEEP": "0"])))
        #expect(MallocUpkeep.enabled(environment: Self.environment(["SWITCHBOARD_MALLOC_UPKEEP": "on"])))
        #expect(MallocUpkeep.enabled(environment: Self.environment([:])))
    }
}
