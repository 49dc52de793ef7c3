//! Seed 003, TurboSched on the 5.2 baseline with the power model: directional tests
//! over seeds (`docs/policies/turbosched.md` has the sweep).

use crate::common;

use common::{median, preset, run, run_sim, scenario};
use sched_core::trace::TraceKind;
use sched_core::workload::{TurboBenchSpec, WorkloadSpec};
use sched_core::Scenario;

fn turbo_bench(n: u32, pack: bool, seed: u64) -> Scenario {
    let bench = WorkloadSpec::TurboBench(TurboBenchSpec {
        cpu_bound: n,
        jitter_tasks: None,
        jitter_run_us: 30.0,
        jitter_period_us: 3_000.0,
        classify: Default::default(),
    });
    let mut scenario = scenario(preset("power9-smt4"), vec![bench], 1_000, seed);
    scenario.kernel = Some("5.2".into());
    scenario.power.enabled = true;
    scenario.policy.turbo_pack.enabled = pack;
    scenario
}

/// Medians over seeds 1..=5 of (CPU-bound loops/s, average busy MHz, deep-idle cores).
fn figures(n: u32, pack: bool) -> (f64, f64, f64) {
    let (mut loops, mut mhz, mut deep) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 1..=5 {
        let summary = run(&turbo_bench(n, pack, seed));
        let power = summary.power.expect("the power model ran");
        loops.push(summary.throughput.value);
        mhz.push(power.avg_freq_mhz);
        deep.push(power.avg_deep_idle_cores);
    }
    (median(loops), median(mhz), median(deep))
}

#[test]
fn packing_raises_frequency_and_throughput_at_mid_n_and_not_at_the_smallest() {
    for n in [8, 10, 12] {
        let (loops_off, mhz_off, deep_off) = figures(n, false);
        let (loops_on, mhz_on, deep_on) = figures(n, true);
        assert!(
            mhz_on > 1.03 * mhz_off,
            "N={n}: frequency {mhz_on} MHz packed vs {mhz_off}"
        );
        assert!(
            loops_on > 1.03 * loops_off,
            "N={n}: throughput {loops_on} packed vs {loops_off}"
        );
        assert!(
            deep_on > deep_off + 1.0,
            "N={n}: deep-idle cores {deep_on} packed vs {deep_off}"
        );
    }
    // At N = 2 both keep few cores out of deep idle and run near the top of the
    // turbo table: the benefit is about zero.
    let (loops_off, _, _) = figures(2, false);
    let (loops_on, _, _) = figures(2, true);
    let benefit = loops_on / loops_off - 1.0;
    assert!(
        benefit.abs() < 0.015,
        "N=2: benefit {:.1} %",
        benefit * 100.0
    );
}

#[test]
fn packing_never_changes_where_other_tasks_are_first_placed() {
    for seed in 1..=5 {
        let first_placements = |pack: bool| {
            let sim = run_sim(&turbo_bench(10, pack, seed));
            let mut placed = Vec::new();
            for idx in 0..sim.trace.len() {
                let record = sim.trace.get(idx);
                if record.kind != TraceKind::SchedWakeupNew {
                    continue;
                }
                let task = sim
                    .tasks
                    .iter()
                    .position(|task| task.pid.0 == record.pid)
                    .expect("a task");
                if !sim.is_jitter(sched_core::task::TaskId(task as u32)) {
                    placed.push((record.pid, record.arg0));
                }
            }
            placed
        };
        assert_eq!(
            first_placements(false),
            first_placements(true),
            "seed {seed}"
        );
    }
}

#[test]
fn a_packed_wakeup_says_where_and_why() {
    let sim = run_sim(&turbo_bench(8, true, 1));
    let reasons: Vec<String> = (0..sim.trace.len())
        .filter(|idx| sim.trace.kind(*idx) == TraceKind::SchedWakeup)
        .map(|idx| sim.trace.reason_text(idx))
        .filter(|text| text.contains("TurboSched"))
        .collect();
    assert!(!reasons.is_empty(), "no packed wakeup");
    assert!(
        reasons[0].contains("packed onto busy core") && reasons[0].contains("first fit"),
        "{}",
        reasons[0]
    );
    // Frequency changes are traced as the kernel's cpu_frequency events, in kHz.
    let freq = (0..sim.trace.len())
        .find(|idx| sim.trace.kind(*idx) == TraceKind::CpuFrequency)
        .expect("a frequency change");
    let payload = sim.trace.payload(freq, &sim);
    assert!(
        payload.starts_with("state=") && payload.contains("cpu_id="),
        "{payload}"
    );
}

#[test]
fn uclamp_max_classifies_as_jitter_like_the_attribute() {
    let mut by_attribute = turbo_bench(8, true, 1);
    let mut by_uclamp = by_attribute.clone();
    if let WorkloadSpec::TurboBench(spec) = &mut by_uclamp.workloads[0] {
        spec.classify = sched_core::workload::JitterClass::Uclamp;
    }
    by_attribute.duration_ms = 300;
    by_uclamp.duration_ms = 300;
    let a = run(&by_attribute);
    let b = run(&by_uclamp);
    assert_eq!(a.trace_hash, b.trace_hash);
    // Unclassified, nothing is packed.
    let mut unclassified = by_attribute.clone();
    if let WorkloadSpec::TurboBench(spec) = &mut unclassified.workloads[0] {
        spec.classify = sched_core::workload::JitterClass::None;
    }
    let mut off = unclassified.clone();
    off.policy.turbo_pack.enabled = false;
    assert_eq!(run(&unclassified).trace_hash, run(&off).trace_hash);
}

/// The decision inspector shows the packing search: the cores of the domain it
/// looked at, each with its utilisation and verdict, ending on the packed core.
#[test]
fn the_inspector_explains_a_packed_wakeup_with_the_cores_it_looked_at() {
    use sched_core::trace::Reason;
    use sched_core::Simulator;
    let mut scenario = turbo_bench(8, true, 1);
    scenario.duration_ms = 100;
    let sim = run_sim(&scenario);
    let packed = (0..sim.trace.len())
        .find(|&index| {
            sim.trace.kind(index) == TraceKind::SchedWakeup
                && matches!(sim.trace.reason(index), Reason::TurboPack { .. })
        })
        .expect("a jitter wakeup is packed");
    let decision = Simulator::explain_record(&scenario, packed as u64).unwrap();
    let step = decision
        .steps
        .iter()
        .find(|step| {
            matches!(
                step.detail,
                sched_core::explain::StepDetail::TurboPack { .. }
            )
        })
        .expect("a TurboSched step");
    let sched_core::explain::StepDetail::TurboPack {
        cores, chosen_cpu, ..
    } = &step.detail
    else {
        unreachable!()
    };
    assert_eq!(*chosen_cpu, Some(decision.chosen_cpu));
    assert_eq!(cores.last().map(|core| core.verdict), Some("packed"));
    assert!(cores[..cores.len() - 1]
        .iter()
        .all(|core| core.verdict != "packed"));
    assert!(step.text.contains("packed onto CPU"), "{}", step.text);
}
