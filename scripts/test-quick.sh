#!/usr/bin/env bash
# `npm run test:quick`: the checks for the loop while working, in under two minutes on this 2-CPU
# machine with warm caches (docs/testing.md). `npm test` runs everything before a commit is shared.
#
#   npm run test:quick                                  the files changed since main, unit tests, a smoke set
#   npm run test:quick -- tests/integration/inbox.test.ts   the same, plus these test files
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
section() { printf '\n\033[1m== %s ==\033[0m (%d s)\n' "$1" $((SECONDS - started)); }

# The files this branch changed (committed since it left main, staged, unstaged, untracked), deleted ones left out.
base=$(git merge-base HEAD main 2>/dev/null || git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD)
mapfile -t changed < <(
  {
    git diff --name-only --diff-filter=d "$base"
    git ls-files --others --exclude-standard
  } | sort -u
)
code=()
for file in "${changed[@]}"; do
  case "$file" in *.ts | *.tsx | *.js | *.mjs) [ -f "$file" ] && code+=("$file") ;; esac
done

section "format and lint of the ${#changed[@]} changed files"
if ((${#changed[@]})); then
  npx prettier --check --ignore-unknown --log-level warn --cache --cache-location node_modules/.cache/prettier/.cache "${changed[@]}"
fi
node scripts/messages.mjs
if ((${#code[@]})); then
  npx eslint --max-warnings=0 --no-warn-ignored --cache --cache-location node_modules/.cache/eslint/ "${code[@]}"
fi

# The typecheck beside the tests: each uses about one core, and tsc rereads only what changed. The
# raw SQL check (scripts/check-sql.ts, decision 127) follows tsc, as in `npm run typecheck`.
section "typecheck and the raw SQL check beside the unit tests and the integration smoke set (PGlite)"
npx react-router typegen
{ npx tsc --incremental --tsBuildInfoFile node_modules/.cache/tsc/tsbuildinfo && node --import tsx scripts/check-sql.ts; } &
typecheck=$!

# One file for each thing a change most often breaks: signing in and the session, a page's loader
# and form (contacts), who may do what (roles), sending to the Meta sandbox, the job queue, the
# decision records' index. Integration test files this branch changed, and those named, run too.
smoke=(
  tests/integration/signin.test.ts
  tests/integration/contacts.test.ts
  tests/integration/roles.test.ts
  tests/integration/sending.test.ts
  tests/integration/job-queue.test.ts
  tests/integration/decision-records.test.ts
)
extra=()
for file in "${changed[@]}" "$@"; do
  case "$file" in tests/integration/*.test.ts) [ -f "$file" ] && extra+=("$file") ;; esac
done
mapfile -t integration < <(printf '%s\n' "${smoke[@]}" "${extra[@]}" | sort -u)
# One vitest run: the unit project's folders whole (absolute: a filter matches part of a path), the
# integration files by name. The words were compiled above (compiled again, they would vanish under
# the typecheck reading them). The built-server tests wait for `npm test` (a build here may be older
# than the code).
status=0
JUMBE_MESSAGES_COMPILED=1 JUMBE_BUILT_SERVER=later npx vitest run --project unit --project integration \
  "$PWD/app/" "$PWD/sandbox/" "$PWD/scripts/" "$PWD/tests/architecture/" "$PWD/tests/sandbox/" "${integration[@]}" || status=1
wait "$typecheck" || status=1

section "done: $([ "$status" -eq 0 ] && echo passed || echo FAILED)"
exit "$status"
