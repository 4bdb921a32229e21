#!/usr/bin/env bash
# The main job: set up, then run the sim taskset on the embedded desktop with the oracle (every task
# should score 1.0) and with the random agent, and print both summaries. Extra arguments go to both
# runs (e.g. --variants 10 --max-parallel 4).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
runs=${CUA_RUNS:-$root/runs/main-$(date +%Y%m%d-%H%M%S)}
bench="$root/.venv/bin/cua-bench"
echo "== oracle on the sim taskset"
"$bench" run sim --agent oracle --variants 4 --max-parallel 2 --output "$runs/oracle" "$@"
echo
echo "== random agent on the sim taskset"
"$bench" run sim --agent random --variants 4 --max-parallel 2 --max-steps 15 --output "$runs/random" "$@"
