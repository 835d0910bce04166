#!/usr/bin/env bash
# Installs what is missing and starts one gateway on the embedded default (in-memory stores, port 4001).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export TURBO_TELEMETRY_DISABLED=1

ensure_pnpm
install_dependencies
exec pnpm start
