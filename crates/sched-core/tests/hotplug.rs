//! CPU hotplug: an offline CPU's tasks move away and none is lost; kernel threads
//! park and come back with their CPU.

use crate::common;

use common::{hogs, preset, run_sim, run_sleep, scenario, tasks};
use sched_core::behaviour::{Dist, Op};
use sched_core::scenario::HotplugSpec;
use sched_core::trace::TraceKind;

fn offline(cpu: u32, at_ms: f64) -> HotplugSpec {
    HotplugSpec {
        at_ms,
        cpu,
        online: false,
    }
}

fn online(cpu: u32, at_ms: f64) -> HotplugSpec {
    HotplugSpec {
        at_ms,
        cpu,
        online: true,
    }
}

/// Times (ns) at which `cpu` switched to a task (not to idle).
fn busy_switches_on(sim: &sched_core::Simulator, cpu: u32) -> Vec<u64> {
    let trace = &sim.trace;
    (0..trace.len())
        .filter(|idx| {
            trace.kind(*idx) == TraceKind::SchedSwitch
                && trace.cpu(*idx) == cpu
                && trace.arg0(*idx) != 0
        })
        .map(|idx| trace.time(idx).as_ns())
        .collect()
}

#[test]
fn an_offline_cpu_runs_nothing_and_no_task_is_lost() {
    let mut scenario = scenario(preset("teaching-small"), vec![hogs("hog", 8, 0)], 300, 1);
    scenario.hotplug = vec![offline(3, 100.0), online(3, 200.0)];
    let mut sim = sched_core::Simulator::new(&scenario).unwrap();
    while sim.step() == sched_core::StepOutcome::Handled {
        sim.check_invariants().unwrap();
    }
    let switches = busy_switches_on(&sim, 3);
    assert!(
        switches.iter().any(|at| *at < 100_000_000),
        "CPU 3 ran before"
    );
    assert!(
        !switches
            .iter()
            .any(|at| (100_000_000..200_000_000).contains(at)),
        "CPU 3 ran while offline"
    );
    assert!(
        switches.iter().any(|at| *at >= 200_000_000),
        "CPU 3 runs again once online"
    );
    let hogs_alive = sim
        .tasks
        .iter()
        .filter(|task| task.comm == "hog" && task.is_runnable())
        .count();
    assert_eq!(hogs_alive, 8, "every hog is still runnable");
    let hotplug_lines: Vec<String> = (0..sim.trace.len())
        .filter(|idx| sim.trace.kind(*idx) == TraceKind::CpuHotplug)
        .map(|idx| sim.trace.ftrace_line(idx, &sim))
        .collect();
    assert_eq!(hotplug_lines.len(), 2, "{hotplug_lines:?}");
    assert!(
        hotplug_lines[0].contains("cpu=3 state=offline tasks_moved=1"),
        "{}",
        hotplug_lines[0]
    );
    assert!(
        hotplug_lines[1].contains("state=online"),
        "{}",
        hotplug_lines[1]
    );
}

#[test]
fn a_task_allowed_only_on_the_offline_cpu_loses_its_affinity_and_runs_elsewhere() {
    let program = vec![Op::Loop {
        count: None,
        body: vec![
            Op::Run {
                duration: Dist::Fixed { us: 500.0 },
                memory_bound: false,
            },
            Op::Sleep {
                duration: Dist::Fixed { us: 500.0 },
            },
        ],
    }];
    let mut scenario = scenario(
        preset("teaching-small"),
        vec![tasks("pinned", 1, Some("5"), 0, program)],
        50,
        1,
    );
    scenario.hotplug = vec![offline(5, 10.0)];
    let sim = run_sim(&scenario);
    let task = &sim.tasks[0];
    assert_ne!(task.cpu.0, 5);
    assert!(
        task.affinity.len() > 1,
        "select_fallback_rq widened its mask"
    );
    let reasons: Vec<String> = (0..sim.trace.len())
        .map(|idx| sim.trace.reason_text(idx))
        .filter(|text| text.contains("select_fallback_rq"))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|text| text.contains("may now run anywhere")),
        "{reasons:?}"
    );
}

#[test]
fn a_kernel_thread_parks_while_its_cpu_is_offline() {
    let mut scenario = scenario(
        preset("teaching-small"),
        vec![run_sleep("w", 2, 200.0, 800.0)],
        400,
        3,
    );
    scenario.hotplug = vec![offline(6, 100.0), online(6, 250.0)];
    let sim = run_sim(&scenario);
    let kworker = sim
        .tasks
        .iter()
        .find(|task| task.comm == "kworker/6")
        .expect("a kworker per CPU")
        .pid
        .0;
    let runs: Vec<u64> = (0..sim.trace.len())
        .filter(|idx| {
            sim.trace.kind(*idx) == TraceKind::SchedSwitch && sim.trace.arg0(*idx) == kworker
        })
        .map(|idx| sim.trace.time(idx).as_ns())
        .collect();
    assert!(
        runs.iter()
            .all(|at| !(100_000_000..250_000_000).contains(at)),
        "ran while parked"
    );
    assert!(
        runs.iter().any(|at| *at >= 250_000_000),
        "back after its CPU came online"
    );
}

#[test]
fn taking_every_cpu_offline_is_refused_with_the_path() {
    let mut scenario = scenario(preset("teaching-numa"), vec![hogs("hog", 1, 0)], 10, 1);
    scenario.hotplug = (0..8).map(|cpu| offline(cpu, 1.0)).collect();
    let errors = scenario.check();
    assert!(
        errors
            .iter()
            .any(|error| error.path == "hotplug.7.cpu" && error.message.contains("no CPU online")),
        "{errors:?}"
    );
    scenario.hotplug = vec![offline(9, 1.0)];
    let errors = scenario.check();
    assert!(
        errors.iter().any(|error| error.path == "hotplug.0.cpu"),
        "{errors:?}"
    );
}

#[test]
fn cpus_offline_from_the_start_never_run_and_utilisation_is_of_the_online_ones() {
    // Eight hogs on eight CPUs, four of them offline from time 0 and back at 200 ms.
    let mut scenario = scenario(preset("teaching-small"), vec![hogs("hog", 8, 0)], 300, 1);
    scenario.hotplug = (4..8)
        .map(|cpu| offline(cpu, 0.0))
        .chain((4..8).map(|cpu| online(cpu, 200.0)))
        .collect();
    let mut sim = sched_core::Simulator::new(&scenario).unwrap();
    for cpu in 4..8 {
        assert!(!sim.cpu_online(sched_core::topology::CpuId(cpu)));
    }
    while sim.step() == sched_core::StepOutcome::Handled {
        sim.check_invariants().unwrap();
    }
    for cpu in 4..8 {
        let switches = busy_switches_on(&sim, cpu);
        assert!(
            switches.iter().all(|at| *at >= 200_000_000),
            "CPU {cpu} ran while offline: {switches:?}"
        );
        assert!(!switches.is_empty(), "CPU {cpu} runs once back");
    }
    // Every online CPU was busy throughout: 4 CPUs for 200 ms, then 8 for 100 ms.
    let summary = sim.summary("offline from the start");
    assert!(
        summary.utilization > 0.97,
        "utilisation {} of the online CPUs' time",
        summary.utilization
    );
    // Counted as if the four had gone offline at time 0 in turn.
    assert_eq!(sim.offline_time_ns(), 4 * 200_000_000);
}
