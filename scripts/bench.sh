#!/usr/bin/env bash
# Simulation speed, in events per second of wall time. Numbers vary from machine
# to machine and run to run: compare ratios measured in one run, not across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release -q -p sched-cli
bin=target/release/schedlab
echo "== native ($(uname -m)), $(date -u +%Y-%m-%d)"
"$bin" bench teaching-small --repeat 5
"$bin" bench sis-schbench-t19 --repeat 5
"$bin" bench hackbench-7950x --repeat 3 --set workloads.0.loops=200
# The largest preset: 512 CPUs (2 x 128-core Zen4) running hackbench with 16 groups.
"$bin" bench hackbench-7950x --repeat 3 --set topology.preset=zen4-2s128c \
  --set workloads.0.groups=16 --set workloads.0.loops=200
# The ftrace parser and replay (`schedlab replay`), on a schedlab-written trace.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" run hackbench-7950x --set workloads.0.loops=1000 --trace-out "$tmp/hackbench.trace" > /dev/null
bytes=$(stat -c %s "$tmp/hackbench.trace")
for run in 1 2 3; do
  start=$(date +%s%N)
  "$bin" replay "$tmp/hackbench.trace" --json > /dev/null
  end=$(date +%s%N)
  echo "$bytes $start $end"
done | awk '{ mb = $1 / 1e6; s = ($3 - $2) / 1e9; printf "replay: %.0f MB in %.3f s, %.0f MB/s (parse, replay and JSON)\n", mb, s, mb / s }'
# The parser alone, and parser and replay, on the same trace held in memory (no disk, no JSON).
cargo build --release -q -p sched-core --example parse_bench
target/release/examples/parse_bench "$tmp/hackbench.trace" --repeat 5 | grep -E '^parse'
# The app in headless Chromium: the same log read in the Replay panel (streamed,
# parsed in wasm, played), then frame times with 512 CPUs playing, the first
# frame, bundle sizes.
bash scripts/build.sh > /dev/null
node scripts/parse-bench.mjs "$tmp/hackbench.trace"
node scripts/frame-bench.mjs
