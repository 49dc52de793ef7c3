# Turns `schedlab sweep cgroup-d3w10 --vary policy.struct_layout=original,reordered
# --json` into markdown rows: per kernel function, the modelled misses with the
# original and the reordered layout (median (min..max) over the seeds, in
# thousands), the change of the medians in %, and the share of the total saving.
def k(x): (x / 1000 | round);
def cell(p; f): "\(k(p.median | f)) (\(k(p.min | f))..\(k(p.max | f)))";
(.points[] | select(.set["policy.struct_layout"] == "original")) as $o
| (.points[] | select(.set["policy.struct_layout"] == "reordered")) as $r
| ($o.median.cache_misses.total - $r.median.cache_misses.total) as $saved
| ($o.median.cache_misses.by_operation | keys[]) as $op
| ($o.median.cache_misses.by_operation[$op]) as $om
| ($r.median.cache_misses.by_operation[$op]) as $rm
| "| `\($op)` | \(cell($o; .cache_misses.by_operation[$op])) | \(cell($r; .cache_misses.by_operation[$op])) | \(if $om > 0 then (($rm / $om - 1) * 1000 | round) / 10 else "-" end) | \((($om - $rm) / $saved * 1000 | round) / 10) |"
