#!/usr/bin/env bash
# Makes sure a stock CometBFT binary of the version nodectl is tested against exists, and prints its path.
#
# The binary lives outside the repository, in a cache folder shared by every checkout of the machine:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/nodectl/cometbft-v<version>/cometbft
# It is built once per machine from CometBFT's sources with the machine's Go, through the Go module
# proxy (`go install`), and reused afterwards. Nothing is written to the repository.
#
# Usage: scripts/cometbft-bin.sh          build if missing, print the path
#        scripts/cometbft-bin.sh --path   print where the binary goes, build nothing
set -euo pipefail

# Keep in step with COMETBFT_VERSION of test/helpers/cometbft.ts.
version=v0.38.25
dir="${XDG_CACHE_HOME:-$HOME/.cache}/nodectl/cometbft-$version"
bin="$dir/cometbft"

if [ "${1:-}" = "--path" ]; then
  echo "$bin"
  exit 0
fi

# `cometbft version` prints the bare version ("0.38.25").
if [ -x "$bin" ] && [ "$("$bin" version 2>/dev/null)" = "${version#v}" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null; then
  echo "cometbft-bin: Go is needed to build CometBFT $version (https://go.dev/dl/), or set COMETBFT_BIN to a cometbft $version binary" >&2
  exit 1
fi

mkdir -p "$dir"
# Built into a folder of its own, then renamed into place: a run that is interrupted, or two runs at
# once, never leave a half-written binary at "$bin".
staging=$(mktemp -d "$dir/build.XXXXXX")
trap 'rm -rf "$staging"' EXIT
echo "cometbft-bin: building CometBFT $version with $(go version) (once per machine)" >&2
GOBIN="$staging" go install "github.com/cometbft/cometbft/cmd/cometbft@$version" >&2
mv -f "$staging/cometbft" "$bin"
echo "$bin"
