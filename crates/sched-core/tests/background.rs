//! The machine's background kthreads: their timers are deferrable, so an idle CPU's
//! kworker waits for the CPU to wake for something else.

use crate::common;

use common::{hogs, preset, run_sim, scenario};
use sched_core::trace::TraceKind;
use sched_core::workload::WorkloadSpec;

/// How many times `kworker/N` was switched in, per CPU.
fn kworker_runs(workload: WorkloadSpec) -> Vec<usize> {
    let sim = run_sim(&scenario(preset("teaching-small"), vec![workload], 500, 1));
    (0..sim.topology.n_cpus())
        .map(|cpu| {
            let comm = format!("kworker/{cpu}");
            let pid = sim
                .tasks
                .iter()
                .find(|task| task.comm == comm)
                .expect("a kworker per CPU")
                .pid
                .0;
            (0..sim.trace.len())
                .filter(|idx| {
                    sim.trace.kind(*idx) == TraceKind::SchedSwitch && sim.trace.arg0(*idx) == pid
                })
                .count()
        })
        .collect()
}

#[test]
fn an_idle_cpu_does_not_wake_for_its_kworker_but_a_busy_one_runs_it() {
    // Two CPU hogs pinned to CPUs 0 and 1; CPUs 2-7 stay idle for the whole 0.5 s.
    let mut workload = hogs("hog", 2, 0);
    if let WorkloadSpec::Tasks(spec) = &mut workload {
        spec.tasks[0].cpus = Some("0-1".into());
    }
    let runs = kworker_runs(workload);
    // A busy CPU's kworker runs about every 10 ms (its mean interval)...
    for (cpu, count) in runs.iter().enumerate().take(2) {
        assert!(*count >= 20, "CPU {cpu}'s kworker ran {count} times");
    }
    // ... while an idle CPU's never runs: its deferrable timer would fire when the
    // CPU woke for something else, and nothing does (the kthreads start asleep).
    for (cpu, count) in runs.iter().enumerate().skip(2) {
        assert_eq!(*count, 0, "CPU {cpu}'s kworker ran {count} times");
    }
}
