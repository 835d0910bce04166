#!/usr/bin/env bash
# `pnpm release:pack`'s packing step: one npm tarball per publishable package (every workspace package
# not marked private), built from their dist/ as `pnpm release` would publish them. `pnpm pack` turns
# each `workspace:*` dependency into the exact version it packs beside it, so the tarballs installed
# together (`npm install ./axiom-lattice-*.tgz`) satisfy each other without any registry holding them.
# Usage: bash scripts/pack.sh [destination folder, default release/]
set -euo pipefail
cd "$(dirname "$0")/.."

destination="$(mkdir -p "${1:-release}" && cd "${1:-release}" && pwd)"
# Tarballs of an earlier version would be installed beside these by the documented glob.
rm -f "$destination"/axiom-lattice-*.tgz

for manifest in packages/*/package.json apps/*/package.json; do
  if [ "$(node -p "Boolean(require('./$manifest').private)")" = "false" ]; then
    (cd "$(dirname "$manifest")" && pnpm pack --pack-destination "$destination" >/dev/null)
    echo "==> packed $(node -p "const { name, version } = require('./$manifest'); name + ' ' + version")" >&2
  fi
done
ls "$destination"/axiom-lattice-*.tgz
