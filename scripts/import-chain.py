#!/usr/bin/env python3
"""Writes an import file whose N messages are one reply chain (each answers the one before), for
the mail.import benchmark in docs/benchmarks.md:  scripts/import-chain.py 10000 > chain-10000.json
With --reverse the replies come before the messages they answer (the slowest order to thread)."""
import json
import sys

count = int(sys.argv[1])
records = [{
    "uid": f"c{i}", "from": "ada@example.com" if i % 2 else "demo@switchboard.example",
    "to": "demo@switchboard.example" if i % 2 else "ada@example.com",
    "subject": "Re: the long thread" if i else "the long thread",
    "text": f"Reply number {i} in a long chain of replies.",
    "responseToUid": f"c{i - 1}" if i else "",
    "dateTime": f"2025-{1 + i // 40000 % 12:02d}-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00Z",
} for i in range(count)]
if "--reverse" in sys.argv:
    records.reverse()
json.dump({"inbox": records}, sys.stdout)
