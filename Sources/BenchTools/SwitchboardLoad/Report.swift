import CJansson
import Glibc
import Jansson

/// The figures of a run as one JSON object, in the shape rpcbench writes (so scripts read both the same way).
struct Report {
    private let object = JanssonValue.object()

    subscript(key: String) -> Double {
        get { json_real_value(json_object_get(object.pointer, key)) }
        nonmutating set { object.set(key, taking: json_real(newValue.isFinite ? newValue : -1)) }
    }

    func set(_ key: String, _ value: Int) { object.set(key, taking: json_integer(json_int_t(value))) }
    func set(_ key: String, _ value: UInt64) { set(key, Int(value)) }
    func set(_ key: String, _ value: String) { object.set(key, JanssonValue.string(value)) }
    func set(_ key: String, _ report: Report) { object.set(key, report.object) }

    /// A view of the object; valid while this report lives.
    var view: JSONView { object.view }

    /// Compact JSON text.
    var text: String { withExtendedLifetime(object) { JSONWriter.string(of: object.view) } }

    /// p50/p90/p99/max/mean in µs of latencies in ns (nearest-rank percentiles, as rpcbench).
    static func latencies(_ nanoseconds: [UInt64]) -> Report {
        let sorted = nanoseconds.sorted()
        let report = Report()
        for (name, fraction) in [("p50", 0.50), ("p90", 0.90), ("p99", 0.99)] {
            report[name] = Double(percentile(sorted, fraction)) / 1e3
        }
        report["max"] = Double(sorted.last ?? 0) / 1e3
        report["mean"] = sorted.isEmpty ? 0 : Double(sorted.reduce(0, +)) / Double(sorted.count) / 1e3
        return report
    }

    /// The server's resources: peak RSS and CPU from wait4, CPU per request over the measured phase.
    static func server(_ exit: ProcessExit?, peakRSS: Int?, measuredCPU: Double?, completed: UInt64) -> Report {
        let report = Report()
        report.set("maxrss_kb", peakRSS ?? exit?.waitPeakRSSKilobytes ?? 0)
        report.set("wait4_maxrss_kb", exit?.waitPeakRSSKilobytes ?? 0)
        report["utime_s"] = exit.map { seconds($0.usage.ru_utime) } ?? -1
        report["stime_s"] = exit.map { seconds($0.usage.ru_stime) } ?? -1
        report["cpu_s"] = exit?.cpuSeconds ?? -1
        report["measured_cpu_s"] = measuredCPU ?? -1
        report["cpu_us_per_req"] = measuredCPU.map { completed > 0 ? $0 * 1e6 / Double(completed) : -1 } ?? -1
        report.set("exit", exit?.description ?? "not reaped")
        return report
    }

    /// The driver's own CPU seconds so far.
    static var driverCPUSeconds: Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// Nearest-rank percentile of sorted values.
func percentile<Value: BinaryInteger>(_ sorted: [Value], _ fraction: Double) -> Value {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

/// The median of unsorted values (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
