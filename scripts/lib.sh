# Shared by scripts/start.sh, scripts/test.sh and .ci/run: make the machine ready for the workspace.

PNPM_VERSION="$(node -p "require('./package.json').packageManager.split('@')[1]")"

# The pinned pnpm, leaving any global one alone: a pnpm of that version on PATH is used as is; otherwise
# npm installs it under .tools/ (ignored by git; no root needed) and that directory goes first on PATH.
ensure_pnpm() {
  if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then
    return
  fi
  local prefix="$PWD/.tools/pnpm-$PNPM_VERSION"
  if [ ! -x "$prefix/node_modules/.bin/pnpm" ]; then
    echo "==> installing pnpm $PNPM_VERSION into .tools/ (the pnpm on PATH, if any, is left as it is)"
    npm install --prefix "$prefix" --no-save --no-package-lock --no-fund --no-audit --loglevel=error "pnpm@$PNPM_VERSION" >/dev/null
  fi
  export PATH="$prefix/node_modules/.bin:$PATH"
}

install_dependencies() {
  echo "==> installing dependencies"
  if [ "${CI:-}" = "true" ]; then
    pnpm install --frozen-lockfile --reporter=append-only
  else
    pnpm install --reporter=append-only
  fi
}

pg_answers() {
  psql "$1" -tAc 'SELECT 1' >/dev/null 2>&1
}

# Starts the local cluster when it is down and exports DATABASE_URL (an admin connection that tests
# create their own databases from).
ensure_postgres() {
  if [ -n "${DATABASE_URL:-}" ] && pg_answers "$DATABASE_URL"; then
    return
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    echo "==> starting PostgreSQL"
    local version
    version="$(ls /etc/postgresql | sort -V | tail -n 1)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    for _ in $(seq 1 30); do
      pg_isready -q -h 127.0.0.1 -p 5432 && break
      sleep 1
    done
  fi
  local trust="postgres://postgres@127.0.0.1:5432/postgres"
  if pg_answers "$trust"; then
    export DATABASE_URL="$trust"
    return
  fi
  # No trust authentication: create a login role through the postgres system user.
  echo "==> creating the lattice login role"
  su postgres -c "psql -v ON_ERROR_STOP=1 -qc \"DO \\\$\\\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lattice') THEN
        CREATE ROLE lattice LOGIN SUPERUSER PASSWORD 'lattice';
      END IF;
    END \\\$\\\$\""
  export DATABASE_URL="postgres://lattice:lattice@127.0.0.1:5432/postgres"
  pg_answers "$DATABASE_URL" || { echo "PostgreSQL does not answer on 127.0.0.1:5432" >&2; exit 1; }
}

# A Debian package some suites need, which they start themselves on free ports: nginx (the
# load-balancer scenarios run the documented nginx.conf in front of three replicas) and pgbouncer (the
# pooler tests, pg-stores behindPgBouncer and e2e scenario 21). Only in CI (CI=true, which .ci/run
# sets: a throw-away machine where those tests must run) is a missing one installed, its packaged
# service stopped since only the binary is needed; anywhere else this script changes nothing on the
# system, and those tests are skipped with a message.
ensure_test_package() {
  local package="$1" tests="$2"
  if command -v "$package" >/dev/null 2>&1 || [ -x "/usr/sbin/$package" ]; then
    return
  fi
  if [ "${CI:-}" != "true" ]; then
    echo "==> $package is not installed: $tests will be skipped (install $package to run them)"
    return
  fi
  echo "==> CI: installing $package (Debian package)"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null
  $sudo systemctl disable --now "$package" >/dev/null 2>&1 || $sudo service "$package" stop >/dev/null 2>&1 || true
}
