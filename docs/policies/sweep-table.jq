# Turns `schedlab sweep ... --json` into markdown table rows: the varied fields'
# values, then one "median (min..max)" cell over the seeds per column named in
# `--arg cols` (comma-separated), for example
#   schedlab sweep shared-runq-hackbench-7950x --vary ... --seeds 1..5 --json \
#     | jq -r --arg cols time_s4,util,llc_gap_ms -f docs/policies/sweep-table.jq
# Columns: time_s3 / time_s4 (the run's end, s), time_ms, util (%), llc_gap_ms
# (idle while runnable within an LLC), tps (throughput, grouped digits), mega
# (throughput in M), p99_us (wakeup latency), shard_con / shard_acq / rq_con /
# rq_acq (lock_stat contentions and acquisitions, in k or M), shard_pct (share of
# shard-lock acquisitions contended, of the medians).
def fixed(n): (. * pow(10; n) | round) as $v
  | if n == 0 then "\($v)" else
      ($v | tostring) as $s
      | (if $v < 0 then "-" else "" end) as $sign
      | ($v | fabs | tostring | (if length <= n then ("0" * (n - length + 1)) + . else . end)) as $d
      | "\($sign)\($d[0:($d | length) - n]).\($d[($d | length) - n:])" end;
def grouped: (round | tostring) as $s
  | [range(($s | length); 0; -3)] | reverse
  | [ .[] as $e | $s[([$e - 3, 0] | max):$e] ] | join(",");
def si: if . >= 1e6 then "\(. / 1e6 | fixed(2)) M" elif . >= 1e3 then "\(. / 1e3 | fixed(1)) k" else "\(round)" end;
def lock(class; field): ([.locks[]? | select(.class == class) | .[field]] | add) // null;
def metric(name):
  if name == "time_s3" or name == "time_s4" then .sim_time_ns / 1e9
  elif name == "time_ms" then .sim_time_ns / 1e6
  elif name == "util" then .utilization * 100
  elif name == "llc_gap_ms" then .idle_while_runnable_ns.llc / 1e6
  elif name == "tps" or name == "mega" then .throughput.value
  elif name == "p99_us" then .wakeup_latency_us.p99
  elif name == "shard_con" then lock("&shard->lock"; "contentions")
  elif name == "shard_acq" then lock("&shard->lock"; "acquisitions")
  elif name == "rq_con" then lock("&rq->__lock"; "contentions")
  elif name == "rq_acq" then lock("&rq->__lock"; "acquisitions")
  else error("unknown column \(name)") end;
def show(name):
  if . == null then "-"
  elif name == "time_s3" then fixed(3)
  elif name == "time_s4" then fixed(4)
  elif name == "time_ms" then "\(fixed(1)) ms"
  elif name == "util" then fixed(1)
  elif name == "llc_gap_ms" then (if . >= 100 then "\(round)" else fixed(1) end)
  elif name == "tps" then grouped
  elif name == "mega" then "\(. / 1e6 | fixed(2)) M"
  elif name == "p99_us" then "\(round)"
  else si end;
def cell(p; name): (p.median | metric(name)) as $m
  | if $m == null then "-"
    else "\($m | show(name)) (\(p.min | metric(name) | show(name))..\(p.max | metric(name) | show(name)))" end;
($cols | split(",")) as $names
| .points[]
| . as $p
| "| " + ([($p.set | to_entries[] | .value | tostring)]
    + [$names[] as $n
       | if $n == "shard_pct" then
           (($p.median | lock("&shard->lock"; "contentions")) as $c
            | ($p.median | lock("&shard->lock"; "acquisitions")) as $a
            | if $c == null or $a == null or $a == 0 then "-" else "\($c / $a * 100 | fixed(1)) %" end)
         else cell($p; $n) end]
  | join(" | ")) + " |"
