//! `schedlab explain`: why one wakeup or fork went to the CPU it did.
//!
//! Re-runs the scenario from the start (same scenario and seed, same schedule) with
//! the core's decision recorder armed for one trace record, and prints the steps
//! of `select_task_rq_fair` with their numbers (`Simulator::explain_record`).

use sched_core::explain::{cpu_list, CpuVisit, Decision, DecisionKind, StepDetail};
use sched_core::{SimTime, Simulator};
use std::fmt::Write as _;

#[derive(clap::Args)]
pub struct ExplainArgs {
    /// A scenario file, or the name of one in scenarios/ (`teaching-small`).
    scenario: String,
    /// The trace record to explain: its 0-based index among all records of the run,
    /// which is the line number (from 0) among the event lines of `schedlab run
    /// SCENARIO --trace-out FILE` with the same --seed and --set, the `#` header
    /// lines not counted. Wakeups and forks can be explained: a sched_wakeup or
    /// sched_wakeup_new line, or the sched_waking or sched_migrate_task line of the
    /// same wakeup. Indexes past what --trace-out keeps (records within 512 MiB,
    /// about 50 million) still count.
    #[arg(long = "event", value_name = "N")]
    event: u64,
    /// Override the scenario's seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Override a field by its dotted path, e.g. `kernel=4.6`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Print the decision as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn explain(args: &ExplainArgs) -> Result<(), String> {
    let (_, scenario) = crate::load(&args.scenario, args.seed, &args.set)?;
    let decision = Simulator::explain_record(&scenario, args.event)
        .map_err(|message| format!("error: {message}"))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&decision).expect("a decision serialises")
        );
    } else {
        print!("{}", render(&decision));
    }
    Ok(())
}

/// The decision as indented text: a header, one line per step (a group table under
/// each fork domain), the chosen CPU and the model's one-line reason.
pub fn render(decision: &Decision) -> String {
    let mut out = String::new();
    let kind = match decision.kind {
        DecisionKind::Wakeup => "wakeup",
        DecisionKind::Fork => "fork",
    };
    let _ = writeln!(
        out,
        "record {}: {} of pid {} ({}) at {} s: a {kind} placement, kernel {}",
        decision.record_index,
        decision.event,
        decision.pid,
        decision.comm,
        SimTime(decision.time_ns),
        decision.kernel
    );
    let records: Vec<String> = decision
        .records
        .iter()
        .map(|record| format!("{} {}", record.index, record.event))
        .collect();
    let _ = writeln!(out, "  records: {}", records.join(", "));
    let from = match decision.kind {
        DecisionKind::Wakeup => "waker's CPU",
        DecisionKind::Fork => "forked on CPU",
    };
    let _ = write!(out, "  {from} {}", decision.from_cpu);
    if let Some(prev) = decision.prev_cpu {
        let _ = write!(out, ", previous CPU {prev}");
    }
    let _ = writeln!(out, ", allowed CPUs {}", cpu_list(&decision.allowed_cpus));
    let _ = writeln!(out, "  steps:");
    for (number, step) in decision.steps.iter().enumerate() {
        let _ = write!(out, "  {:>3}. {}", number + 1, step.text);
        let visits = step.detail.visits();
        if !visits.is_empty() {
            let _ = write!(out, "  [{}]", visit_list(visits));
        }
        out.push('\n');
        if let StepDetail::Domain { groups, .. } = &step.detail {
            let width = groups
                .iter()
                .map(|group| group.cpus.len())
                .max()
                .unwrap_or(0);
            for group in groups {
                let mut marks = Vec::new();
                if group.local {
                    marks.push("local");
                }
                if group.idlest {
                    marks.push("idlest");
                }
                if group.allowed_cpus == 0 {
                    marks.push("no allowed CPU: not compared");
                }
                let _ = writeln!(
                    out,
                    "         group {:<width$}  sum_nr_running {:>3}, idle CPUs {:>3} of {:>3}, {} allowed, {}avg_load {}, util {} %{}",
                    group.cpus,
                    group.sum_nr_running,
                    group.idle_cpus,
                    group.weight,
                    group.allowed_cpus,
                    group
                        .group_type
                        .map_or(String::new(), |kind| format!("{kind}, ")),
                    group.avg_load,
                    group.util_pct,
                    if marks.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", marks.join(", "))
                    }
                );
            }
        }
    }
    let _ = writeln!(out, "  chosen CPU: {}", decision.chosen_cpu);
    let _ = writeln!(out, "  summary: {}", decision.summary);
    out
}

fn visit_list(visits: &[CpuVisit]) -> String {
    visits
        .iter()
        .map(|visit| format!("CPU {} {}", visit.cpu, visit.state.label()))
        .collect::<Vec<_>>()
        .join(", ")
}
