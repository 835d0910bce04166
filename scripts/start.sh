#!/usr/bin/env bash
# Installs what is missing and starts one gateway on the embedded default (in-memory stores, port 4001).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export TURBO_TELEMETRY_DISABLED=1

# Progress on stderr: stdout carries nothing but the gateway's JSON log lines.
{
  ensure_pnpm
  install_dependencies
} >&2
exec pnpm start
