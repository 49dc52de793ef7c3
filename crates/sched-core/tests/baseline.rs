//! Directions the baseline model must show (the trade-offs the kernel patch threads measured).

use crate::common;

use common::{cgroup_tree, hackbench, hogs, preset, run, run_sim, scenario, schbench, tasks};
use sched_core::behaviour::{Dist, Op};
use sched_core::cfs::KnobPreset;
use sched_core::task::TaskState;
use sched_core::trace::{Reason, TraceKind};

fn run_us(us: f64) -> Op {
    Op::Run {
        duration: Dist::fixed_us(us),
        memory_bound: false,
    }
}

#[test]
fn an_overcommitted_llc_rarely_idles_while_tasks_wait_and_newidle_balance_is_why() {
    // 12 sleepy tasks on 8 CPUs (2 LLCs): more runnable tasks than CPUs in an LLC.
    let workload = tasks(
        "w",
        12,
        None,
        64,
        vec![Op::Loop {
            count: None,
            body: vec![
                Op::Run {
                    duration: Dist::Exponential { mean_us: 3000.0 },
                    memory_bound: false,
                },
                Op::Sleep {
                    duration: Dist::Exponential { mean_us: 1000.0 },
                },
                Op::Complete,
            ],
        }],
    );
    let mut with = scenario(preset("teaching-small"), vec![workload], 3_000, 11);
    let with_summary = run(&with);
    with.policy.newidle_balance.enabled = false;
    let without_summary = run(&with);
    let capacity_ns = 3_000_000_000u64 * 8;
    let gap_with = with_summary.idle_while_runnable_ns.llc as f64 / capacity_ns as f64;
    let gap_without = without_summary.idle_while_runnable_ns.llc as f64 / capacity_ns as f64;
    assert!(
        gap_with < 0.05,
        "LLC gap with newidle balance: {:.3} of CPU time",
        gap_with
    );
    assert!(
        gap_without > 1.5 * gap_with,
        "gap without newidle {gap_without:.4} vs with {gap_with:.4}"
    );
}

#[test]
fn a_large_footprint_runs_slower_when_forced_across_llcs_on_every_wakeup() {
    // One task, 4 MiB of data: it either stays on CPU 0 or alternates between
    // CPU 0 and CPU 4 (the other LLC) every wakeup, via sched_setaffinity.
    let body = |second: &str| {
        vec![Op::Loop {
            count: None,
            body: vec![
                Op::SetAffinity { cpus: "0".into() },
                run_us(1000.0),
                Op::Complete,
                Op::Sleep {
                    duration: Dist::fixed_us(500.0),
                },
                Op::SetAffinity {
                    cpus: second.into(),
                },
                run_us(1000.0),
                Op::Complete,
                Op::Sleep {
                    duration: Dist::fixed_us(500.0),
                },
            ],
        }]
    };
    let stays = run(&scenario(
        preset("teaching-small"),
        vec![tasks("w", 1, None, 4096, body("0"))],
        1_000,
        1,
    ));
    let moves = run(&scenario(
        preset("teaching-small"),
        vec![tasks("w", 1, None, 4096, body("4"))],
        1_000,
        1,
    ));
    assert!(moves.migrations.cross_llc > 100, "{:?}", moves.migrations);
    assert_eq!(stays.migrations.cross_llc, 0);
    assert!(
        moves.throughput.value < 0.9 * stays.throughput.value,
        "moving {} vs staying {} loops/s",
        moves.throughput.value,
        stays.throughput.value
    );
}

#[test]
fn two_busy_smt_siblings_do_less_than_twice_one_threads_work() {
    let hog = |cpus: &str| {
        tasks(
            "hog",
            1,
            Some(cpus),
            0,
            vec![Op::Loop {
                count: None,
                body: vec![run_us(1000.0), Op::Complete],
            }],
        )
    };
    let alone = run(&scenario(
        preset("teaching-small"),
        vec![hog("0")],
        1_000,
        1,
    ));
    let pair = run(&scenario(
        preset("teaching-small"),
        vec![hog("0"), hog("1")],
        1_000,
        1,
    ));
    let pair_total: f64 = pair
        .throughput_by_workload
        .iter()
        .map(|w| w.values[0].value)
        .sum();
    let single = alone.throughput.value;
    assert!(
        pair_total < 1.5 * single,
        "pair {pair_total} vs single {single}"
    );
    assert!(pair_total > single, "pair {pair_total} vs single {single}");
}

#[test]
fn the_hhvm_knobs_switch_less_when_cpu_bound_and_overcommitted() {
    // 10 CPU-bound tasks per CPU: the period stretches to nr_running * min_granularity,
    // so HHVM's 10 ms min_granularity (against 3 ms) means longer slices. (With the
    // load this even, migrations are the balancer's noise either way: no direction.)
    let mut base = scenario(preset("teaching-small"), vec![hogs("hog", 80, 0)], 2_000, 3);
    let default = run(&base);
    base.knobs.preset = KnobPreset::Hhvm;
    let hhvm = run(&base);
    assert!(
        hhvm.context_switches < default.context_switches,
        "switches: hhvm {} vs default {}",
        hhvm.context_switches,
        default.context_switches
    );
}

#[test]
fn cfs_bandwidth_control_holds_a_cgroup_tree_to_its_quota() {
    // 16 leaves of busy schbench on 8 CPUs would use far more than 50 % of the machine.
    let capped = run(&scenario(
        preset("teaching-small"),
        vec![cgroup_tree(2, 4, 50)],
        500,
        1,
    ));
    let roomy = run(&scenario(
        preset("teaching-small"),
        vec![cgroup_tree(2, 4, 100)],
        500,
        1,
    ));
    assert!(capped.bandwidth.throttles > 100, "{:?}", capped.bandwidth);
    // Every throttle is undone by a later period refresh (but the last ones: at most
    // one per cfs_rq, 16 leaves on 8 CPUs).
    let pending = capped.bandwidth.throttles - capped.bandwidth.unthrottles;
    assert!(pending <= 16 * 8, "{:?}", capped.bandwidth);
    // cpu.stat: every leaf counts the run's periods, and some of them throttled.
    assert_eq!(capped.bandwidth.cpu_stat.len(), 16);
    for stat in &capped.bandwidth.cpu_stat {
        // Periods end at 10, 20, ... 490 ms inside the 500 ms run.
        assert_eq!(stat.nr_periods, 49, "{stat:?}");
        assert!(stat.nr_throttled > 0 && stat.nr_throttled <= 49, "{stat:?}");
        assert!(stat.throttled_usec > 0, "{stat:?}");
    }
    assert!(
        roomy.bandwidth.throttled_usec < capped.bandwidth.throttled_usec,
        "throttled {} us at 100 % vs {} us at 50 %",
        roomy.bandwidth.throttled_usec,
        capped.bandwidth.throttled_usec
    );
    assert!(
        (0.40..0.60).contains(&capped.utilization),
        "utilisation {} under a 50 % quota",
        capped.utilization
    );
    assert!(
        roomy.utilization > capped.utilization + 0.2,
        "{} vs {}",
        roomy.utilization,
        capped.utilization
    );
}

#[test]
fn a_lower_clock_stretches_cpu_work() {
    let hog = tasks(
        "hog",
        1,
        Some("0"),
        0,
        vec![Op::Loop {
            count: None,
            body: vec![run_us(1000.0), Op::Complete],
        }],
    );
    let nominal = run(&scenario(
        preset("teaching-small"),
        vec![hog.clone()],
        500,
        1,
    ));
    let mut slow = scenario(preset("teaching-small"), vec![hog], 500, 1);
    slow.costs.frequency_mhz = Some(1000); // half the preset's nominal 2000 MHz
    let slow = run(&slow);
    let ratio = slow.throughput.value / nominal.throughput.value;
    assert!(
        (0.45..0.55).contains(&ratio),
        "half the clock gives {ratio} of the work"
    );
    assert_eq!(slow.avg_freq_mhz, 1000.0);
}

#[test]
fn an_unthrottled_task_is_placed_like_a_waking_sleeper() {
    // A throttled task whose vruntime fell far behind must not come back with all
    // that credit: unthrottling enqueues it through place_entity(), no lower than
    // min_vruntime - sched_latency / 2.
    let mut sim = sched_core::Simulator::new(&scenario(
        preset("teaching-small"),
        vec![cgroup_tree(2, 4, 30)],
        300,
        1,
    ))
    .unwrap();
    let latency = sim.knobs.sched_latency_ns;
    let mut lowered = None;
    while sim.step() == sched_core::StepOutcome::Handled {
        match lowered {
            None => {
                if let Some(idx) = sim
                    .tasks
                    .iter()
                    .position(|task| matches!(task.state, TaskState::Throttled(_)))
                {
                    sim.tasks[idx].vruntime = 0;
                    lowered = Some(idx);
                }
            }
            Some(idx) => {
                if let TaskState::Queued(cpu) = sim.tasks[idx].state {
                    // Its own cfs_rq's min_vruntime (that of its group on that CPU).
                    let min_vruntime =
                        sim.task_min_vruntime(sched_core::task::TaskId(idx as u32), cpu);
                    assert!(
                        sim.tasks[idx].vruntime + latency / 2 >= min_vruntime,
                        "vruntime {} with min_vruntime {min_vruntime}",
                        sim.tasks[idx].vruntime
                    );
                    return;
                }
            }
        }
    }
    panic!("no throttled task was unthrottled");
}

/// A CPU leaves idle once per wakeup burst: the wakeups its exit enqueues
/// (`sched_ttwu_pending()`) must not queue a second exit, which would later switch
/// out the task the first one picked as though the CPU were still idle.
#[test]
fn a_running_task_is_never_switched_out_because_its_cpu_was_idle() {
    let runs = [
        scenario(
            preset("teaching-small"),
            vec![schbench(2, 5, 2000, 3000)],
            200,
            42,
        ),
        scenario(preset("ryzen-7950x"), vec![hackbench(4, 100, 10)], 1000, 7),
    ];
    for scenario in &runs {
        let sim = run_sim(scenario);
        let mut idle_exits = 0;
        for idx in 0..sim.trace.len() {
            let record = sim.trace.get(idx);
            if record.kind != TraceKind::SchedSwitch || record.reason != Reason::LeftIdle {
                continue;
            }
            assert_eq!(
                record.pid,
                0,
                "at {} ns CPU {} switched out pid {} as though it were idle",
                record.time.as_ns(),
                record.cpu,
                record.pid
            );
            idle_exits += 1;
        }
        assert!(idle_exits > 10, "the run left idle only {idle_exits} times");
    }
}
