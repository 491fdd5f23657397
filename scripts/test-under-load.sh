#!/usr/bin/env bash
# The suite on a busy machine: `npm test` with CPU-bound busy loops beside it (two by default, one per
# core here), so timing-dependent tests that only pass on an idle machine fail here first.
# Usage: scripts/test-under-load.sh [loops] [vitest args...]   (CI runs it as the Node 24 pass)
set -euo pipefail
cd "$(dirname "$0")/.."

loops="${1:-2}"
shift || true
pids=()
stop_loops() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_loops EXIT INT TERM

for _ in $(seq 1 "$loops"); do
  node -e 'for (;;) {}' &
  pids+=("$!")
done
echo "test-under-load: ${#pids[@]} busy loops running beside the suite (pids ${pids[*]})"

start=$(date +%s)
set +e
npm test -- "$@"
status=$?
set -e
echo "test-under-load: suite took $(($(date +%s) - start)) s with ${#pids[@]} busy loops; exit $status"
exit "$status"
