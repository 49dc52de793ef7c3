//! The kernel compile is a `make -j` job server: one process forked per unit, at
//! most `jobs` alive at once, and the build ends when the last unit exits.

use crate::common;

use common::{kcompile, preset, run_sim, scenario};
use sched_core::trace::TraceKind;
use sched_core::{Scenario, SimTime, Simulator};
use std::collections::BTreeSet;

const JOBS: u32 = 8;
const UNITS: u32 = 40;

fn build(seed: u64) -> Scenario {
    scenario(
        preset("teaching-small"),
        vec![kcompile(JOBS, UNITS)],
        2_000,
        seed,
    )
}

/// Pids of the `make` task and of the compile-unit processes.
fn pids(sim: &Simulator) -> (u32, Vec<u32>) {
    let make: Vec<u32> = sim
        .tasks
        .iter()
        .filter(|task| task.comm == "make")
        .map(|task| task.pid.0)
        .collect();
    assert_eq!(make.len(), 1, "one make process");
    let units = sim
        .tasks
        .iter()
        .filter(|task| task.comm == "cc1")
        .map(|task| task.pid.0)
        .collect();
    (make[0], units)
}

/// The trace's records of one kind for the build's tasks (`make` and the units;
/// not the kernel's own threads), as (time, pid), in trace order.
fn records(sim: &Simulator, kind: TraceKind) -> Vec<(SimTime, u32)> {
    assert_eq!(
        sim.trace.len() as u64,
        sim.trace.total(),
        "trace kept whole"
    );
    let (make, units) = pids(sim);
    (0..sim.trace.len())
        .map(|idx| sim.trace.get(idx))
        .filter(|record| record.kind == kind)
        .filter(|record| record.pid == make || units.contains(&record.pid))
        .map(|record| (record.time, record.pid))
        .collect()
}

#[test]
fn every_unit_is_a_forked_process_that_exits() {
    let sim = run_sim(&build(7));
    let (make, units) = pids(&sim);
    assert_eq!(units.len(), UNITS as usize);
    // Each unit is a process of its own.
    for task in sim.tasks.iter().filter(|task| task.comm == "cc1") {
        assert_eq!(task.tgid, task.pid, "pid {} is its own process", task.pid.0);
    }
    let forked: Vec<u32> = records(&sim, TraceKind::SchedWakeupNew)
        .into_iter()
        .map(|(_, pid)| pid)
        .collect();
    assert_eq!(
        forked.len(),
        UNITS as usize + 1,
        "one wakeup_new per unit, plus make"
    );
    assert_eq!(forked[0], make, "make is forked first");
    let forked: BTreeSet<u32> = forked.into_iter().collect();
    let exited: BTreeSet<u32> = records(&sim, TraceKind::SchedProcessExit)
        .into_iter()
        .map(|(_, pid)| pid)
        .collect();
    for pid in &units {
        assert!(forked.contains(pid), "unit pid {pid} was forked");
        assert!(exited.contains(pid), "unit pid {pid} exited");
    }
    assert!(exited.contains(&make));
    assert_eq!(sim.metrics.completed[0], UNITS as u64);
}

#[test]
fn units_are_forked_by_make_while_it_runs() {
    let sim = run_sim(&build(11));
    let (make, units) = pids(&sim);
    let units: BTreeSet<u32> = units.into_iter().collect();
    // Who is current on each CPU, from the switch records.
    let mut curr = vec![0u32; sim.topology.n_cpus()];
    let mut forks = 0;
    for idx in 0..sim.trace.len() {
        let record = sim.trace.get(idx);
        match record.kind {
            TraceKind::SchedSwitch => curr[record.cpu as usize] = record.arg0,
            TraceKind::SchedWakeupNew if units.contains(&record.pid) => {
                assert!(
                    curr.contains(&make),
                    "unit pid {} forked at {} while make was not running",
                    record.pid,
                    record.time
                );
                forks += 1;
            }
            _ => {}
        }
    }
    assert_eq!(forks, UNITS);
}

#[test]
fn never_more_than_jobs_units_alive() {
    let sim = run_sim(&build(3));
    let (_, units) = pids(&sim);
    let units: BTreeSet<u32> = units.into_iter().collect();
    let mut alive = BTreeSet::new();
    let mut most = 0;
    let mut forked = 0;
    for idx in 0..sim.trace.len() {
        let record = sim.trace.get(idx);
        if !units.contains(&record.pid) {
            continue;
        }
        match record.kind {
            TraceKind::SchedWakeupNew => {
                assert!(alive.insert(record.pid));
                forked += 1;
            }
            TraceKind::SchedProcessExit => assert!(alive.remove(&record.pid)),
            _ => {}
        }
        most = most.max(alive.len());
        assert!(
            alive.len() <= JOBS as usize,
            "{} units alive at {}, with -j{JOBS}",
            alive.len(),
            record.time
        );
    }
    assert_eq!(forked, UNITS, "every unit was forked");
    assert_eq!(most, JOBS as usize, "the job slots were all used");
    assert!(alive.is_empty());
}

#[test]
fn build_time_is_the_last_units_exit() {
    let sim = run_sim(&build(5));
    let (make, units) = pids(&sim);
    let exits = records(&sim, TraceKind::SchedProcessExit);
    assert_eq!(exits.len(), UNITS as usize + 1);
    let last_unit_exit = exits
        .iter()
        .filter(|(_, pid)| units.contains(pid))
        .map(|(time, _)| *time)
        .max()
        .expect("units exited");
    let make_exit = exits
        .iter()
        .find(|(_, pid)| *pid == make)
        .map(|(time, _)| *time)
        .expect("make exited");
    assert!(
        make_exit < last_unit_exit,
        "make is done forking before the build ends"
    );
    let summary = sim.summary("kcompile");
    assert_eq!(summary.throughput.unit, "s");
    assert_eq!(
        summary.throughput.value,
        last_unit_exit.as_ns() as f64 / 1e9,
        "the build time is the last unit's exit"
    );
    assert_eq!(sim.now(), last_unit_exit, "the run ends with the build");
}

#[test]
fn same_seed_same_trace() {
    let first = run_sim(&build(9));
    let second = run_sim(&build(9));
    assert_eq!(first.trace.hash_hex(), second.trace.hash_hex());
    assert_eq!(
        records(&first, TraceKind::SchedWakeupNew).len(),
        UNITS as usize + 1,
        "the run forked every unit"
    );
    // Driven in slices, checking the invariants as it goes, it gives the same trace.
    let mut sliced = Simulator::new(&build(9)).expect("valid scenario");
    let mut until = SimTime::ZERO;
    while !sliced.is_finished() {
        until += SimTime::from_us(500);
        sliced.run_until(until);
        sliced.check_invariants().expect("invariants hold");
    }
    assert_eq!(first.trace.hash_hex(), sliced.trace.hash_hex());
}

#[test]
fn tasks_count_make_and_every_unit() {
    assert_eq!(kcompile(JOBS, UNITS).task_count(), UNITS as u64 + 1);
}
