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
  npm rebuild better-sqlite3
  node -e "new (require('better-sqlite3'))(':memory:').close()"
fi
mkdir -p "$CACHE"
cp "$target" "$cached"
