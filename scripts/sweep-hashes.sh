#!/usr/bin/env bash
# The trace hash of every run behind the docs: each `schedlab sweep` command written
# in docs/ (run without its jq table), then every shipped scenario at seeds 1..5. A
# change meant to leave the model's behaviour alone (a faster path to the same
# figures) should leave this output the same: run it on the build before and after,
# and compare the two files. A run that fails stops the script with its error.
# About 5 minutes here.
# Usage: bash scripts/sweep-hashes.sh [SCHEDLAB_BINARY] > FILE
set -euo pipefail
bin=$(realpath "${1:-$(dirname "$0")/../target/release/schedlab}")
cd "$(dirname "$0")/.."
[ -x "$bin" ] || { echo "sweep-hashes: no binary at $bin (cargo build --release -p sched-cli)" >&2; exit 1; }
# One line: the label, then the sweep's hashes; fails on a failed or empty sweep.
line() {
  local label=$1 out hashes
  shift
  out=$("$bin" "$@") || { echo "sweep-hashes: failed: schedlab $*" >&2; exit 1; }
  hashes=$(jq -c '[.points[] | .runs[] | .trace_hash]' <<<"$out")
  [ "$hashes" != "[]" ] || { echo "sweep-hashes: no runs: schedlab $*" >&2; exit 1; }
  echo "$label $hashes"
}
commands=$(grep -h '^schedlab sweep' docs/*.md docs/policies/*.md | sed 's/ | jq.*//')
while read -r command; do
  # shellcheck disable=SC2086 # the documented command's words
  line "$command" ${command#schedlab }
done <<<"$commands"
for file in scenarios/*.json; do
  name=$(basename "$file" .json)
  [ "$name" = scenario.schema ] && continue
  line "$name, seeds 1..5" sweep "$name" --vary "duration_ms=$(jq '.duration_ms' "$file")" --seeds 1..5 --json
done
