# Turns `schedlab sweep sis-schbench-t19 --vary kernel=4.6,6.5
# --vary workloads.0.worker_threads=16..22 --seeds 1..5 --json` into markdown rows:
# `-t`, then for 4.6 and for 6.5 the wakeup latency p50 / p99 / p99.5 in us as
# "median (min..max)" over the seeds.
def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def cell(f): [.runs[] | f] as $v | "\($v | med | round) (\($v | min | round)..\($v | max | round))";
def by_t(kernel): [.points[] | select(.set.kernel == kernel)] | sort_by(.set["workloads.0.worker_threads"]);
by_t("4.6") as $old | by_t("6.5") as $new
| range(0; $old | length) as $i | $old[$i] as $a | $new[$i] as $b
| "| \($a.set["workloads.0.worker_threads"]) | \($a | cell(.wakeup_latency_us.p50)) | \($a | cell(.wakeup_latency_us.p99)) | \($a | cell(.wakeup_latency_us.p99_5)) | \($b | cell(.wakeup_latency_us.p50)) | \($b | cell(.wakeup_latency_us.p99)) | \($b | cell(.wakeup_latency_us.p99_5)) |"
