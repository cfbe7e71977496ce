#!/usr/bin/env bash
# Install elan (Lean's toolchain manager) with the official installer, then the toolchain pinned in
# lean-toolchain. Used by `make prove` when `lake` is not on PATH (LEAN_BOOTSTRAP=0 turns that off).
# Fails quickly, with one line, where the network does not reach the installer.
set -euo pipefail
cd "$(dirname "$0")/.."
url=https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if ! curl -sSfL --connect-timeout 10 --max-time 120 "$url" -o "$tmp" 2>/dev/null; then
  echo "cannot download the elan installer"
  exit 1
fi
sh "$tmp" -y --default-toolchain "$(cat lean-toolchain)" >/dev/null
"$HOME/.elan/bin/lake" --version
