#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s ==\033[0m\n' "$1"; }

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
