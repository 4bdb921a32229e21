#!/usr/bin/env bash
# The whole check: set up, then lint (ruff), format check, types (mypy), the import contracts
# (import-linter) and every test (pytest).
# Extra arguments go to pytest (-n 0 runs the tests in this process, one after another).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/system-deps.sh"  # the real desktop's X server and apps, for the local backend's tests
cd "$root"
venv=.venv/bin
echo "== ruff check"; "$venv/ruff" check .
echo "== ruff format --check"; "$venv/ruff" format --check .
echo "== mypy"; "$venv/mypy"
echo "== import contracts"; "$venv/lint-imports" --config .importlinter --no-cache
echo "== pytest"
# Three workers (pytest-xdist) on two cores: many tests wait on processes, desktops and daemons, and a
# third worker fills those waits (measured: 34 min one at a time, 22.8 with two workers, 19.9 with three).
# tests/conftest.py keeps costly shared setups (the Docker engine, a pool) on one worker.
exec "$venv/pytest" -n 3 --dist loadgroup "$@"
