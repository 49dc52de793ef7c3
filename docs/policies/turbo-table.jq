# Turns `schedlab sweep turbo-bench-power9 --vary workloads.0.cpu_bound=A..B
# --vary policy.turbo_pack.enabled=false,true --json` into markdown rows: per N the
# CPU-bound loops/s and the busy-time average frequency, without and with packing,
# each the median (min..max) over the seeds; the benefits in % (of the medians); and
# the median deep-idle cores.
def cell(f): "\(.median | f | round) (\(.min | f | round)..\(.max | f | round))";
[.points[] | {n: .set["workloads.0.cpu_bound"], pack: .set["policy.turbo_pack.enabled"], p: .}]
| group_by(.n)[]
| (map(select(.pack == false))[0].p) as $off
| (map(select(.pack == true))[0].p) as $on
| "| \(.[0].n) | \($off | cell(.throughput.value)) | \($on | cell(.throughput.value)) | \((($on.median.throughput.value / $off.median.throughput.value - 1) * 1000 | round) / 10) | \($off | cell(.avg_freq_mhz)) | \($on | cell(.avg_freq_mhz)) | \((($on.median.avg_freq_mhz / $off.median.avg_freq_mhz - 1) * 1000 | round) / 10) | \($off.median.power.avg_deep_idle_cores * 10 | round / 10) | \($on.median.power.avg_deep_idle_cores * 10 | round / 10) |"
