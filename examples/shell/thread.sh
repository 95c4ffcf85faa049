#!/usr/bin/env bash
# One whole thread: the newest conversation's, or the one named by THREAD_ID.
#   thread.sh [host options…]     THREAD_ID=t-… thread.sh
# Needs `switchboard` on PATH (scripts/install) and jq.
set -euo pipefail
answer() { jq -ec 'select(.id != null) | if .error then error(.error.message) else .result end'; }
thread=${THREAD_ID:-$(echo '{"jsonrpc":"2.0","id":1,"method":"inbox.list","params":{"limit":1}}' \
  | switchboard serve "$@" | answer | jq -r '.items[0].threadId')}
jq -nc --arg t "$thread" '{jsonrpc: "2.0", id: 2, method: "mail.thread", params: {threadId: $t}}' \
  | switchboard serve "$@" | answer \
  | jq -r '.messages[] | "\(.date)  \(.from)\n  \(.subject)\n\n\(.text | split("\n") | map("    " + .) | join("\n"))\n"'
