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
# The largest preset: 512 CPUs, 8 x 60 schbench threads.
"$bin" bench sis-schbench-t19 --repeat 3 \
  --set topology.preset=zen4-2s128c --set workloads.0.message_threads=8 \
  --set workloads.0.worker_threads=60 --set workloads.0.cputime_us=3000 \
  --set workloads.0.sleeptime_us=2000 --set duration_ms=2000
