//! The kernel version decides the baseline: directional tests over several seeds.

use crate::common;

use common::{median, preset, run, scenario, schbench};
use sched_core::workload::{StreamSpec, WorkloadSpec};

/// The medians over seeds 1..=5 of schbench's p99 and p99.5 wakeup latency on the
/// seed-001 machine, 10 s runs.
fn schbench_tail(kernel: &str, workers: u32) -> (f64, f64) {
    let (p99s, p99_5s): (Vec<f64>, Vec<f64>) = (1..=5)
        .map(|seed| {
            let mut scenario = scenario(
                preset("xeon-2s10c"),
                vec![schbench(2, workers, 30_000, 30_000)],
                10_000,
                seed,
            );
            scenario.kernel = Some(kernel.into());
            let latency = run(&scenario).wakeup_latency_us;
            (latency.p99, latency.p99_5)
        })
        .unzip();
    (median(p99s), median(p99_5s))
}

#[test]
fn the_4_6_wakeup_path_stacks_workers_once_the_machine_is_full_and_6_5_does_not() {
    // 4.6's select_idle_sibling takes only a fully idle core or an idle sibling of the
    // target. At -t 19 (40 threads on 40 CPUs) its tail breaks (the seed: p99 118 ->
    // 2132 us from -t 18; see docs/kernel-versions.md); 6.5 takes idle threads of
    // busy cores and stays flat at -t 19 and -t 20, breaking at -t 21.
    let (old_p99_18, _) = schbench_tail("4.6", 18);
    let (old_p99_19, old_p99_5_19) = schbench_tail("4.6", 19);
    let (new_p99_18, _) = schbench_tail("6.5", 18);
    let (new_p99_19, new_p99_5_19) = schbench_tail("6.5", 19);
    let (new_p99_20, _) = schbench_tail("6.5", 20);
    let (new_p99_21, _) = schbench_tail("6.5", 21);
    assert!(
        old_p99_5_19 > 10.0 * new_p99_5_19,
        "at -t 19 4.6's p99.5 ({old_p99_5_19} us) should be far above 6.5's ({new_p99_5_19} us)"
    );
    assert!(
        old_p99_19 > 5.0 * old_p99_18,
        "4.6: p99 at -t 19 {old_p99_19} us vs -t 18 {old_p99_18} us"
    );
    assert!(
        old_p99_19 > 5.0 * new_p99_19,
        "at -t 19 4.6's p99 ({old_p99_19} us) should be far above 6.5's ({new_p99_19} us)"
    );
    assert!(
        new_p99_19 < 2.0 * new_p99_18,
        "6.5: p99 at -t 19 {new_p99_19} us vs -t 18 {new_p99_18} us"
    );
    assert!(
        new_p99_21 > 10.0 * new_p99_20,
        "6.5: p99 at -t 21 {new_p99_21} us vs -t 20 {new_p99_20} us"
    );
}

/// Cross-node migrations of 8 STREAM threads pinned to every 16th CPU of 2-socket
/// Zen3, over 40 passes (about 0.6 s: long enough for the NUMA level's periodic
/// balance, whose interval is at least its span in ms, 256 here).
fn pinned_stream(kernel: &str, seed: u64) -> (u64, f64) {
    let stream = WorkloadSpec::Stream(StreamSpec {
        threads: 8,
        cpus: Some("0,16,32,48,64,80,96,112".into()),
        array_size: 20_000_000,
        ntimes: 40,
    });
    let mut scenario = scenario(preset("zen3-2s64c"), vec![stream], 5_000, seed);
    scenario.kernel = Some(kernel.into());
    let summary = run(&scenario);
    let triad = summary.throughput_by_workload[0]
        .values
        .iter()
        .find(|value| value.unit.ends_with("Triad"))
        .expect("STREAM reports Triad")
        .value;
    (summary.migrations.cross_numa, triad)
}

#[test]
fn pinned_stream_piles_up_under_5_18_and_is_spread_from_the_start_under_6_0() {
    for seed in 1..=3 {
        let (moves_518, triad_518) = pinned_stream("5.18", seed);
        let (moves_60, triad_60) = pinned_stream("6.0", seed);
        // 5.18 forks all eight onto socket 0; the balancer's NUMA rule ignores only
        // small imbalances, so it then moves some across, slowly.
        assert!(moves_518 > 0, "seed {seed}, 5.18: no cross-node migration");
        // 6.0's affinity-aware rule places four on each socket at fork: nothing to move.
        assert_eq!(moves_60, 0, "seed {seed}, 6.0");
        // STREAM reports each kernel's best pass: 5.18's can match 6.0's only once
        // its balancer has spread the threads (after 256 ms at the earliest), so 6.0
        // is never worse.
        assert!(
            triad_60 >= 0.99 * triad_518,
            "seed {seed}: Triad {triad_60} vs {triad_518}"
        );
    }
}

/// `kernel::PATH_NEEDS` (which the app uses to say a switch does nothing) holds:
/// while the path it hangs on takes none of the listed values, flipping the switch
/// leaves the run exactly as it was (same trace hash), on a machine with SMT and two
/// LLCs where every path is exercised.
#[test]
fn a_path_hanging_on_another_changes_nothing_while_that_one_is_elsewhere() {
    let base = scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000), common::hackbench(1, 40, 4)],
        200,
        3,
    );
    let hash_with = |settings: &[(&str, serde_json::Value)]| {
        let mut value = serde_json::to_value(&base).unwrap();
        for (path, setting) in settings {
            value["features"][*path] = setting.clone();
        }
        let scenario: sched_core::Scenario = serde_json::from_value(value).unwrap();
        run(&scenario).trace_hash
    };
    // Not a run where nothing matters: where the paths are taken, they change it.
    for path in ["SIS_UTIL", "WA_IDLE", "ttwu_queue_idle"] {
        assert_ne!(
            hash_with(&[(path, true.into())]),
            hash_with(&[(path, false.into())]),
            "{path} should change this run on 6.5"
        );
    }
    for &(path, on, values) in sched_core::kernel::PATH_NEEDS {
        // A value of the path it hangs on outside the list.
        let other = match on {
            "select_idle_sibling" => serde_json::json!("4.6"),
            "wake_affine" => serde_json::json!("4.6"),
            "TTWU_QUEUE" | "LAST_BUDDY" => serde_json::json!(false),
            _ => panic!("no value outside {values:?} known for {on}"),
        };
        assert!(
            !values.contains(&other.to_string().trim_matches('"')),
            "{on}"
        );
        let on_hash = hash_with(&[(on, other.clone()), (path, true.into())]);
        let off_hash = hash_with(&[(on, other), (path, false.into())]);
        assert_eq!(
            on_hash, off_hash,
            "{path} changed the run while {on} is outside {values:?}"
        );
    }
}
