#!/usr/bin/env bash
# Make node_modules' better-sqlite3 binary match the `node` on PATH, keeping one built copy per ABI in a cache.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${X402_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/x402-gateway-ci}/better-sqlite3"
node_version="$(node -p process.version)"
version="$(node -p "require('better-sqlite3/package.json').version")"
# Keyed by the exact Node version, not only the ABI: Node 24's ObjectWrap changed within one ABI, and the
# addon must be built against the headers of the Node it runs on (nodejs/node#65446).
cached="$CACHE/$version-node$node_version.node"
target="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
marker="node_modules/better-sqlite3/build/x402-built-for"
built_for="$(cat "$marker" 2>/dev/null || true)"
if [ -f "$cached" ]; then
  mkdir -p "$(dirname "$target")"
  cp "$cached" "$target"
elif [ "$built_for" != "$node_version" ] && { [ -n "$built_for" ] || ! node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null; }; then
  echo "native-addon: building better-sqlite3 for node $node_version"
  # Build against the running Node's own headers (the machine's npmrc points nodedir at the system Node's).
  # The npm registry's node@N keeps its headers in node_modules/node-<platform>-<arch>; a system Node in <prefix>/include.
  nodedir="$(node -e "
    const path = require('path'), fs = require('fs');
    const prefix = path.resolve(process.execPath, '../..');
    const candidates = [prefix, path.join(prefix, 'node_modules', 'node-' + process.platform + '-' + process.arch)];
    console.log(candidates.find((dir) => fs.existsSync(path.join(dir, 'include/node/common.gypi'))) ?? prefix);
  ")"
  npm_config_nodedir="$nodedir" npm rebuild better-sqlite3
fi
node -e "new (require('better-sqlite3'))(':memory:').close()"
echo "$node_version" > "$marker"
mkdir -p "$CACHE"
cp "$target" "$cached"
