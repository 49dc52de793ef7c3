//! The wait log (each runqueue's waiting count, change by change) agrees with the
//! simulator's own `nr_running` after every event: waiting = `nr_running` less the
//! running task. Scenarios cover wakeups onto busy CPUs, balancer pulls, forks and
//! exits, CPU hotplug and CFS bandwidth throttling.

use crate::common;

use common::{cgroup_tree, hackbench, hogs, preset, scenario, schbench};
use sched_core::scenario::HotplugSpec;
use sched_core::{Scenario, Simulator, StepOutcome};

/// Replays the log's new entries into `counts` and checks every CPU against
/// `nr_running - running` as `cpu_frame` reports them. Returns the entries read.
fn check_against_nr_running(sim: &Simulator, counts: &mut [u32], read: &mut usize) {
    let log = sim.wait_log.as_ref().expect("the log is kept");
    for idx in *read..log.len() {
        let entry = log.get(idx);
        counts[entry.cpu as usize] = entry.waiting;
    }
    *read = log.len();
    let n = sim.rqs.len();
    let (mut running, mut nr_running) = (vec![0; n], vec![0; n]);
    sim.cpu_frame(&mut running, &mut nr_running);
    for cpu in 0..n {
        let expected = nr_running[cpu] - u32::from(running[cpu] != 0);
        assert_eq!(
            counts[cpu],
            expected,
            "CPU {cpu} at {} ns: the log says {} waiting, nr_running {} with pid {} running",
            sim.now().as_ns(),
            counts[cpu],
            nr_running[cpu],
            running[cpu]
        );
    }
}

/// Runs `scenario` event by event, checking after each; returns the log's length
/// and the most tasks it saw waiting on one CPU.
fn check_every_event(scenario: &Scenario) -> (usize, u32) {
    let mut sim = Simulator::new(scenario).expect("valid scenario");
    sim.keep_wait_log();
    let mut counts = vec![0; sim.rqs.len()];
    let mut read = 0;
    while sim.step() == StepOutcome::Handled {
        check_against_nr_running(&sim, &mut counts, &mut read);
    }
    let log = sim.wait_log.as_ref().expect("the log is kept");
    let most = log.iter().map(|entry| entry.waiting).max();
    (log.len(), most.unwrap_or(0))
}

#[test]
fn schbench_with_more_threads_than_cpus_waits_and_the_log_matches() {
    // teaching-small's own workload: 12 threads on 8 CPUs.
    let (entries, most) = check_every_event(&scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        300,
        42,
    ));
    assert!(entries > 100, "only {entries} changes logged");
    assert!(most >= 1, "no task ever waited");
}

#[test]
fn hogs_and_hackbench_queue_deep_and_the_log_matches() {
    let (_, most) = check_every_event(&scenario(
        preset("teaching-small"),
        vec![hogs("hog", 20, 0), hackbench(2, 20, 4)],
        150,
        7,
    ));
    assert!(most >= 3, "at most {most} waited on a CPU");
}

#[test]
fn hotplug_and_bandwidth_throttling_keep_the_log_exact() {
    let mut plugged = scenario(preset("teaching-small"), vec![hogs("hog", 12, 0)], 120, 3);
    plugged.hotplug = vec![
        HotplugSpec {
            at_ms: 40.0,
            cpu: 2,
            online: false,
        },
        HotplugSpec {
            at_ms: 80.0,
            cpu: 2,
            online: true,
        },
    ];
    check_every_event(&plugged);
    check_every_event(&scenario(
        preset("teaching-small"),
        vec![cgroup_tree(2, 2, 30)],
        120,
        5,
    ));
}

#[test]
fn the_log_stops_with_the_kept_trace_and_is_off_by_default() {
    let plain = scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        300,
        1,
    );
    let mut sim = Simulator::new(&plain).unwrap();
    sim.run_to_end();
    assert!(sim.wait_log.is_none(), "not kept unless asked for");

    // A budget of about one chunk of records: the store fills during the run.
    let mut sim = Simulator::with_trace_limit(&plain, 80_000).unwrap();
    sim.keep_wait_log();
    sim.run_to_end();
    assert!(
        sim.trace.is_full(),
        "the budget must run out during the run"
    );
    let log = sim.wait_log.as_ref().unwrap();
    let last_kept = sim.trace.time(sim.trace.len() - 1).0;
    assert!(!log.is_empty());
    assert!(
        log.iter().all(|entry| entry.time <= last_kept),
        "an entry after the kept trace ends"
    );
}

#[test]
fn a_log_asked_for_mid_run_starts_from_the_queues_as_they_stand() {
    let busy = scenario(preset("teaching-small"), vec![hogs("hog", 20, 0)], 60, 2);
    let mut sim = Simulator::new(&busy).unwrap();
    sim.run_until(sched_core::SimTime(20_000_000));
    sim.keep_wait_log();
    let mut counts = vec![0; sim.rqs.len()];
    let mut read = 0;
    check_against_nr_running(&sim, &mut counts, &mut read);
    assert!(read > 0, "20 hogs on 8 CPUs: some wait at 20 ms");
    while sim.step() == StepOutcome::Handled {
        check_against_nr_running(&sim, &mut counts, &mut read);
    }
}

/// The idle-while-runnable time read between events (as the app's frames read it)
/// grows by at most the CPUs' time since the last read: the stretch since the last
/// event is counted when it happens, not in a lump at the next event.
#[test]
fn the_gap_read_between_events_never_outgrows_the_time() {
    let mut sim = Simulator::new(&scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        60,
        42,
    ))
    .unwrap();
    let cpus = sim.topology.n_cpus() as u64;
    let (mut last_time, mut last_gap) = (0u64, (0u64, 0u64));
    let mut grew = false;
    // Reads every 7 us, which falls between events most of the time.
    for step in 1..=8_000u64 {
        sim.run_until(sched_core::time::SimTime(step * 7_000));
        let now = sim.now().as_ns();
        let gap = sim.idle_while_runnable_now();
        let room = (now - last_time) * cpus;
        assert!(
            gap.0 - last_gap.0 <= room,
            "LLC gap grew {} ns in {} ns of {cpus} CPUs",
            gap.0 - last_gap.0,
            now - last_time
        );
        assert!(
            gap.1 - last_gap.1 <= room,
            "machine gap grew {} ns in {} ns of {cpus} CPUs",
            gap.1 - last_gap.1,
            now - last_time
        );
        grew |= gap.0 > last_gap.0;
        (last_time, last_gap) = (now, gap);
    }
    assert!(
        grew,
        "the scenario should leave CPUs idle while tasks wait at some point"
    );
}
