#!/usr/bin/env bash
# Make node_modules' better-sqlite3 binary match the `node` on PATH, keeping one built copy per ABI in a cache.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${X402_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/x402-gateway-ci}/better-sqlite3"
abi="$(node -p process.versions.modules)"
version="$(node -p "require('better-sqlite3/package.json').version")"
cached="$CACHE/$version-abi$abi.node"
target="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
if [ -f "$cached" ]; then
  mkdir -p "$(dirname "$target")"
  cp "$cached" "$target"
fi
if ! node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null; then
  echo "native-addon: building better-sqlite3 for node $(node --version) (ABI $abi)"
  # Build against the running Node's own headers (the machine's npmrc points nodedir at the system Node's).
  # The npm registry's node@N keeps its headers in node_modules/node-<platform>-<arch>; a system Node in <prefix>/include.
  nodedir="$(node -e "
    const path = require('path'), fs = require('fs');
    const prefix = path.resolve(process.execPath, '../..');
    const candidates = [prefix, path.join(prefix, 'node_modules', 'node-' + process.platform + '-' + process.arch)];
    console.log(candidates.find((dir) => fs.existsSync(path.join(dir, 'include/node/common.gypi'))) ?? prefix);
  ")"
  npm_config_nodedir="$nodedir" npm rebuild better-sqlite3
  node -e "new (require('better-sqlite3'))(':memory:').close()"
fi
mkdir -p "$CACHE"
cp "$target" "$cached"
