# Turns `schedlab sweep ... --json` of a STREAM scenario into markdown table rows:
# the point's --vary/--set values; Copy, Scale, Add and Triad MB/s (each kernel's
# best pass, as STREAM reports it); the whole-run rate; cross-node migrations. Each
# cell is the median (min..max) over the seeds.
# The whole-run rate is every byte the run moved over the simulated time:
# ntimes 10 x (16 + 16 + 24 + 24) bytes x array_size 20,000,000 = 16,000 MB, the
# figure of the stream8 and stream16 scenarios (change 16e12 for other sizes).
.points[] as $p
| def cell(f): "\($p.median | f | round) (\($p.min | f | round)..\($p.max | f | round))";
  "| \($p.set | to_entries | map("\(.key)=\(.value)") | join(" ")) | "
  + ([range(4)] | map(. as $k | cell(.throughput_by_workload[0].values[$k].value)) | join(" | "))
  + " | \(16e12 / $p.median.sim_time_ns | round) (\(16e12 / $p.max.sim_time_ns | round)..\(16e12 / $p.min.sim_time_ns | round))"
  + " | " + cell(.migrations.cross_numa) + " |"
