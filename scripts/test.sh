#!/usr/bin/env bash
# The whole check: set up, then lint (ruff), format check, types (mypy) and every test (pytest).
# Extra arguments go to pytest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/system-deps.sh"  # the real desktop's X server and apps, for the local backend's tests
cd "$root"
venv=.venv/bin
echo "== ruff check"; "$venv/ruff" check .
echo "== ruff format --check"; "$venv/ruff" format --check .
echo "== mypy"; "$venv/mypy"
echo "== pytest"
exec "$venv/pytest" "$@"
