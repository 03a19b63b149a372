#!/usr/bin/env bash
# `npm test`: every check the project has, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts and the run ends with what each took (the note of a session reports them).
started=$SECONDS
names=()
begins=()
details=()
step() {
  names+=("$1")
  begins+=("$SECONDS")
  details+=("")
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
    printf '  %s: %d s%s%s\n' "${names[$i]}" $((end - begins[i])) "$outcome" "${details[$i]}"
  done
  printf '  total: %d s\n' $((SECONDS - started))
  return "$status"
}
# Commands at once ("name" "command" pairs), each line prefixed with its name; fails when one fails,
# after all end. What each took goes beside the step's time in the report.
side_by_side() {
  local pids=() labels=() begun=$SECONDS times
  times=$(mktemp)
  while [ $# -gt 0 ]; do
    local label="$1" command="$2"
    shift 2
    # Its own subshell: pipefail keeps the command's status through the prefixing sed.
    (
      set +e -o pipefail
      eval "$command" 2>&1 | sed -u "s/^/[$label] /"
      status=$?
      outcome=""
      if [ "$status" -ne 0 ]; then outcome=" failed"; fi
      echo "$label $((SECONDS - begun)) s$outcome" >>"$times"
      exit "$status"
    ) &
    pids+=($!)
    labels+=("$label")
  done
  local failed=() i
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${labels[$i]}"); done
  details[${#details[@]}-1]=" ($(paste -sd, "$times" | sed 's/,/, /g'))"
  rm -f "$times"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "Failed: ${failed[*]} (their lines above carry the prefix)" >&2
    return 1
  fi
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
# The PostgreSQL pass and the browser tests both wait on sockets, timers and browsers more than they
# compute (each alone kept about one of the two cores busy): side by side, each prefixes its lines.
step "integration tests (PostgreSQL) and browser tests (JavaScript on and off), side by side"
side_by_side \
  "postgres" "bash scripts/with-postgres.sh npx vitest run --project integration" \
  "browser" "npx playwright test"
