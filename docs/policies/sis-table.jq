# Turns `schedlab sweep sis-schbench-t19 --vary policy.sis_scan.enabled=false,true
# --vary workloads.0.worker_threads=16..22 --seeds 1..5 --json` into markdown rows:
# `-t`, the scan, wakeup latency p50 / p99 / p99.5 / p99.9 in us as
# "median (min..max)" over the seeds, and the median throughput (requests/s).
def med: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def cell(f): [.runs[] | f] as $v | "\($v | med | round) (\($v | min | round)..\($v | max | round))";
.points
| sort_by(.set["policy.sis_scan.enabled"], .set["workloads.0.worker_threads"])[]
| "| \(.set["workloads.0.worker_threads"]) | \(if .set["policy.sis_scan.enabled"] then "on" else "off" end) | \(cell(.wakeup_latency_us.p50)) | \(cell(.wakeup_latency_us.p99)) | \(cell(.wakeup_latency_us.p99_5)) | \(cell(.wakeup_latency_us.p99_9)) | \([.runs[].throughput.value] | med | round) |"
