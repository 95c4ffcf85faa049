#!/bin/sh
# Notes the signal mask and ignored signals the host gave this process (Python changes its own), then runs the probe.
PROBE_SIGNALS=$(grep -E '^Sig(Blk|Ign)' /proc/$$/status | tr '\t\n' '  ')
export PROBE_SIGNALS
exec python3 probe.py
