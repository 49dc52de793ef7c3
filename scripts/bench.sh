#!/usr/bin/env bash
# The benchmark suite (`npm run bench`, about 10 minutes here). Numbers vary from
# machine to machine and run to run: compare ratios measured in one run, not
# across runs. Writes every figure, with the command that made it, to bench.json
# (BENCH_JSON=FILE to put it elsewhere) and the tables between the bench markers
# of docs/PERFORMANCE.md (BENCH_DOCS=0 leaves the docs alone).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
out=${BENCH_JSON:-bench.json}
cargo build --release -q -p sched-cli
bin=target/release/schedlab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== native ($(uname -m)), $(date -u +%Y-%m-%d)"

# Simulation speed: `schedlab bench` (events per second, median of the runs).
# Each line: a label, then the arguments.
native_cases=(
  "teaching-small|teaching-small --repeat 5"
  "sis-schbench-t19|sis-schbench-t19 --repeat 5"
  "hackbench, 32 CPUs|hackbench-7950x --repeat 3 --set workloads.0.loops=200"
  "hackbench, 512 CPUs|hackbench-7950x --repeat 3 --set topology.preset=zen4-2s128c --set workloads.0.groups=16 --set workloads.0.loops=200"
  "hackbench, 120 tasks|hackbench-7950x --repeat 3 --set workloads.0.groups=3 --set workloads.0.loops=2000"
  "hackbench, 1000 tasks|hackbench-7950x --repeat 3 --set workloads.0.groups=25 --set workloads.0.loops=240"
  "hackbench, 10000 tasks|hackbench-7950x --repeat 3 --set workloads.0.groups=250 --set workloads.0.loops=24"
  "cgroup tree, 110 groups (depth 2), 3000 tasks|cgroup-d3w10 --repeat 3 --set workloads.0.depth=2 --set workloads.0.leaf.message_threads=10"
  "cgroup tree, 1056 groups (depth 2), 3072 tasks|cgroup-d3w10 --repeat 3 --set workloads.0.depth=2 --set workloads.0.width=32"
  "cgroup tree, 1110 groups (depth 3), 3000 tasks|cgroup-d3w10 --repeat 3"
)
# Then every shipped scenario as it ships: once, or, for a run of fewer than 300,000
# events, as many times as make about that many (at most 50): a run of a few
# thousand events lasts under a millisecond, and one such run's rate is mostly noise.
for file in scenarios/*.json; do
  name=$(basename "$file" .json)
  [ "$name" = scenario.schema ] && continue
  events=$("$bin" bench "$name" --repeat 1 --json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).events)')
  repeat=$(( events >= 300000 ? 1 : 300000 / events ))
  repeat=$(( repeat > 50 ? 50 : repeat ))
  native_cases+=("$name (shipped)|$name --repeat $repeat")
done
for entry in "${native_cases[@]}"; do
  label=${entry%%|*}
  args=${entry#*|}
  # shellcheck disable=SC2086 # the arguments are words
  "$bin" bench $args --json > "$tmp/one.json"
  node -e '
    const [file, label, args] = process.argv.slice(1);
    const figure = JSON.parse(require("fs").readFileSync(file, "utf8"));
    console.log(JSON.stringify({ label, command: `schedlab bench ${args}`, ...figure }));
    const m = (x) => (x / 1e6).toFixed(2);
    console.error(`native: ${label}: ${figure.cpus} CPUs, ${figure.events} events, ${m(figure.events_per_s.median)} M events/s (${m(figure.events_per_s.min)}..${m(figure.events_per_s.max)})`);
  ' "$tmp/one.json" "$label" "$args" >> "$tmp/native.jsonl"
done

# Instructions per event (callgrind), the figures the guard in `npm test` checks.
bash scripts/perf-guard.sh --json "$tmp/instructions.json" --with-cgroups --with-task-count --profile release || echo "bench: the performance guard's limits were not met (see above)"

# The ftrace parser and replay (`schedlab replay`), on a schedlab-written trace.
"$bin" run hackbench-7950x --set workloads.0.loops=1000 --trace-out "$tmp/hackbench.trace" > /dev/null
bytes=$(stat -c %s "$tmp/hackbench.trace")
for run in 1 2 3; do
  start=$(date +%s%N)
  "$bin" replay "$tmp/hackbench.trace" --json > /dev/null
  end=$(date +%s%N)
  echo "$bytes $start $end"
done | awk '{ mb = $1 / 1e6; s = ($3 - $2) / 1e9; printf "replay: %.0f MB in %.3f s, %.0f MB/s (parse, replay and JSON)\n", mb, s, mb / s }' | tee "$tmp/replay.txt"
# The parser alone, and parser and replay, on the same trace held in memory (no disk, no JSON).
cargo build --release -q -p sched-core --example parse_bench
target/release/examples/parse_bench "$tmp/hackbench.trace" --repeat 5 | grep -E '^parse' | tee "$tmp/parse.txt"

# WebAssembly: the same parser under Node, then the simulation natively, under
# Node and in Chromium, in turns.
bash scripts/build.sh > /dev/null
node scripts/parse-bench-node.mjs "$tmp/hackbench.trace" 6 | tee "$tmp/parse-node.txt"
node scripts/wasm-bench.mjs --runs 5 --json "$tmp/wasm.json" --log "$tmp/hackbench.trace" | tee "$tmp/wasm-bench.txt"

# The app in headless Chromium: the same log read in the Replay panel (streamed,
# parsed in wasm, played), then frame times with 512 CPUs playing, the first
# frame, bundle sizes; then the memory of a long run.
# Four opens of the 1.3 GB log in one page: inside this suite a fifth open has
# stopped at 86-89 % read, the engine worker silent (docs/PERFORMANCE.md, "In the
# browser"); on its own the script has opened it nine times.
PARSE_BENCH_RUNS=4 node scripts/parse-bench.mjs "$tmp/hackbench.trace" | tee "$tmp/parse-browser.txt"
node scripts/frame-bench.mjs | tee "$tmp/frames.txt"
# A re-run from the same seed carried back to the playhead (the lab's layout switch).
node scripts/rerun-bench.mjs | tee "$tmp/rerun.txt"
# Memory: a run of about ten million events played to its end in the app.
node scripts/memory-bench.mjs | tee "$tmp/memory.txt"

node scripts/bench-report.mjs "$tmp" "$out" "${BENCH_DOCS:-1}"
