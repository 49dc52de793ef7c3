#!/usr/bin/env bash
# The performance guard run by `npm test`: instructions per handled event, counted by
# valgrind's callgrind inside `Simulator::step` only (set-up excluded). Instruction
# counts do not move with machine load, so the limits can be tight enough to catch a
# real regression without making the test flaky:
#   - hackbench on 512 CPUs may cost at most 1.6x per event what it costs on 32
#     (the target is 1.3x);
#   - the schbench scenario on 512 CPUs at most 1.9x what it costs on 40 (target 1.5x);
#   - hackbench on 32 CPUs at most 2,600 instructions per event (about 2.4x today's);
#   - schbench's pipe mode on Milan (72 CPUs, where newidle balancing reads the group
#     sums of every domain) at most 4,000 (about 1.5x today's; 4,739 before the sums
#     served domains of nine CPUs and up).
# With --with-cgroups (as `npm run bench` runs it), the cgroup tree of 1,056 groups may
# cost at most 1.3x per event what 110 groups cost (the target: flat). With
# --with-task-count (also in `npm run bench`), hackbench with 10,000 tasks may cost at
# most 1.6x per event what 120 tasks cost (the target is 1.3x).
# It counts in the `guard` build profile (Cargo.toml), which builds in less than half
# the time of release; `--profile release` counts in release, as `npm run bench` does.
# Usage: bash scripts/perf-guard.sh [--json FILE] [--with-cgroups] [--with-task-count]
#          [--profile guard|release]
#   (--json writes the figures as JSON too)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
json_out=""
with_cgroups=0
with_task_count=0
profile=guard
while [ $# -gt 0 ]; do
  case $1 in
    --json) json_out=$2; shift 2 ;;
    --with-cgroups) with_cgroups=1; shift ;;
    --with-task-count) with_task_count=1; shift ;;
    --profile) profile=$2; shift 2 ;;
    *) echo "perf-guard: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "perf-guard: valgrind is missing (scripts/setup.sh installs it)" >&2; exit 1; }
# The counting program: `schedlab bench --repeat 1` without the CLI's argument parser
# and native schema validation, so this build compiles the model and little else.
cargo build --profile "$profile" -q -p sched-scenario --no-default-features --example count_events
bin=target/$profile/examples/count_events
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name, then the scenario and its `--set` overrides (as `schedlab bench` takes them).
cases=(
  "hackbench-32|hackbench-7950x --set workloads.0.loops=20"
  "hackbench-512|hackbench-7950x --set workloads.0.loops=20 --set topology.preset=zen4-2s128c --set workloads.0.groups=16"
  "schbench-40|sis-schbench-t19 --set duration_ms=300"
  "schbench-512|sis-schbench-t19 --set duration_ms=300 --set topology.preset=zen4-2s128c --set workloads.0.worker_threads=255"
  "pipe-milan|schbench-pipe-milan --set duration_ms=5"
)
if [ "$with_cgroups" = 1 ]; then
  # The cgroup trees of `npm run bench` (about 3,000 tasks on 256 CPUs), 150 ms each.
  cases+=(
    "cgroups-110|cgroup-d3w10 --set duration_ms=150 --set workloads.0.depth=2 --set workloads.0.leaf.message_threads=10"
    "cgroups-1056|cgroup-d3w10 --set duration_ms=150 --set workloads.0.depth=2 --set workloads.0.width=32"
  )
fi
if [ "$with_task_count" = 1 ]; then
  # hackbench on 32 CPUs with 120 and 10,000 tasks, about a million events each.
  cases+=(
    "tasks-120|hackbench-7950x --set workloads.0.groups=3 --set workloads.0.loops=400"
    "tasks-10000|hackbench-7950x --set workloads.0.groups=250 --set workloads.0.loops=4"
  )
fi
# Each count runs in one thread under callgrind: as many at once as there are cores.
jobs=$(nproc 2>/dev/null || echo 2)
count_case() {
  local name=${1%%|*}
  # shellcheck disable=SC2086 # the arguments are words
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.out" --toggle-collect='*Simulator::step*' \
    "$bin" ${1#*|} > "$tmp/$name.json" 2> "$tmp/$name.err"
}
for entry in "${cases[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  count_case "$entry" &
done
wait || true # a count that failed has no figures, and the check below names it
for entry in "${cases[@]}"; do
  name=${entry%%|*}
  events=$(sed -n 's/.*"events": *\([0-9]*\).*/\1/p' "$tmp/$name.json")
  instructions=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$tmp/$name.err")
  echo "$name $events $instructions" >> "$tmp/figures"
done

node - "$tmp/figures" "$json_out" <<'EOF'
const fs = require('node:fs');
const [figuresFile, jsonOut] = process.argv.slice(2);
const rows = fs.readFileSync(figuresFile, 'utf8').trim().split('\n').map((line) => line.split(' '));
const per = Object.fromEntries(rows.map(([name, events, instructions]) => [name, { events: Number(events), instructions: Number(instructions), per_event: Number(instructions) / Number(events) }]));
for (const [name, figure] of Object.entries(per)) {
  if (!(figure.events > 0 && figure.instructions > 0)) {
    console.error(`perf-guard: no figures for ${name}`);
    process.exit(1);
  }
  console.log(`${name.padEnd(14)} ${String(figure.events).padStart(9)} events  ${figure.per_event.toFixed(0).padStart(6)} instructions per event`);
}
const checks = [
  ['hackbench, 512 CPUs against 32', per['hackbench-512'].per_event / per['hackbench-32'].per_event, 1.6],
  ['schbench, 512 CPUs against 40', per['schbench-512'].per_event / per['schbench-40'].per_event, 1.9],
];
if (per['cgroups-110']) {
  checks.push(['cgroup tree, 1056 groups against 110', per['cgroups-1056'].per_event / per['cgroups-110'].per_event, 1.3]);
}
if (per['tasks-120']) {
  checks.push(['hackbench, 10000 tasks against 120', per['tasks-10000'].per_event / per['tasks-120'].per_event, 1.6]);
}
const absolute = [
  ['hackbench on 32 CPUs, instructions per event', per['hackbench-32'].per_event, 2600],
  ['schbench pipe mode on Milan, instructions per event', per['pipe-milan'].per_event, 4000],
];
let failed = false;
for (const [what, value, limit] of [...checks, ...absolute]) {
  const ok = value <= limit;
  failed ||= !ok;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${value.toFixed(value < 100 ? 2 : 0)} (limit ${limit})`);
}
if (jsonOut) {
  fs.writeFileSync(jsonOut, JSON.stringify({ instructions_per_event: per, ratios: Object.fromEntries(checks.map(([what, value]) => [what, Number(value.toFixed(3))])) }, null, 2) + '\n');
}
process.exit(failed ? 1 : 0);
EOF
