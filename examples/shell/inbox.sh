#!/usr/bin/env bash
# The inbox, newest conversation first: one request piped in, the answer read with jq.
#   inbox.sh [host options…]      e.g. inbox.sh --backend memory --now 2026-01-01T09:00:00Z
# Needs `switchboard` on PATH (scripts/install) and jq.
set -euo pipefail
echo '{"jsonrpc":"2.0","id":1,"method":"inbox.list","params":{"limit":10}}' \
  | switchboard serve "$@" \
  | jq -er 'select(.id == 1) | if .error then error(.error.message) else .result.items[] end
            | "\(.latest.date)  \(.latest.from)  \(.subject) (\(.messageCount))"'
