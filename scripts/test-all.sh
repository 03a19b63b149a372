#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts and the run ends with what each took (the note of a session reports them).
started=$SECONDS
last=$SECONDS
timings=()
step() {
  if [ ${#timings[@]} -gt 0 ]; then timings[${#timings[@]}-1]+=" $((SECONDS - last)) s"; fi
  last=$SECONDS
  timings+=("$1:")
  printf '\n\033[1m== %s ==\033[0m\n' "$1"
}
report() {
  local status=$?
  set +e
  local outcome=""
  if [ "$status" -ne 0 ]; then outcome=" (failed)"; fi
  if [ ${#timings[@]} -gt 0 ]; then timings[${#timings[@]}-1]+=" $((SECONDS - last)) s$outcome"; fi
  printf '\n\033[1m== time per step ==\033[0m\n'
  printf '  %s\n' "${timings[@]}"
  printf '  total: %d s\n' $((SECONDS - started))
  return "$status"
}
# Also when a step fails: the times so far say where the run stopped.
trap report EXIT

step "format (Prettier; npm run format fixes it)"
npx prettier --check . --log-level warn
step "lint and typecheck (side by side: each uses one core)"
npx react-router typegen
npx eslint --max-warnings=0 . &
lint=$!
npx tsc &
typecheck=$!
wait "$lint"
wait "$typecheck"
step "unit and integration tests (PGlite)"
# The built-server tests run after the build below; a build left from an earlier run is older than
# the code under test, so none may run against it here.
rm -rf build
npx vitest run
step "production build"
npx react-router build
# After the build: the PostgreSQL run also starts two built servers on one database (API rate limit).
step "integration tests (PostgreSQL)"
bash scripts/with-postgres.sh npx vitest run --project integration
step "browser tests (JavaScript on and off)"
npx playwright test
