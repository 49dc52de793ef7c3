#!/usr/bin/env bash
# The trace hash of every run behind the docs: each `schedlab sweep` command written
# in docs/ (run without its jq table), then every shipped scenario at seeds 1..5. A
# change meant to leave the model's behaviour alone (a faster path to the same
# figures) should leave this output the same: run it on the build before and after,
# and compare the two files. About 5 minutes here.
# Usage: bash scripts/sweep-hashes.sh [SCHEDLAB_BINARY] > FILE
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/schedlab}
[ -x "$bin" ] || { echo "sweep-hashes: no binary at $bin (cargo build --release -p sched-cli)" >&2; exit 1; }
hashes() { jq -c '[.points[] | .runs[] | .trace_hash]'; }
grep -h '^schedlab sweep' docs/*.md docs/policies/*.md | sed 's/ | jq.*//' | while read -r line; do
  # shellcheck disable=SC2086 # the documented command's words
  echo "$line $("$bin" ${line#schedlab } | hashes)"
done
for file in scenarios/*.json; do
  name=$(basename "$file" .json)
  [ "$name" = scenario.schema ] && continue
  echo "$name, seeds 1..5 $("$bin" sweep "$name" --vary "duration_ms=$(jq '.duration_ms' "$file")" --seeds 1..5 --json | hashes)"
done
