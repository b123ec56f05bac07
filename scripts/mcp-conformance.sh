#!/usr/bin/env bash
# The MCP conformance suite, a peer's tests of the desk's MCP server
# (docs/conductor.md): @modelcontextprotocol/conformance runs the scenarios
# below against POST /api/desk/mcp of a desk started from dist/ (npm run
# build first) without a token, on a fresh library root. Exits non-zero when
# a scenario fails. .ci/run calls it.
#
# The suite needs Node >= 22 and the project runs on Node 20, so Node 22 and
# the suite are installed outside the tree's dependencies, into
# .cache/node22 (gitignored), and the suite runs on that binary. Never add
# the npm package node@22 to package.json: its .bin/node would put every npm
# script on Node 22.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_VERSION=0.1.14
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection)
PREFIX=.cache/node22
NODE22="$PREFIX/node_modules/.bin/node"
SUITE="$PREFIX/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if [ ! -x "$NODE22" ] || [ ! -f "$SUITE" ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" "$PREFIX/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  echo "mcp-conformance: installing node@22 and @modelcontextprotocol/conformance@$SUITE_VERSION into $PREFIX"
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" --no-audit --no-fund --no-save --loglevel=error "node@22" "@modelcontextprotocol/conformance@$SUITE_VERSION" >/dev/null
fi
[ -f dist/src/server.js ] || { echo "mcp-conformance: dist/ is not built; run npm run build" >&2; exit 2; }

work=$(mktemp -d)
server=''
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# no token, no users file: the loopback operator's desk, where every request passes the token step
env -u DESK_TOKEN -u DESK_USERS_FILE HOST=127.0.0.1 PORT=0 LOG_LEVEL=info DESK_LIBRARY_ROOT="$work/root" \
  node dist/src/server.js >"$work/server.log" 2>&1 &
server=$!
base=''
for _ in $(seq 1 300); do
  base=$(grep -o 'Server listening at http://127\.0\.0\.1:[0-9]*' "$work/server.log" | head -1 | sed 's/Server listening at //') || true
  [ -n "$base" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; echo "mcp-conformance: the desk exited before listening" >&2; exit 1; }
  sleep 0.1
done
[ -n "$base" ] || { echo "mcp-conformance: the desk did not listen within 30 s" >&2; exit 1; }

failed=0
for s in "${SCENARIOS[@]}"; do
  if "$NODE22" "$SUITE" server --url "$base/api/desk/mcp" --scenario "$s" -o "$work/results" >"$work/$s.out" 2>&1; then
    echo "mcp-conformance: $s passed"
  else
    failed=$((failed + 1))
    echo "mcp-conformance: $s FAILED"
    cat "$work/$s.out"
  fi
done
echo "mcp-conformance: $((${#SCENARIOS[@]} - failed)) of ${#SCENARIOS[@]} scenarios passed"
[ "$failed" -eq 0 ]
