#!/usr/bin/env bash
# `pnpm release`'s publishing step. `changeset publish` checks which versions a registry already has
# with npm (which reads npm_config_registry) and uploads with `pnpm publish` (pnpm reads only
# pnpm_config_registry). Given either variable, both tools get the same registry, so nothing is
# checked against one registry and uploaded to another.
set -euo pipefail
cd "$(dirname "$0")/.."

npm_registry="${npm_config_registry:-}"
pnpm_registry="${pnpm_config_registry:-}"
if [ -n "$npm_registry" ] && [ -n "$pnpm_registry" ] && [ "$npm_registry" != "$pnpm_registry" ]; then
  echo "release: npm_config_registry ($npm_registry) and pnpm_config_registry ($pnpm_registry) differ; set one of them" >&2
  exit 2
fi
registry="${pnpm_registry:-$npm_registry}"
if [ -n "$registry" ]; then
  export npm_config_registry="$registry" pnpm_config_registry="$registry"
  echo "==> publishing to $registry"
fi
exec changeset publish "$@"
