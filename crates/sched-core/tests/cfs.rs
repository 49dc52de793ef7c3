//! Behaviour of the CFS core that a student would check by hand.

use crate::common;

use common::{hogs, preset, run_sim, run_sleep, scenario};
use sched_core::topology::TopologySpec;

fn one_cpu() -> TopologySpec {
    TopologySpec {
        sockets: Some(1),
        llcs_per_socket: Some(1),
        cores_per_llc: Some(1),
        threads_per_core: Some(1),
        ..Default::default()
    }
}

#[test]
fn equal_hogs_share_one_cpu_equally() {
    let scenario = scenario(one_cpu(), vec![hogs("hog", 3, 0)], 3_000, 1);
    let sim = run_sim(&scenario);
    let runtimes: Vec<u64> = sim
        .tasks
        .iter()
        .filter(|task| task.comm.starts_with("hog"))
        .map(|task| task.sum_exec_runtime)
        .collect();
    let max = *runtimes.iter().max().unwrap() as f64;
    let min = *runtimes.iter().min().unwrap() as f64;
    assert!(min / max > 0.95, "unfair split: {runtimes:?}");
}

#[test]
fn nice_weights_set_the_cpu_share() {
    // nice 0 (1024) against nice 5 (335): about 3 to 1.
    let scenario = scenario(one_cpu(), vec![hogs("a", 1, 0), hogs("b", 1, 5)], 3_000, 1);
    let sim = run_sim(&scenario);
    let ratio = sim.tasks[0].sum_exec_runtime as f64 / sim.tasks[1].sum_exec_runtime as f64;
    assert!((2.6..3.5).contains(&ratio), "ratio {ratio}");
}

#[test]
fn slices_follow_the_period_and_ticks() {
    // 2 hogs on one CPU with an 8-CPU-scaled latency would be 12 ms each; on one
    // CPU the factor is 1: latency 6 ms, so each runs about 3 ms (rounded up to a
    // 4 ms tick at HZ=250) before being preempted.
    let scenario = scenario(one_cpu(), vec![hogs("hog", 2, 0)], 1_000, 1);
    let sim = run_sim(&scenario);
    let switches = sim.metrics.context_switches;
    assert!(
        (200..=400).contains(&switches),
        "{switches} switches in 1 s"
    );
}

#[test]
fn newidle_balance_closes_the_work_conservation_gap() {
    let run = |newidle: bool| {
        let mut scenario = scenario(
            preset("teaching-small"),
            vec![run_sleep("w", 14, 2000.0, 500.0)],
            2_000,
            5,
        );
        scenario.policy.newidle_balance.enabled = newidle;
        run_sim(&scenario).summary("t")
    };
    let with = run(true);
    let without = run(false);
    assert!(
        with.utilization > without.utilization,
        "{} vs {}",
        with.utilization,
        without.utilization
    );
    assert!(with.migrations.total() > without.migrations.total());
}

#[test]
fn wakeup_latency_is_low_when_cpus_are_free_and_grows_when_overcommitted() {
    let light = {
        let scenario = scenario(
            preset("xeon-2s10c"),
            vec![run_sleep("w", 8, 1000.0, 3000.0)],
            2_000,
            9,
        );
        run_sim(&scenario).summary("light").wakeup_latency_us
    };
    let heavy = {
        let scenario = scenario(
            preset("xeon-2s10c"),
            vec![run_sleep("w", 120, 1000.0, 300.0)],
            2_000,
            9,
        );
        run_sim(&scenario).summary("heavy").wakeup_latency_us
    };
    assert!(light.p50 < 20.0, "light p50 {}", light.p50);
    assert!(
        heavy.p99 > 10.0 * light.p99,
        "heavy p99 {} vs light {}",
        heavy.p99,
        light.p99
    );
}
