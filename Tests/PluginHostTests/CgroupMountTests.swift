@testable import PluginHost
import Testing

/// Where the host's own cgroup is, from `/proc/self/cgroup` and `/proc/self/mountinfo` as the kernel writes them
/// (``CgroupMount``): the folder the host makes its pids cgroups in.
@Suite("The host's cgroup, found from /proc")
struct CgroupMountTests {
    static let hybridMounts = """
        30 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec - tmpfs tmpfs ro,mode=755
        31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate
        40 30 0:36 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:20 - cgroup cgroup rw,pids
        41 30 0:37 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:21 - cgroup cgroup rw,memory
        """
    static let hybridMembership = """
        8:pids:/user.slice/user-1000.slice/session-2.scope
        4:memory:/user.slice/user-1000.slice/session-2.scope
        0::/user.slice/user-1000.slice/session-2.scope
        """

    @Test("cgroup v2: the 0:: line's path beneath the cgroup2 mount")
    func unified() {
        let mounts = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        let membership = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/switchboard.scope\n"
        #expect(CgroupMount.hostCgroup(version: 2, memberships: membership, mounts: mounts)
                == "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/switchboard.scope")
        #expect(CgroupMount.hostCgroup(version: 1, memberships: membership, mounts: mounts) == nil)
        #expect(CgroupMount.hostCgroup(version: 2, memberships: "0::/\n", mounts: mounts) == "/sys/fs/cgroup")
    }

    @Test("Hybrid: v1's pids hierarchy by its own line; v2 at the unified mount")
    func hybrid() {
        #expect(CgroupMount.hostCgroup(version: 1, memberships: Self.hybridMembership, mounts: Self.hybridMounts)
                == "/sys/fs/cgroup/pids/user.slice/user-1000.slice/session-2.scope")
        #expect(CgroupMount.hostCgroup(version: 2, memberships: Self.hybridMembership, mounts: Self.hybridMounts)
                == "/sys/fs/cgroup/unified/user.slice/user-1000.slice/session-2.scope")
    }

    @Test("A container's mount of its own cgroup (the mount's root is the cgroup): the mount point itself; a cgroup outside the mount: none")
    func mountRoot() {
        let mounts = "50 45 0:36 /docker/abc /sys/fs/cgroup/pids ro,nosuid - cgroup cgroup rw,pids\n"
        #expect(CgroupMount.hostCgroup(version: 1, memberships: "5:pids:/docker/abc\n", mounts: mounts) == "/sys/fs/cgroup/pids")
        #expect(CgroupMount.hostCgroup(version: 1, memberships: "5:pids:/docker/abc/sub\n", mounts: mounts) == "/sys/fs/cgroup/pids/sub")
        #expect(CgroupMount.hostCgroup(version: 1, memberships: "5:pids:/docker/abcd\n", mounts: mounts) == nil)
        #expect(CgroupMount.hostCgroup(version: 1, memberships: "5:cpu:/docker/abc\n", mounts: mounts) == nil)
    }
}
