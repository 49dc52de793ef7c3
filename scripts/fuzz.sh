#!/usr/bin/env bash
# Fuzzes the ftrace parser and the scenario loader with cargo-fuzz (libFuzzer on the
# nightly toolchain): each target for SECONDS (default 60, or $FUZZ_SECONDS).
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
# Targets: replay_parse, replay_resimulate, scenario_load, scenario_mutate (all by
# default). A crash leaves its input in fuzz/artifacts/TARGET/; replay it with
#   cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-...
# and shrink it with `cargo +nightly fuzz tmin TARGET ...`.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-${FUZZ_SECONDS:-60}}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
  echo "usage: bash scripts/fuzz.sh [SECONDS] [TARGET...]" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(replay_parse replay_resimulate scenario_load scenario_mutate)
fi

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "error: cargo-fuzz needs the nightly toolchain: rustup toolchain install nightly" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

# Seed corpora (the fuzzer adds what it finds; none of it is committed).
corpus=fuzz/corpus
for target in replay_parse replay_resimulate scenario_load scenario_mutate; do
  mkdir -p "$corpus/$target"
done
mkdir -p fuzz/target
for fixture in crates/sched-core/tests/fixtures/ftrace/*; do
  name=$(basename "$fixture")
  # The first byte is the chunk size: 0 reads the rest at once.
  { printf '\x00'; cat "$fixture"; } >"$corpus/replay_parse/seed-whole-$name"
  { printf '\x07'; cat "$fixture"; } >"$corpus/replay_parse/seed-7-$name"
  # replay_resimulate: the first byte picks the machine (even: the flat one).
  { printf '\x00'; cat "$fixture"; } >"$corpus/replay_resimulate/seed-flat-$name"
  { printf '\x01'; cat "$fixture"; } >"$corpus/replay_resimulate/seed-preset-$name"
done
# Lines past MAX_LINE_BYTES (64 KiB), which mutation alone rarely grows.
long_line() { head -c "$1" /dev/zero | tr '\0' "$2"; }
current=crates/sched-core/tests/fixtures/ftrace/ftrace_current.txt
{ printf '\x00'; long_line 70000 x; printf '\n'; cat "$current"; } >"$corpus/replay_parse/seed-long-line"
{ printf '\x00'; cat "$current"; long_line 135000 '\377'; } >"$corpus/replay_parse/seed-long-tail"
scenarios=()
for scenario in scenarios/*.json; do
  case "$scenario" in *.schema.json) continue ;; esac
  scenarios+=("$scenario")
  cp "$scenario" "$corpus/scenario_load/seed-$(basename "$scenario")"
done
# scenario_mutate: the first byte picks a bundled scenario (in name order), no edits.
for idx in "${!scenarios[@]}"; do
  printf "\\x$(printf %02x "$idx")" >"$corpus/scenario_mutate/seed-$idx"
done
# Field names and enum values of the schema, as a dictionary.
grep -oE '"[A-Za-z_][A-Za-z0-9_.-]*"' scenarios/scenario.schema.json | sort -u |
  sed 's/"/\\"/g; s/.*/"&"/' >fuzz/target/scenario.dict

failed=()
for target in "${targets[@]}"; do
  case "$target" in
    replay_parse) max_len=140000 dict=fuzz/ftrace.dict ;; # past 2 x MAX_LINE_BYTES
    replay_resimulate) max_len=16384 dict=fuzz/ftrace.dict ;;
    scenario_load) max_len=16384 dict=fuzz/target/scenario.dict ;;
    scenario_mutate) max_len=512 dict=fuzz/target/scenario.dict ;;
    *)
      echo "unknown target $target" >&2
      exit 2
      ;;
  esac
  echo "== $target: ${seconds}s"
  # Safe Rust: what matters is panics, overflow checks and debug assertions (on by
  # default in cargo-fuzz's build) and the memory limit, not AddressSanitizer.
  if ! nice -n 10 cargo +nightly fuzz run --sanitizer none --jobs 1 "$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -max_len="$max_len" -timeout=30 \
    -dict="$dict" -print_final_stats=1; then
    failed+=("$target")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}: see fuzz/artifacts/" >&2
  exit 1
fi
echo "fuzz: ${targets[*]}: no crash in ${seconds}s each"
