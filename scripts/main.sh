#!/usr/bin/env bash
# The main job: set up, then show the bus working live (a forwarder, an RPC server and a client).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
exec "$root/.venv/bin/cua-bus" demo "$@"
