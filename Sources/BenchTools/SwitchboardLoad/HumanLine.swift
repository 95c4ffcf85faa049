import Jansson

/// A report as one line of text, for a person at a terminal.
struct HumanLine {
    let text: String

    init(_ report: Report) {
        let view = report.view
        func number(_ path: String...) -> Double {
            var current: JSONView? = view
            for key in path { current = current?[key] }
            return current?.double ?? current?.int64.map(Double.init) ?? 0
        }
        func fixed(_ value: Double, _ digits: Int = 1) -> String {
            let scale = Double([1, 10, 100, 1000][min(digits, 3)])
            let rounded = (value * scale).rounded() / scale
            return digits == 0 ? String(Int(rounded)) : String(rounded)
        }
        let label = view["label"]?.string.map { "[\($0)] " } ?? ""
        let mode = view["mode"]?.string ?? ""
        let status = view["status"]?.string ?? ""
        if mode == "startup" {
            text = "\(label)startup \(view["framing"]?.string ?? ""): \(fixed(number("ok"), 0))/\(fixed(number("runs"), 0)) ok"
                + " | first answer ms p50 \(fixed(number("first_response_ms_p50"), 2)) min \(fixed(number("first_response_ms_min"), 2))"
                + " max \(fixed(number("first_response_ms_max"), 2)) | exit ms p50 \(fixed(number("exit_ms_p50"), 2))"
                + " | rss p50 \(fixed(number("maxrss_kb_p50") / 1024)) MB cpu p50 \(fixed(number("cpu_ms_p50"))) ms | \(status)"
            return
        }
        text = "\(label)\(mode) w=\(fixed(number("window"), 0)) \(view["framing"]?.string ?? ""):"
            + " \(fixed(number("requests"), 0)) in \(fixed(number("elapsed_s"), 3)) s = \(fixed(number("rps"), 0))/s"
            + " | latency µs p50 \(fixed(number("latency_us", "p50"))) p90 \(fixed(number("latency_us", "p90")))"
            + " p99 \(fixed(number("latency_us", "p99"))) max \(fixed(number("latency_us", "max")))"
            + " | server rss \(fixed(number("server", "maxrss_kb") / 1024)) MB, \(fixed(number("server", "cpu_us_per_req"), 2)) µs CPU/req"
            + " | errors \(fixed(number("errors"), 0)) | \(status)"
    }
}
