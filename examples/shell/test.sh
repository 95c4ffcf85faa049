#!/usr/bin/env bash
# Runs each shell example from a copy outside the repository, with `switchboard` found on PATH only,
# and checks what it prints.  examples/shell/test.sh   (switchboard on PATH)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/inbox.sh "$here"/thread.sh "$here"/chat-send.sh "$here"/feed-walk.sh "$work"/
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
echo "shell examples: ok"
