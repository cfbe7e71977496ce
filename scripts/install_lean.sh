#!/usr/bin/env bash
# Install elan (Lean's toolchain manager) into ~/.elan with the official installer, then the toolchain
# pinned in lean-toolchain. Used by `make prove` when `lake` is not on PATH (LEAN_BOOTSTRAP=0 turns that
# off). Before it starts it says on stderr what it downloads, where to and how to skip it; where the
# network does not reach the installer it gives up within a few seconds with one line on stdout.
# ELAN_INIT_URL: another address of elan-init.sh (a mirror).
set -euo pipefail
cd "$(dirname "$0")/.."
url=${ELAN_INIT_URL:-https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh}
toolchain=$(cat lean-toolchain)
echo "installing Lean into ~/.elan: elan (a few MB, from $url), then the toolchain $toolchain" \
     "(about 200 MB to download, about 1 GB on disk); LEAN_BOOTSTRAP=0 skips this" >&2
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if ! err=$(curl -sSfL --connect-timeout 5 --max-time 120 "$url" -o "$tmp" 2>&1); then
  err=${err#curl: }
  echo "cannot download the elan installer from $url (${err#\(*\) }): nothing installed"
  exit 1
fi
if ! sh "$tmp" -y --default-toolchain "$toolchain" >/dev/null 2>&1; then
  echo "the elan installer failed (run it by hand to see why: curl -sSfL $url | sh)"
  exit 1
fi
"$HOME/.elan/bin/lake" --version
