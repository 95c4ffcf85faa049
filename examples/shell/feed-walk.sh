#!/usr/bin/env bash
# Walks the whole feed with cursors over one host process: each answer's nextCursor goes into the next
# request until hasMore is false. Prints each page's size, then the total and the last id.
#   feed-walk.sh [host options…]   e.g. feed-walk.sh --db /tmp/small.sqlite --feed-items 1000
# Needs `switchboard` on PATH (scripts/install) and jq.
set -euo pipefail
coproc host { switchboard serve "$@"; }
cursor=null pages=0 items=0 last=
while :; do
  jq -nc --argjson cursor "$cursor" --argjson id "$((pages + 1))" \
    '{jsonrpc: "2.0", id: $id, method: "feed.list", params: ({limit: 500} + if $cursor then {cursor: $cursor} else {} end)}' \
    >&"${host[1]}"
  IFS= read -r line <&"${host[0]}"
  page=$(jq -ec 'if .error then error(.error.message) else .result end' <<<"$line")
  count=$(jq '.items | length' <<<"$page")
  pages=$((pages + 1)) items=$((items + count))
  ((count)) && last=$(jq '.items[-1].id' <<<"$page")
  echo "page $pages: $count items"
  jq -e .hasMore <<<"$page" >/dev/null || break
  cursor=$(jq -c .nextCursor <<<"$page")
done
exec {host[1]}>&-
wait "$host_PID"
echo "walked $items items in $pages pages, last id $last"
