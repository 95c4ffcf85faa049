#!/usr/bin/env bash
# switchboard from a shell: one message per line in, one per line out; `switchboard call` without an envelope.
#   examples/shell.sh [path/to/switchboard]
set -euo pipefail
sb=${1:-switchboard}

# A request, a notification (never answered) and a batch, piped; replies matched by id.
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"host.ping"}' \
  '{"jsonrpc":"2.0","method":"host.ping"}' \
  '[{"jsonrpc":"2.0","id":2,"method":"host.echo","params":{"n":9007199254740993}},{"jsonrpc":"2.0","id":3,"method":"no.such"}]' \
  | "$sb" --backend memory

# The same without writing envelopes; errors go to stderr with exit status 1.
"$sb" call --backend memory --now 2026-01-01T09:00:00Z inbox.list '{"limit":2}'
"$sb" call --backend memory feed.page '{"page":3,"pageSize":2}'
if ! "$sb" call --backend memory feed.list '{"limit":"ten"}' 2>/dev/null; then echo "feed.list refused a bad limit, as it should"; fi
