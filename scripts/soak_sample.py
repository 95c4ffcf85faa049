"""scripts/soak's sampler: once a second, VmRSS, open fds and threads of each host process and of
each of its children (the plugins, named from their command line), and the zombies among those
children. Reads /proc only."""
import csv, os, statistics, threading, time


def _read(path):
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return None


def _stat(pid):
    """(state, ppid, starttime) from /proc/PID/stat, or None once the process is gone."""
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    fields = text[text.rindex(b")") + 2:].split()
    return fields[0].decode(), int(fields[1]), int(fields[19])


def _status(pid):
    """(VmRSS, RssAnon, Threads) from /proc/PID/status: RssAnon is the heap and stacks, the rest of
    VmRSS mostly pages of the (static, 130 MB) binary touched so far."""
    text = _read(f"/proc/{pid}/status")
    if text is None:
        return None, None, None
    figures = {}
    for line in text.decode(errors="replace").splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "Threads"):
            figures[name] = int(value.split()[0])
    return figures.get("VmRSS"), figures.get("RssAnon"), figures.get("Threads")


def _fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def _plugin_name(pid):
    text = _read(f"/proc/{pid}/cmdline") or b""
    words = [os.path.basename(word.decode(errors="replace")) for word in text.split(b"\0") if word]
    for word in words:
        if word.endswith((".py", ".sh")):
            return word.rsplit(".", 1)[0]
    return words[0] if words else "?"


class Sampler:
    """Samples the hosts (role → pid) every second until stopped."""

    def __init__(self, hosts):
        self.hosts = hosts
        self.rows = []          # (seconds, role, pid, rss_kb, fds, threads, zombies, answered, anon_kb)
        self.plugins = {}       # pid → (role, starttime): every plugin process seen
        self.zombies = {}       # (pid, starttime) → [first seconds, last seconds, parent role]
        self.load_ended_at = None
        self._stop = threading.Event()

    def start(self, began, connections):
        self.began = began
        self.connections = connections
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self):
        self._stop.set()
        self.thread.join()

    def mark_load_end(self):
        self.load_ended_at = time.monotonic() - self.began

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(1.0)

    def sample(self):
        seconds = round(time.monotonic() - self.began, 2)
        parents = {pid: role for role, pid in self.hosts.items()}
        children = {pid: [] for pid in parents}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                stat = _stat(int(entry))
                if stat and stat[1] in children:
                    children[stat[1]].append((int(entry), stat))
        for host_pid, role in parents.items():
            rss, anon, threads = _status(host_pid)
            if rss is None:
                continue
            zombies = 0
            for pid, (state, _, start) in children[host_pid]:
                if state == "Z":
                    zombies += 1
                    seen = self.zombies.setdefault((pid, start), [seconds, seconds, role])
                    seen[1] = seconds
                    continue
                name = f"{_plugin_name(pid)}@{role}"
                self.plugins.setdefault(pid, (name, start))
                child_rss, child_anon, child_threads = _status(pid)
                self.rows.append((seconds, name, pid, child_rss, _fds(pid), child_threads, "", "", child_anon))
            answered = self.connections[role].answered_count()
            self.rows.append((seconds, role, host_pid, rss, _fds(host_pid), threads, zombies, answered, anon))

    def left_running(self):
        """Plugin processes still alive, and anything still in a plugin's process group (each plugin
        leads one: its children, words.sh's jq say, go with it)."""
        groups = set(self.plugins)
        left = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            text = _read(f"/proc/{pid}/stat")
            if text is None:
                continue
            fields = text[text.rindex(b")") + 2:].split()
            state, group, start = fields[0].decode(), int(fields[2]), int(fields[19])
            if state == "Z":
                continue
            known = self.plugins.get(pid)
            if (known and known[1] == start) or group in groups:
                left.append(f"{pid} ({known[0] if known else _plugin_name(pid)}, group {group})")
        return sorted(left)

    def zombie_report(self):
        lasted = [last - first for first, last, _ in self.zombies.values()]
        return {"seen": len(self.zombies), "longest_seconds": round(max(lasted, default=0), 1),
                "max_at_once": max((row[6] for row in self.rows if row[6] != ""), default=0)}

    def zombie_failures(self):
        # A plugin that dies is a zombie until the host reaps it: it may show in one sample; one that
        # is still there a full sample later was not reaped.
        return [f"zombie {pid} ({role}'s child) unreaped for {last - first:.1f} s"
                for (pid, _), (first, last, role) in self.zombies.items() if last - first >= 1.5]

    def write_csv(self, path):
        with open(path, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["seconds", "process", "pid", "rss_kb", "fds", "threads", "zombie_children", "answered", "anon_kb"])
            writer.writerows(self.rows)

    def growth(self, warm_up):
        """Per process role: RSS and fds at start, after the warm-up (median of its first ten seconds),
        and at the end of the load (median of the last ten seconds), and the maximum."""
        end = self.load_ended_at if self.load_ended_at is not None else max((r[0] for r in self.rows), default=0)
        series = {}
        for seconds, role, _, rss, fds, _, _, _, anon in self.rows:
            if rss is None or fds is None or anon is None or seconds > end:
                continue
            point = series.setdefault(role, {}).setdefault(seconds, [0, 0, 0])
            point[0] += rss
            point[1] += fds
            point[2] += anon
        figures = {}
        for role, points in series.items():
            times = sorted(points)

            def median(first, last, index):
                values = [points[t][index] for t in times if first <= t <= last] or [points[times[-1]][index]]
                return int(statistics.median(values))

            after = median(warm_up, warm_up + 10, 0)
            rss_end = median(end - 10, end, 0)
            loaded = [points[t] for t in times if t >= warm_up] or [points[times[-1]]]
            figures[role] = {
                "rss_start_kb": points[times[0]][0], "rss_after_warm_up_kb": after, "rss_end_kb": rss_end,
                "rss_max_kb": max(p[0] for p in loaded), "rss_growth_pct": round((rss_end - after) * 100 / after, 2),
                "fds_start": points[times[0]][1], "fds_after_warm_up": median(warm_up, warm_up + 10, 1),
                "fds_end": median(end - 10, end, 1), "fds_max": max(p[1] for p in loaded),
            }
            figures[role]["fd_growth"] = figures[role]["fds_end"] - figures[role]["fds_after_warm_up"]
            figures[role]["anon_after_warm_up_kb"] = median(warm_up, warm_up + 10, 2)
            figures[role]["anon_end_kb"] = median(end - 10, end, 2)
        return figures
