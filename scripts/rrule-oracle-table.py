#!/usr/bin/env python3
"""Writes the table of Tests/DomainTests/CalendarRecurrenceTableRows.swift: seeded random RRULEs of
every shape switchboard takes, each with its occurrences from python-dateutil's rrule (the reference).

    python3 scripts/rrule-oracle-table.py > Tests/DomainTests/CalendarRecurrenceTableRows.swift

Each rule starts at its own first occurrence (dateutil leaves out a start the rule does not make;
RFC 5545 keeps it), and none is weekly with BYSETPOS (dateutil makes the first week's set from the
start on, RFC 5545 from the week's first day) or mixes plain and n-th weekdays (dateutil keeps only
days that are both): those shapes have tests of their own.
"""
import random
from datetime import datetime, timedelta
from dateutil.rrule import rrulestr

SEED, ROWS = 5545, 160
FROM, TO = datetime(2026, 11, 28), datetime(2029, 8, 20, 23, 59, 59)
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def rule(rng):
    freq = rng.choice(["YEARLY", "MONTHLY", "WEEKLY", "DAILY"])
    parts, by = [f"FREQ={freq}"], False
    if rng.random() < 0.3:
        parts.append(f"INTERVAL={rng.randint(2, 5)}")
    weekno = freq == "YEARLY" and rng.random() < 0.45
    if weekno:
        parts.append("BYWEEKNO=" + ",".join(str(rng.choice([1, 2, 10, 26, 52, 53, -1, -2])) for _ in range(rng.randint(1, 2))))
        by = True
    if rng.random() < 0.5:
        if freq in ("MONTHLY", "YEARLY") and not weekno and rng.random() < 0.5:
            days = [f"{rng.choice([1, 2, 3, 4, 5, -1, -2, 20, -10] if freq == 'YEARLY' else [1, 2, 3, 4, 5, -1, -2])}{rng.choice(DAYS)}"
                    for _ in range(rng.randint(1, 2))]
        else:
            days = rng.sample(DAYS, rng.randint(1, 3))
        parts.append("BYDAY=" + ",".join(days))
        by = True
    if freq != "WEEKLY" and rng.random() < 0.3:
        parts.append("BYMONTHDAY=" + ",".join(str(rng.choice([1, 2, 15, 28, 29, 30, 31, -1, -2, -7])) for _ in range(rng.randint(1, 2))))
        by = True
    if rng.random() < 0.3:
        parts.append("BYMONTH=" + ",".join(str(m) for m in rng.sample(range(1, 13), rng.randint(1, 3))))
        by = True
    if freq == "YEARLY" and rng.random() < 0.25:
        parts.append("BYYEARDAY=" + ",".join(str(rng.choice([1, 59, 60, 100, 200, 365, 366, -1, -60, -366])) for _ in range(rng.randint(1, 2))))
        by = True
    if rng.random() < 0.2:
        parts.append("BYHOUR=" + ",".join(str(h) for h in sorted(rng.sample(range(24), rng.randint(1, 3)))))
        by = True
    if rng.random() < 0.1:
        parts.append("BYMINUTE=" + ",".join(str(m) for m in sorted(rng.sample(range(60), rng.randint(1, 2)))))
        by = True
    if freq != "WEEKLY" and by and rng.random() < 0.35:
        parts.append("BYSETPOS=" + ",".join(str(rng.choice([1, 2, 3, -1, -2])) for _ in range(rng.randint(1, 2))))
    if rng.random() < 0.2:
        parts.append("WKST=" + rng.choice(DAYS))
    if rng.random() < 0.4:
        parts.append(f"COUNT={rng.randint(1, 40)}")
    return ";".join(parts)


def stamp(moment):
    return moment.strftime("%Y%m%dT%H%M%S")


def main():
    rng = random.Random(SEED)
    rows = []
    while len(rows) < ROWS:
        text = rule(rng)
        guess = FROM + timedelta(days=rng.randint(0, 200), hours=rng.randint(0, 23), minutes=rng.choice([0, 15, 30]))
        try:
            first = rrulestr(text, dtstart=guess)[0]
        except Exception:
            continue
        if first > TO:
            continue
        starts = list(rrulestr(text, dtstart=first).between(FROM, TO, inc=True))
        if not starts or starts[0] != first or len(starts) > 600:
            continue
        shown = starts if len(starts) <= 12 else starts[:8] + starts[-4:]
        rows.append((stamp(first), text, len(starts), " ".join(stamp(s) for s in shown)))
    print("// Written by scripts/rrule-oracle-table.py (python-dateutil rrule, seed %d): do not edit by hand." % SEED)
    print("extension CalendarRecurrenceTableTests {")
    print("    /// (start, RRULE, occurrences from 2026-11-28 through 2029-08-20, the first 8 and last 4 of them, or all up to 12)")
    print("    static let rows: [Row] = [")
    for start, text, count, shown in rows:
        print(f'        Row("{start}", "{text}", {count}, "{shown}"),')
    print("    ]")
    print("}")


if __name__ == "__main__":
    main()
