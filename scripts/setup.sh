#!/usr/bin/env bash
# Make ./.venv hold the whole workspace, editable, plus the test tools. Safe to run again: it only
# reinstalls when a pyproject.toml changed. Installs python3-venv via apt-get when it is missing
# (a fresh Debian has Python but not venv).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}

apt_install() {
  if ! command -v apt-get >/dev/null; then
    echo "setup: missing $*; install them with your package manager" >&2
    exit 1
  fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: apt-get install $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

command -v "$python" >/dev/null || apt_install python3
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "setup: cua needs Python >= 3.11, $python is $("$python" -V 2>&1); set PYTHON=python3.11" >&2
  exit 1
fi
"$python" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi

# Reinstall only when the packaging of some member changed.
# cua-bench-libvirt's bindings (libvirt-python) build against the host's libvirt: its headers, pkg-config, a C compiler.
if [ -d plugins/cua-bench-libvirt ] && ! { pkg-config --exists libvirt 2>/dev/null && command -v gcc >/dev/null; }; then
  apt_install libvirt-dev pkg-config gcc
fi

stamp=.venv/.cua-installed
want=$(cat pyproject.toml packages/*/pyproject.toml $(ls plugins/*/pyproject.toml plugins/*/cua-sdk.txt tui/pyproject.toml 2>/dev/null) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # The members name each other by folder (file:// references, never an index: on PyPI cua-core and
  # cua-bench are another project's), and pip refuses an editable and a file:// reference to the same
  # folder in one resolve. So: resolve and install everything from the folders, then make each member
  # editable in place (--no-deps: the first call installed what they need).
  members=() editables=()
  for dir in packages/* plugins/* tui; do
    [ -f "$dir/pyproject.toml" ] && members+=("./$dir") && editables+=(-e "$dir")
  done
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q "${members[@]}" -e ".[dev]"
  .venv/bin/python -m pip install -q --no-deps "${editables[@]}"
  # OSWorld's own metric functions, for cua-bench's OSWorld import. --no-deps: its declared
  # dependencies pull torch and CUDA (~7 GB) for one OCR metric; the dev extra has what the rest need.
  .venv/bin/python -m pip install -q --no-deps desktop-env==1.0.2
  # Cua's own SDK and computer-server (PyPI), for cua-bench-cua's tests and bench/interop.py, in a venv of
  # their own: cua-computer needs PyPI's cua-core, another project than ours of the same name.
  if [ -f plugins/cua-bench-cua/cua-sdk.txt ]; then
    [ -x .venv/cua-sdk/bin/python ] || "$python" -m venv .venv/cua-sdk
    .venv/cua-sdk/bin/python -m pip install -q -r plugins/cua-bench-cua/cua-sdk.txt
  fi
  echo "$want" >"$stamp"
fi
