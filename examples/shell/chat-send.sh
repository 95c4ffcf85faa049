#!/usr/bin/env bash
# Sends a chat message and waits for the host to confirm it: chat.send answers `pending` at once, then
# the notification chat.messageState says `sent` (or `failed`, with a reason).
#   chat-send.sh ROOM TEXT [host options…]   e.g. chat-send.sh dm-u0-u1 'Lunch?' --backend memory
# Needs `switchboard` on PATH (scripts/install) and jq.
set -euo pipefail
room=$1 text=$2
shift 2
coproc host { switchboard serve "$@"; }
jq -nc --arg room "$room" --arg text "$text" --arg client "sh-$$-$RANDOM" \
  '{jsonrpc: "2.0", id: 1, method: "chat.send", params: {roomId: $room, text: $text, clientMessageId: $client}}' \
  >&"${host[1]}"
# Lines come in order: first the answer, then (always after it) the confirmation.
while IFS= read -r line <&"${host[0]}"; do
  if jq -e '.id == 1' <<<"$line" >/dev/null; then
    jq -er 'if .error then error(.error.message) else "answered: \(.result.message.state)" end' <<<"$line"
  elif jq -e '.method == "chat.messageState"' <<<"$line" >/dev/null; then
    jq -r '.params | "\(.state): \(.id // "") \(.sentAt // .reason)"' <<<"$line"
    jq -e '.params.state == "sent"' <<<"$line" >/dev/null
    break
  fi
done
exec {host[1]}>&-
wait "$host_PID"
