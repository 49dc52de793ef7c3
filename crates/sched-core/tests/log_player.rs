//! Playing a parsed log (`LogPlayer`): a simulation's own ftrace text played back
//! gives the simulation's records, the same metrics as `replay`, waiting counts that
//! agree with the running tasks, and snapshots that restore exactly.

use crate::common;

use common::*;
use sched_core::replay::*;
use sched_core::time::SimTime;
use sched_core::topology::TopologySpec;
use sched_core::trace::{TraceKind, TraceRecord};
use sched_core::Simulator;

/// A small simulation, run to its end, and its trace as the kernel's `trace` file.
fn simulated_log() -> (Simulator, String) {
    let spec: TopologySpec = preset("teaching-small");
    let scenario = scenario(
        spec,
        vec![
            run_sleep("run sleep-x:y", 6, 300.0, 500.0),
            hogs("hog", 2, 0),
        ],
        60,
        7,
    );
    let mut sim = Simulator::new(&scenario).expect("a scenario");
    sim.run_to_end();
    let trace = &sim.trace;
    let mut text = String::from("# tracer: nop\n#\n");
    for idx in 0..trace.len() {
        text.push_str(&trace.ftrace_line(idx, &sim));
        text.push('\n');
    }
    (sim, text)
}

/// The fields a log can carry: time to the microsecond, CPU, kind, task, arguments.
fn key(record: &TraceRecord, origin_ns: u64) -> (u64, u32, TraceKind, u32, u32, u32) {
    let args = match record.kind {
        // A wakeup's `arg1` is the model's own; a log has only `target_cpu`.
        TraceKind::SchedWakeup | TraceKind::SchedWakeupNew | TraceKind::SchedWaking => {
            (record.arg0, 0)
        }
        _ => (record.arg0, record.arg1),
    };
    (
        (record.time.as_ns() - origin_ns) / 1_000,
        record.cpu,
        record.kind,
        record.pid,
        args.0,
        args.1,
    )
}

#[test]
fn a_simulations_own_log_plays_back_as_its_records() {
    let (sim, text) = simulated_log();
    let parsed = parse(&text);
    let mut player = LogPlayer::new(parsed, Some(sim.topology.clone())).expect("a player");
    player.run_until(player.end_time());
    assert!(player.is_finished());
    let origin = sim.trace.time(0).as_ns() / 1_000 * 1_000;
    let expected: Vec<_> = (0..sim.trace.len())
        .map(|idx| sim.trace.get(idx))
        .filter(|record| {
            matches!(
                record.kind,
                TraceKind::SchedSwitch
                    | TraceKind::SchedWakeup
                    | TraceKind::SchedWakeupNew
                    | TraceKind::SchedMigrateTask
                    | TraceKind::SchedProcessExit
                    | TraceKind::SchedWaking
            )
        })
        .map(|record| key(&record, origin))
        .collect();
    let played: Vec<_> = (0..player.trace.len())
        .map(|idx| key(&player.trace.get(idx), 0))
        .collect();
    assert!(expected.len() > 100);
    // The log sorts records of one instant stably, so the order is the simulation's.
    assert_eq!(played, expected);
    assert_eq!(player.events(), player.events_total());
}

#[test]
fn playing_to_the_end_gives_the_replays_metrics() {
    let (sim, text) = simulated_log();
    let parsed = parse(&text);
    let metrics = replay(&parsed, Some(&sim.topology));
    let mut player = LogPlayer::new(parsed, Some(sim.topology.clone())).expect("a player");
    player.run_until(SimTime(u64::MAX));
    assert_eq!(player.latency_percentiles(), metrics.wakeup_latency_us);
    assert_eq!(player.switches(), metrics.switches);
    assert_eq!(player.wakeups(), metrics.wakeups);
    assert_eq!(player.migrations(), &metrics.migrations.counts);
    assert_eq!(player.moves().len() as u64, metrics.migrations.total());
    let busy = player.busy_ns();
    for cpu in &metrics.cpus {
        // The replay's busy time is capped at the CPU's window; the player's is not.
        assert!(busy[cpu.cpu as usize] >= cpu.busy_ns, "CPU {}", cpu.cpu);
    }
    let total: u64 = busy.iter().sum();
    let replayed: u64 = metrics.cpus.iter().map(|cpu| cpu.busy_ns).sum();
    assert!(total > 0 && total - replayed < total / 100);
}

#[test]
fn waiting_counts_agree_with_running_tasks_at_every_step() {
    let (sim, text) = simulated_log();
    let mut player = LogPlayer::new(parse(&text), Some(sim.topology.clone())).expect("a player");
    let n_cpus = player.topology.n_cpus();
    let mut counts = vec![0u32; n_cpus];
    let mut cursor = 0;
    let mut most = 0;
    let end = player.end_time().as_ns();
    for step in 1..=300u64 {
        player.run_until(SimTime(end * step / 300));
        for idx in cursor..player.wait_log.len() {
            let entry = player.wait_log.get(idx);
            assert!(entry.time <= player.now().as_ns());
            counts[entry.cpu as usize] = entry.waiting;
        }
        cursor = player.wait_log.len();
        let running = player.running();
        let nr_running = player.nr_running();
        for cpu in 0..n_cpus {
            let waiting = nr_running[cpu] - u32::from(running[cpu] != 0);
            assert_eq!(counts[cpu], waiting, "CPU {cpu} at step {step}");
            assert_eq!(player.queue(cpu, 64).len() as u32, waiting, "CPU {cpu}");
            most = most.max(waiting);
        }
    }
    assert!(most >= 1, "nothing ever waited");
}

#[test]
fn a_restored_snapshot_plays_on_as_a_straight_run() {
    let (sim, text) = simulated_log();
    let parsed = parse(&text);
    let mut straight =
        LogPlayer::new(parsed.clone(), Some(sim.topology.clone())).expect("a player");
    straight.run_until(SimTime(u64::MAX));

    let mut player = LogPlayer::new(parsed, Some(sim.topology.clone())).expect("a player");
    let end = player.end_time().as_ns();
    player.run_until(SimTime(end / 3));
    let snapshot = player.snapshot();
    let running = player.running();
    player.run_until(SimTime(end * 2 / 3));
    player.restore(&snapshot);
    assert_eq!(player.now(), SimTime(end / 3));
    assert_eq!(player.running(), running);
    player.run_until(SimTime(u64::MAX));
    assert_eq!(player.trace.hash_hex(), straight.trace.hash_hex());
    assert_eq!(player.trace.len(), straight.trace.len());
    assert!(player.wait_log.iter().eq(straight.wait_log.iter()));
    assert_eq!(player.moves(), straight.moves());
    assert_eq!(player.latency_percentiles(), straight.latency_percentiles());
    assert_eq!(player.busy_ns(), straight.busy_ns());
}

#[test]
fn a_machine_without_the_logs_cpu_is_refused_with_the_cpu_named() {
    let text = "  a-1 [099] d..2.  1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=swapper/99 next_pid=0 next_prio=120\n";
    let shape = preset("teaching-small").resolve().expect("a preset");
    let machine = sched_core::topology::Topology::build(shape);
    assert!(
        machine.n_cpus() <= 99,
        "the test needs a machine without CPU 99"
    );
    let error = match LogPlayer::new(parse(text), Some(machine)) {
        Ok(_) => panic!("CPU 99 on a smaller machine"),
        Err(error) => error,
    };
    assert!(error.contains("CPU 99"), "{error}");
    // On the flat machine of the CPUs seen it plays.
    let mut flat = LogPlayer::new(parse(text), None).expect("the flat machine");
    assert_eq!(flat.topology.n_cpus(), 100);
    flat.run_until(SimTime(u64::MAX));
    assert_eq!(flat.running()[99], 0);
    assert_eq!(flat.trace.len(), 1);
}

#[test]
fn an_empty_log_plays_as_nothing() {
    let mut player = LogPlayer::new(parse(""), None).expect("an empty log");
    assert_eq!(player.end_time(), SimTime(0));
    assert!(player.is_finished());
    assert!(!player.step());
    assert_eq!(player.running(), vec![0]);
}
