//! Unit tests of the baseline paths' details that a whole run would hide.

use crate::background::BackgroundSpec;
use crate::behaviour::{Dist, Op};
use crate::engine::Simulator;
use crate::kernel::FeaturesSpec;
use crate::scenario::Scenario;
use crate::task::TaskState;
use crate::time::SimTime;
use crate::topology::{CpuId, TopologySpec};
use crate::workload::{TaskTemplate, TasksSpec, WorkloadSpec};

/// `count` CPU hogs on the 8-CPU teaching machine, without background threads.
fn hogs_on_teaching_small(count: u32) -> Simulator {
    Simulator::new(&teaching_small_with(count, 1_000_000.0, None)).expect("a valid scenario")
}

/// `count` tasks that run `run_us` then sleep `sleep_us` (if any), forever.
fn teaching_small_with(count: u32, run_us: f64, sleep_us: Option<f64>) -> Scenario {
    let mut body = vec![Op::Run {
        duration: Dist::Fixed { us: run_us },
        memory_bound: false,
    }];
    if let Some(us) = sleep_us {
        body.push(Op::Sleep {
            duration: Dist::Fixed { us },
        });
    }
    Scenario {
        schema: None,
        title: "unit".into(),
        description: String::new(),
        seed: 1,
        duration_ms: 1_000,
        topology: TopologySpec {
            preset: Some("teaching-small".into()),
            ..Default::default()
        },
        kernel: None,
        features: FeaturesSpec::default(),
        workloads: vec![WorkloadSpec::Tasks(TasksSpec {
            unit: "ops".into(),
            tasks: vec![TaskTemplate {
                comm: "hog".into(),
                count,
                nice: 0,
                cpus: None,
                start_us: 0,
                record_latency: false,
                footprint_kib: 0,
                jitter: false,
                uclamp_max: None,
                program: vec![Op::Loop { count: None, body }],
            }],
        })],
        policy: Default::default(),
        knobs: Default::default(),
        costs: Default::default(),
        background: BackgroundSpec {
            enabled: false,
            ..Default::default()
        },
        power: Default::default(),
        hotplug: Vec::new(),
        cgroups: Vec::new(),
    }
}

#[test]
fn task_hot_measures_from_when_the_task_last_ran_not_from_its_switch_in() {
    let mut sim = hogs_on_teaching_small(1);
    sim.run_until(SimTime::from_ms(100));
    let task = crate::task::TaskId(0);
    let cpu = sim.tasks[0].cpu;
    let elsewhere = CpuId((cpu.0 + 4) % 8);
    // Switched in 100 ms ago but running until now: it ran just now, so it is hot.
    assert!(matches!(sim.tasks[0].state, TaskState::Running(_)));
    sim.update_curr(cpu);
    assert!(sim.task_hot(task, elsewhere));
    // After a migration the kernel clears exec_start: cold.
    sim.tasks[0].exec_start = None;
    assert!(!sim.task_hot(task, elsewhere));
}

#[test]
fn scheduler_work_on_an_idle_cpu_is_busy_time_as_it_elapses_and_delays_nobody() {
    let mut sim = hogs_on_teaching_small(1);
    sim.run_until(SimTime::from_ms(10));
    let idle = (0..8)
        .map(CpuId)
        .find(|cpu| sim.cpu_is_idle(*cpu))
        .expect("7 CPUs are idle");
    let busy_before = sim.busy_ns()[idle.0 as usize];
    sim.charge_overhead(idle, 100_000);
    sim.settle_overhead();
    assert_eq!(
        sim.cpus[idle.0 as usize].overhead_ns, 0,
        "nothing left owed"
    );
    // None of it has elapsed yet: busy time never runs ahead of the clock.
    assert_eq!(sim.busy_ns()[idle.0 as usize], busy_before);
    sim.run_until(SimTime::from_ms(10) + SimTime::from_us(40));
    assert!(
        sim.cpu_is_idle(idle),
        "still idle: nothing waits for the work"
    );
    assert!(sim.busy_ns()[idle.0 as usize] >= busy_before + 40_000);
    sim.run_until(SimTime::from_ms(11));
    assert!(sim.busy_ns()[idle.0 as usize] >= busy_before + 100_000);
    assert!(sim.busy_ns()[idle.0 as usize] <= sim.now().0);
}

#[test]
fn scheduler_work_on_a_busy_cpu_delays_its_running_task() {
    let mut sim = hogs_on_teaching_small(1);
    sim.run_until(SimTime::from_ms(10));
    let cpu = sim.tasks[0].cpu;
    sim.update_curr(cpu);
    let work_before = sim.tasks[0].remaining_work.expect("in a burst");
    sim.charge_overhead(cpu, 50_000);
    sim.settle_overhead();
    let work_after = sim.tasks[0].remaining_work.expect("in a burst");
    assert_eq!(sim.cpus[cpu.0 as usize].overhead_ns, 0);
    assert!(work_after > work_before, "the burst got longer");
}

#[test]
fn the_sis_util_scan_inspects_exactly_its_limit_of_allowed_cpus() {
    // Eight hogs keep every CPU busy; the task may use LLC 0's CPUs only.
    let mut sim = hogs_on_teaching_small(8);
    sim.run_until(SimTime::from_ms(200));
    let llc0: Vec<CpuId> = sim.topology.llc_cpus[0].iter().collect();
    assert!(
        llc0.iter().all(|cpu| !sim.cpu_is_idle(*cpu)),
        "LLC 0 is full"
    );
    let task = crate::task::TaskId(0);
    let cpu = llc0[0];
    sim.tasks[0].affinity = crate::cpuset::CpuSet::from_cpus(8, llc0.iter().copied());
    let limit = 3;
    let (found, scanned, bound) = sim.select_idle_cpu_with_bound(task, cpu, 0, Some(limit));
    assert_eq!(found, None);
    assert_eq!(bound, Some(limit));
    assert_eq!(scanned, limit, "the scan looks at exactly `limit` CPUs");
}

/// Nine hogs on eight CPUs, 400 ms in: one CPU runs two. Returns the simulator and
/// a CPU of another core in the same LLC, from which a balance of the MC level (1)
/// finds the waiting hog cache-hot (its `exec_start` set to now), so nothing moves.
fn nine_hogs_with_a_hot_waiter() -> (Simulator, CpuId) {
    let mut sim = hogs_on_teaching_small(9);
    // Long enough for PELT to see the cores as busy.
    sim.run_until(SimTime::from_ms(400));
    let src = (0..8)
        .map(CpuId)
        .find(|cpu| sim.rqs[cpu.0 as usize].nr_running == 2)
        .expect("one CPU runs two hogs");
    let this_cpu = sim.topology.llc_cpus[sim.topology.llc_of(src).0 as usize]
        .iter()
        .find(|cpu| sim.topology.core_of(*cpu) != sim.topology.core_of(src))
        .expect("the LLC has another core");
    let (_, waiting) = sim.rqs[src.0 as usize].leftmost().expect("a hog waits");
    let now = sim.now();
    sim.tasks[waiting.0 as usize].exec_start = Some(now);
    (sim, this_cpu)
}

#[test]
fn newidle_failures_do_not_count_towards_nr_balance_failed() {
    let (mut sim, this_cpu) = nine_hogs_with_a_hot_waiter();
    let mc = 1;
    sim.cpus[this_cpu.0 as usize].balance_failed[mc] = 0;
    assert!(!sim.load_balance_for_test(this_cpu, mc, true));
    assert_eq!(
        sim.cpus[this_cpu.0 as usize].balance_failed[mc], 0,
        "newidle"
    );
    // The same attempt from the tick does count.
    assert!(!sim.load_balance_for_test(this_cpu, mc, false));
    assert_eq!(
        sim.cpus[this_cpu.0 as usize].balance_failed[mc], 1,
        "periodic"
    );
}

#[test]
fn the_balance_interval_backs_off_when_balanced_and_resets_on_an_imbalance() {
    // Eight hogs on eight CPUs: every periodic balance finds nothing to do.
    let mut sim = hogs_on_teaching_small(8);
    sim.run_until(SimTime::from_ms(400));
    let cpu = CpuId(0);
    let smt = 0;
    let min = sim.domains.of(cpu)[smt].min_interval_ms;
    assert_eq!(min, 2, "an SMT domain spans two CPUs");
    assert_eq!(
        sim.cpus[0].balance_interval_ms[smt],
        2 * min,
        "400 ms of balanced passes backed it off"
    );
    sim.cpus[0].balance_interval_ms[smt] = min;
    // get_sd_balance_interval() at HZ=250 on 6.5: 2 ms idle is one 4 ms tick;
    // busy, 2 x 16 = 32 ms is 8 ticks, less one.
    assert_eq!(sim.sd_balance_interval(0, smt, false), SimTime::from_ms(4));
    assert_eq!(sim.sd_balance_interval(0, smt, true), SimTime::from_ms(28));
    assert!(!sim.load_balance_for_test(cpu, smt, true));
    assert_eq!(
        sim.cpus[0].balance_interval_ms[smt], min,
        "newidle keeps it"
    );
    assert!(!sim.load_balance_for_test(cpu, smt, false));
    assert_eq!(sim.cpus[0].balance_interval_ms[smt], 2 * min, "doubled");
    assert!(!sim.load_balance_for_test(cpu, smt, false));
    assert_eq!(
        sim.cpus[0].balance_interval_ms[smt],
        2 * min,
        "max_interval"
    );
    assert_eq!(sim.sd_balance_interval(0, smt, true), SimTime::from_ms(60));

    // Nine hogs: a balance that finds the imbalance, even one that moves nothing
    // (the waiting hog is cache-hot), puts the interval back to its minimum.
    let (mut sim, this_cpu) = nine_hogs_with_a_hot_waiter();
    let mc = 1;
    sim.cpus[this_cpu.0 as usize].balance_failed[mc] = 0;
    let mc_min = sim.domains.of(this_cpu)[mc].min_interval_ms;
    sim.cpus[this_cpu.0 as usize].balance_interval_ms[mc] = 2 * mc_min;
    assert!(!sim.load_balance_for_test(this_cpu, mc, false));
    assert_eq!(sim.cpus[this_cpu.0 as usize].balance_failed[mc], 1);
    assert_eq!(
        sim.cpus[this_cpu.0 as usize].balance_interval_ms[mc],
        mc_min
    );
}

#[test]
fn from_5_11_the_balancer_passes_over_per_cpu_kworkers_before_its_affinity_test() {
    let mut scenario = teaching_small_with(8, 1_000.0, None);
    scenario.background.enabled = true;
    let kworker_of_0 = |sim: &Simulator| {
        let idx = sim
            .tasks
            .iter()
            .position(|task| task.comm == "kworker/0")
            .expect("CPU 0 has its kworker");
        crate::task::TaskId(idx as u32)
    };
    for (kernel, ignored) in [("5.10", false), ("5.11", true), ("6.5", true)] {
        scenario.kernel = Some(kernel.into());
        let sim = Simulator::new(&scenario).expect("a valid scenario");
        assert_eq!(sim.features.lb_ignores_pcpu_kthreads, ignored, "{kernel}");
        let (may, some_pinned, all_pinned) =
            sim.may_detach_for_test(kworker_of_0(&sim), CpuId(0), CpuId(1));
        assert!(!may, "{kernel}: a kworker never moves");
        // Before 5.11 its affinity marks the balance; from 5.11 it is not looked at.
        assert_eq!(some_pinned, !ignored, "{kernel}");
        assert!(all_pinned, "{kernel}");
    }
}

#[test]
fn a_runqueue_whose_tasks_are_all_pinned_elsewhere_is_passed_for_the_next_busiest() {
    // Three hogs pinned to CPU 4 and two to CPU 5: the busiest runqueue of the
    // group is CPU 4's, whose waiting tasks may not run on CPU 0.
    let mut scenario = teaching_small_with(0, 1_000_000.0, None);
    let WorkloadSpec::Tasks(spec) = &mut scenario.workloads[0] else {
        unreachable!()
    };
    let hog = spec.tasks[0].clone();
    spec.tasks = vec![
        TaskTemplate {
            count: 3,
            cpus: Some("4".into()),
            ..hog.clone()
        },
        TaskTemplate {
            count: 2,
            cpus: Some("5".into()),
            ..hog
        },
    ];
    let mut sim = Simulator::new(&scenario).expect("a valid scenario");
    sim.run_until(SimTime::from_ms(100));
    assert_eq!(sim.rqs[4].nr_running, 3);
    assert_eq!(sim.rqs[5].nr_running, 2);
    // CPU 5's hogs may now also run on CPU 0.
    for task in sim.tasks.iter_mut().filter(|task| task.cpu == CpuId(5)) {
        task.affinity.insert(CpuId(0));
    }
    let this_cpu = CpuId(0);
    let level = sim
        .domains
        .of(this_cpu)
        .iter()
        .position(|sd| sd.span.contains(CpuId(4)) && sd.span.contains(CpuId(5)))
        .expect("a domain spans CPUs 4 and 5");
    // LBF_ALL_PINNED on CPU 4, then `redo`: CPU 5 gives up a hog.
    assert!(sim.load_balance_for_test(this_cpu, level, true));
    assert_eq!(sim.rqs[4].nr_running, 3);
    assert_eq!(sim.rqs[5].nr_running, 1);
    assert_eq!(sim.rqs[0].nr_running, 1);
}

#[test]
fn avg_idle_is_capped_at_twice_the_costliest_idle_balance() {
    // HHVM's migration cost of 0: the cap is twice the newidle balance cost seen,
    // not a fixed millisecond.
    let mut scenario = teaching_small_with(1, 100.0, Some(50_000.0));
    scenario.knobs.sched_migration_cost_ns = Some(0);
    let mut sim = Simulator::new(&scenario).expect("a valid scenario");
    sim.run_until(SimTime::from_ms(1_000));
    for state in &sim.cpus {
        let max_cost = state.max_newidle_lb_cost.iter().copied().max().unwrap_or(0);
        assert!(
            state.avg_idle_ns <= 2 * max_cost,
            "avg_idle {} above 2 x {max_cost}",
            state.avg_idle_ns
        );
    }
}

#[test]
fn the_sis_util_hint_comes_from_periodic_balancing_of_the_llc_only() {
    // Eight hogs keep both LLCs of the teaching machine busy.
    let mut sim = hogs_on_teaching_small(8);
    assert!(sim.features.sis_util);
    let weight = sim.topology.llc_cpus[0].len() as u32;
    assert_eq!(sim.sis_util_scan_limit(0), weight, "the idle start value");
    assert!(sim.llc_idle_scan[0].set.is_none());
    sim.run_until(SimTime::from_ms(400));
    let hint = sim.llc_idle_scan[0];
    let (at, cpu) = hint.set.expect("a periodic balance of LLC 0 set the hint");
    assert!(sim.topology.llc_cpus[0].contains(cpu));
    assert!(at > SimTime::ZERO && at <= sim.now());
    assert_eq!(hint.nr, 0, "an LLC busy above 85 % scans nothing");
    assert!(hint.per_cpu_util > 1000);
    // A newidle balance of the LLC domain leaves the hint alone; a periodic one sets it.
    let llc_level = crate::domains::llc_level(sim.domains.of(cpu)).expect("an LLC domain");
    sim.llc_idle_scan[0] = crate::baseline::sis::IdleScanHint::idle(weight);
    sim.load_balance_for_test(cpu, llc_level, true);
    assert_eq!(sim.sis_util_scan_limit(0), weight, "newidle");
    sim.load_balance_for_test(cpu, llc_level, false);
    assert_eq!(sim.sis_util_scan_limit(0), 0, "periodic");
    assert_eq!(sim.llc_idle_scan[0].set, Some((sim.now(), cpu)));
    // Balancing a level above the LLC does not set it either.
    sim.llc_idle_scan[0] = crate::baseline::sis::IdleScanHint::idle(weight);
    sim.load_balance_for_test(cpu, llc_level + 1, false);
    assert_eq!(sim.sis_util_scan_limit(0), weight, "above the LLC");
}

#[test]
fn a_cpu_with_a_wakeup_on_its_wake_list_is_shown_as_such_not_as_offline() {
    use crate::explain::CpuState;
    let sim = hogs_on_teaching_small(1);
    let task = crate::task::TaskId(0);
    let cpu = (0..8)
        .map(CpuId)
        .find(|cpu| sim.cpu_is_idle(*cpu))
        .expect("an idle CPU");
    assert_eq!(sim.visit(task, cpu).state, CpuState::IdleCore);
    let mut pending = sim.clone();
    pending.cpus[cpu.0 as usize].wake_list.push((task, false));
    assert!(!pending.cpu_is_idle(cpu));
    assert_eq!(pending.visit(task, cpu).state, CpuState::WakePending);
    assert_eq!(CpuState::WakePending.label(), "wakeup pending");
    let mut offline = sim.clone();
    offline.online.remove(cpu);
    assert_eq!(offline.visit(task, cpu).state, CpuState::Offline);
}

/// `count` hogs pinned to CPU 0 of the teaching machine, with the kernel's features
/// as `features` leaves them.
fn hogs_on_cpu0(count: u32, features: FeaturesSpec) -> Simulator {
    let mut scenario = teaching_small_with(count, 1_000_000.0, None);
    scenario.features = features;
    if let WorkloadSpec::Tasks(tasks) = &mut scenario.workloads[0] {
        tasks.tasks[0].cpus = Some("0".into());
    }
    Simulator::new(&scenario).expect("a valid scenario")
}

/// Moves a queued task of CPU 0 to `vruntime`, keeping the runqueue's order true.
fn requeue_at(sim: &mut Simulator, task: crate::task::TaskId, vruntime: u64) {
    let old = sim.tasks[task.0 as usize].vruntime;
    sim.rqs[0].remove(old, task);
    sim.tasks[task.0 as usize].vruntime = vruntime;
    sim.rqs[0].insert(vruntime, task);
}

#[test]
fn a_wakeup_preemption_names_the_preempted_task_last_buddy_on_a_busy_runqueue() {
    for (count, last_buddy, expect_buddy) in
        [(9, None, true), (4, None, false), (9, Some(false), false)]
    {
        let features = FeaturesSpec {
            last_buddy,
            ..Default::default()
        };
        let mut sim = hogs_on_cpu0(count, features);
        sim.run_until(SimTime::from_ms(50));
        let curr = sim.rqs[0].curr.expect("a hog runs on CPU 0");
        let (_, woken) = sim.rqs[0].leftmost().expect("hogs wait on CPU 0");
        // Far enough behind the running task to preempt it.
        let behind = sim.tasks[curr.0 as usize]
            .vruntime
            .saturating_sub(20_000_000);
        requeue_at(&mut sim, woken, behind);
        sim.rqs[0].last = None;
        sim.check_preempt_curr(CpuId(0), woken);
        assert!(sim.cpus[0].need_resched, "{count} hogs: the wakee preempts");
        let expected = expect_buddy.then_some(curr);
        assert_eq!(
            sim.rqs[0].last, expected,
            "{count} hogs, LAST_BUDDY {last_buddy:?}"
        );
    }
}

#[test]
fn the_pick_prefers_the_last_buddy_unless_that_is_unfair_and_clears_it_when_picked() {
    let mut sim = hogs_on_cpu0(9, FeaturesSpec::default());
    sim.run_until(SimTime::from_ms(50));
    let queued: Vec<_> = sim.rqs[0].queued.iter().map(|&(_, task)| task).collect();
    let (left, buddy) = (queued[0], queued[queued.len() - 1]);
    let left_vruntime = sim.tasks[left.0 as usize].vruntime;
    let gran = sim.knobs.wakeup_gran(sim.tasks[left.0 as usize].weight);
    // Beyond the granularity: the leftmost runs, and the buddy stays named.
    requeue_at(&mut sim, buddy, left_vruntime + gran + 1);
    sim.rqs[0].last = Some(buddy);
    assert_eq!(sim.pick_next_entity(CpuId(0)), (Some(left), false));
    assert_eq!(sim.rqs[0].last, Some(buddy));
    // Within it: the buddy runs, and the pick clears it.
    requeue_at(&mut sim, buddy, left_vruntime + gran);
    assert_eq!(sim.pick_next_entity(CpuId(0)), (Some(buddy), true));
    assert_eq!(sim.rqs[0].last, None);
}

#[test]
fn the_last_buddy_is_cache_hot_for_a_busy_destination_only() {
    let mut sim = hogs_on_cpu0(9, FeaturesSpec::default());
    sim.run_until(SimTime::from_ms(50));
    let (_, buddy) = sim.rqs[0].leftmost().expect("hogs wait on CPU 0");
    // Long enough ago that the time test alone calls it cold.
    sim.tasks[buddy.0 as usize].exec_start = None;
    let other_core = (1..8)
        .map(CpuId)
        .find(|&cpu| sim.topology.core_of(cpu) != sim.topology.core_of(CpuId(0)))
        .expect("the machine has a second core");
    assert!(!sim.task_hot(buddy, other_core));
    sim.rqs[0].last = Some(buddy);
    assert_eq!(
        sim.rqs[other_core.0 as usize].nr_running, 0,
        "its CPU is idle"
    );
    assert!(
        !sim.task_hot(buddy, other_core),
        "an idle destination may take it"
    );
    sim.rqs[other_core.0 as usize].nr_running = 1;
    assert!(sim.task_hot(buddy, other_core), "a busy one may not");
    sim.features.cache_hot_buddy = false;
    assert!(!sim.task_hot(buddy, other_core));
}
