# `source scripts/use-pnpm.sh` from the checkout's root: puts the pnpm that package.json pins first on
# the calling shell's PATH (installed under .tools/ when no pnpm of that version is on PATH), so the
# README's `pnpm …` commands run the pnpm scripts/start.sh and scripts/test.sh run, not a global one.
source scripts/lib.sh
ensure_pnpm
echo "pnpm $(pnpm --version): $(command -v pnpm)"
