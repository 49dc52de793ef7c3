//! Seed 001's select_idle_sibling idle-thread scan on the 4.6 baseline: directional
//! tests over seeds.

mod common;

use common::{median, netperf, preset, run, scenario, schbench};
use sched_core::Scenario;

fn on_4_6(mut scenario: Scenario, scan: bool, gate: bool) -> Scenario {
    scenario.kernel = Some("4.6".into());
    scenario.policy.sis_scan.enabled = scan;
    scenario.policy.sis_scan.gate = gate;
    scenario
}

/// Median over seeds 1..=5 of (p50, p99) for `schbench -m 2 -t N` on 40 CPUs.
fn schbench_latency(workers: u32, scan: bool) -> (f64, f64) {
    let (p50s, p99s): (Vec<f64>, Vec<f64>) = (1..=5)
        .map(|seed| {
            let base = scenario(
                preset("xeon-2s10c"),
                vec![schbench(2, workers, 30_000, 30_000)],
                3_000,
                seed,
            );
            let summary = run(&on_4_6(base, scan, true));
            (summary.wakeup_latency_us.p50, summary.wakeup_latency_us.p99)
        })
        .unzip();
    (median(p50s), median(p99s))
}

#[test]
fn the_package_scan_removes_the_4_6_cliff_and_leaves_p50_alone() {
    // The model's cliff is at -t 20 (see docs/policies/sis-idle-scan.md).
    let (p50_18_off, p99_18_off) = schbench_latency(18, false);
    let (p50_20_off, p99_20_off) = schbench_latency(20, false);
    let (p50_20_on, p99_20_on) = schbench_latency(20, true);
    assert!(
        p99_20_off > 10.0 * p99_18_off,
        "no cliff without the scan: {p99_20_off} vs {p99_18_off}"
    );
    assert!(
        p99_20_on < 3.0 * p99_18_off,
        "the scan left p99 at {p99_20_on} us"
    );
    for p50 in [p50_20_off, p50_20_on] {
        assert!(
            (p50 - p50_18_off).abs() <= 0.2 * p50_18_off,
            "p50 moved: {p50} vs {p50_18_off}"
        );
    }
}

#[test]
fn should_scan_idle_keeps_the_scan_off_for_message_bouncing() {
    let throughput = |scan: bool, gate: bool| {
        median(
            (1..=3)
                .map(|seed| {
                    let base = scenario(preset("xeon-2s10c"), vec![netperf(20)], 60, seed);
                    run(&on_4_6(base, scan, gate)).throughput.value
                })
                .collect(),
        )
    };
    let off = throughput(false, true);
    let gated = throughput(true, true);
    let ungated = throughput(true, false);
    // Ping-pong partners ran microseconds ago: task_hot, so the gate never scans.
    assert!(
        (gated - off).abs() <= 0.01 * off,
        "gated {gated} vs off {off}"
    );
    // Without the gate the scan sends wakees to far idle CPUs and costs throughput.
    assert!(ungated < 0.95 * off, "ungated {ungated} vs off {off}");
}
