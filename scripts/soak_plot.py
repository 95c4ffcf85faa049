"""Draws scripts/soak's samples: RSS and open fds over time for the two hosts and their plugins.
Run with the python of scripts/soak-venv (matplotlib):
    soak_plot.py SAMPLES.csv OUT.png WARM_UP_SECONDS [LULLS]
LULLS: JSON list of [from, to] seconds when the load paused (shaded)."""
import csv, json, sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

samples, output, warm_up = sys.argv[1], sys.argv[2], float(sys.argv[3])
lulls = json.loads(sys.argv[4]) if len(sys.argv) > 4 else []
rss, fds = defaultdict(dict), defaultdict(dict)
with open(samples) as file:
    for row in csv.DictReader(file):
        if not row["rss_kb"] or not row["fds"]:
            continue
        t, role = float(row["seconds"]), row["process"]
        # A role's processes at one moment (a plugin and its restart) add up.
        rss[role][t] = rss[role].get(t, 0) + int(row["rss_kb"]) / 1024
        fds[role][t] = fds[role].get(t, 0) + int(row["fds"])

figure, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7), sharex=True)
for role in sorted(rss, key=lambda r: (not r.endswith("host") and r != "peer", r)):
    times = sorted(rss[role])
    style = "-" if role in ("host", "peer") else ":"
    top.plot(times, [rss[role][t] for t in times], style, label=role, linewidth=1.4)
    bottom.plot(times, [fds[role][t] for t in times], style, label=role, linewidth=1.4)
for axes in (top, bottom):
    axes.axvline(warm_up, color="grey", linestyle="--", linewidth=0.8)
    for first, last in lulls:
        axes.axvspan(first, last, color="grey", alpha=0.12, linewidth=0)
    axes.grid(alpha=0.3)
top.set_ylabel("RSS (MiB)")
bottom.set_ylabel("open file descriptors")
bottom.set_xlabel("seconds (dashed: end of warm-up" + ("; shaded: load paused)" if lulls else ")"))
top.set_ylim(bottom=0)
bottom.set_ylim(bottom=0)
top.legend(loc="upper left", fontsize=8, ncol=3)
top.set_title("switchboard soak: host, second host (MCP, same database), plugins (@ their host)")
figure.tight_layout()
figure.savefig(output, dpi=90)
