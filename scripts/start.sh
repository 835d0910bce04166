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
  # turbo prints each package's build as it goes; a checkout's first build takes a minute or two.
  echo "==> building the gateway (the first time builds every package; later starts reuse the build)"
} >&2
exec pnpm start
