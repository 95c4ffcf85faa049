#!/usr/bin/env bash
# A complete switchboard plugin in bash and jq: one JSON-RPC message per line on stdin, one answer per
# line on stdout. Tool: count {text} → {words, lines, characters}.
set -euo pipefail

TOOLS='[{"name":"count","description":"Counts the words, lines and characters of a text.",
  "inputSchema":{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}},
  "outputSchema":{"type":"object","required":["words","lines","characters"],
    "properties":{"words":{"type":"integer"},"lines":{"type":"integer"},"characters":{"type":"integer"}}}}]'

answer() { jq -cn --argjson id "$1" --argjson result "$2" '{jsonrpc: "2.0", id: $id, result: $result}'; }

while IFS= read -r message; do
  id=$(jq -c '.id // empty' <<<"$message")
  [ -z "$id" ] && continue   # a notification: nothing to answer
  case $(jq -r '.method' <<<"$message") in
    initialize)
      answer "$id" '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"words","version":"1.0.0"}}' ;;
    ping)
      answer "$id" '{}' ;;
    tools/list)
      answer "$id" "{\"tools\":$TOOLS}" ;;
    tools/call)
      counts=$(jq -c '.params.arguments.text | {words: ([splits("\\s+")] | map(select(length > 0)) | length),
        lines: (split("\n") | length), characters: length}' <<<"$message")
      answer "$id" "$(jq -cn --argjson counts "$counts" '{content: [{type: "text", text: ($counts | tojson)}], structuredContent: $counts}')" ;;
    *)
      jq -cn --argjson id "$id" '{jsonrpc: "2.0", id: $id, error: {code: -32601, message: "Method not found"}}' ;;
  esac
done
