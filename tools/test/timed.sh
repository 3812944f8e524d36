#!/usr/bin/env bash
# Runs a phase of `make test` outside vitest (set-up, typecheck, lint) and appends its wall time as
# one JSON line to $SLIPWAY_TEST_PHASES (default .slipway/test-phases.jsonl), which the summary
# reporter (test/support/summary-reporter.ts) merges into .slipway/test-report.json.
#   tools/test/timed.sh <phase> <command> [args…]     exits with the command's status
set -u
phase=${1:?usage: timed.sh <phase> <command> [args…]}
shift
file=${SLIPWAY_TEST_PHASES:-.slipway/test-phases.jsonl}
mkdir -p "$(dirname "$file")"
start=$(date +%s%N)
"$@"
status=$?
end=$(date +%s%N)
printf '{"phase":"%s","seconds":%d.%03d,"exit":%d}\n' "$phase" $(((end - start) / 1000000000)) \
  $((((end - start) / 1000000) % 1000)) "$status" >>"$file"
exit "$status"
