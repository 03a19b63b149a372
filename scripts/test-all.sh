#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts and the run ends with what each took (the note of a session reports them).
started=$SECONDS
names=()
begins=()
step() {
  names+=("$1")
  begins+=("$SECONDS")
  printf '\n\033[1m== %s ==\033[0m\n' "$1"
}
report() {
  local status=$?
  set +e
  printf '\n\033[1m== time per step ==\033[0m\n'
  local i count=${#names[@]}
  for ((i = 0; i < count; i++)); do
    local end=$SECONDS outcome=""
    if ((i + 1 < count)); then end=${begins[$((i + 1))]}; elif [ "$status" -ne 0 ]; then outcome=" (failed)"; fi
    printf '  %s: %d s%s\n' "${names[$i]}" $((end - begins[i])) "$outcome"
  done
  printf '  total: %d s\n' $((SECONDS - started))
  return "$status"
}
# Also when a step fails: the times so far say where the run stopped.
trap report EXIT

# Format, lint and typecheck keep what they found per file in node_modules/.cache: a second run on
# this machine rereads only the files that changed (a clean clone, as in CI, checks them all).
# Two chains side by side, each on one core: Prettier, ESLint and the raw SQL check (decision 127)
# need neither the route types nor the compiled words; the typecheck needs both first. One after the
# other the two cores took turns idling (Prettier alone, then the words alone, then ESLint's chain
# ending well before the typecheck).
step "format, lint and typecheck (side by side: each chain uses one core)"
{
  npx prettier --check . --log-level warn --cache --cache-location node_modules/.cache/prettier/.cache ||
    { echo "formatting: npm run format fixes it" >&2; exit 1; }
  npx eslint --max-warnings=0 --cache --cache-location node_modules/.cache/eslint/ .
  node --import tsx scripts/check-sql.ts
} &
lint=$!
{
  npx react-router typegen
  node scripts/messages.mjs
  npx tsc --incremental --tsBuildInfoFile node_modules/.cache/tsc/tsbuildinfo
} &
typecheck=$!
# Both chains end before the step does, whichever fails first.
lint_status=0
typecheck_status=0
wait "$lint" || lint_status=$?
wait "$typecheck" || typecheck_status=$?
if ((lint_status != 0 || typecheck_status != 0)); then exit 1; fi
step "unit and integration tests (PGlite), the production build beside them"
# The build uses one core for about 25 s; the PGlite pass leaves that much idle while its files wait
# on sockets and timers, so the two together take about as long as the tests alone. The built-server
# tests run in the PostgreSQL pass: here none may run against a build still being written (or one
# left from an earlier run, older than the code under test).
rm -rf build
build_log=$(mktemp)
npx react-router build >"$build_log" 2>&1 &
build=$!
# The words were compiled in the step before: vitest's configuration does not compile them again
# (about 12 CPU-seconds a time, vitest.config.ts).
if ! JUMBE_MESSAGES_COMPILED=1 JUMBE_BUILT_SERVER=later npx vitest run; then
  # No build left writing build/ after the run has stopped.
  kill "$build" 2>/dev/null || true
  wait "$build" 2>/dev/null || true
  exit 1
fi
if ! wait "$build"; then
  cat "$build_log"
  echo "production build failed" >&2
  exit 1
fi
tail -n 3 "$build_log"
rm -f "$build_log"
step "integration tests (PostgreSQL)"
JUMBE_MESSAGES_COMPILED=1 bash scripts/with-postgres.sh npx vitest run --project integration
step "browser tests (JavaScript on and off)"
npx playwright test
