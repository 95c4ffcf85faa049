#!/usr/bin/env bash
# Runs each shell example from a copy outside the repository, with `switchboard` found on PATH only,
# and checks what it prints.  examples/shell/test.sh   (switchboard on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/inbox.sh "$here"/thread.sh "$here"/chat-send.sh "$here"/feed-walk.sh "$here"/agenda.sh "$work"/
cd "$work"
memory=(--backend memory --now 2026-01-01T09:00:00Z)
fail() { echo "shell examples: $*" >&2; exit 1; }
expect() { grep -qF -- "$2" <<<"$1" || fail "expected '$2' in: $1"; }

out=$(./inbox.sh "${memory[@]}");                 expect "$out" "Hotel options in São Paulo (2)"
[ "$(wc -l <<<"$out")" -eq 10 ] || fail "inbox.sh printed $(wc -l <<<"$out") lines, not 10"
out=$(./thread.sh "${memory[@]}");                expect "$out" "Re: Hotel options in São Paulo"
out=$(./chat-send.sh dm-u0-u1 'Lunch?' "${memory[@]}")
expect "$out" "answered: pending";                expect "$out" "sent: msg-"
out=$(./feed-walk.sh --db "$work/feed.sqlite" --feed-items 1234 2>/dev/null)
expect "$out" "walked 1234 items in 3 pages, last id 1234"
out=$(FROM=2026-01-05 WEATHER_OFFLINE=1 ./agenda.sh "${memory[@]}" --plugins "$here/../../Plugins")
days=$(grep -c '^2026-01-' <<<"$out" || true)
[ "$days" -eq 7 ] || fail "agenda.sh showed $days days, not 7: $out"
grep -qE '^2026-01-05  [a-z]+, -?[0-9]+ to -?[0-9]+ °C$' <<<"$out" || fail "no weather in: $out"
grep -qE '^  (all day|[0-9]{2}:[0-9]{2})  .' <<<"$out" || fail "no events in: $out"
echo "shell examples: ok"
