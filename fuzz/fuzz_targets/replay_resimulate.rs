//! Arbitrary bytes as an ftrace log, re-simulated as `schedlab replay --resimulate`
//! does: the derived workload becomes a scenario (a flat machine of the CPUs seen,
//! or a preset the input's first byte picks), which is loaded through its JSON and
//! run for a bounded number of events.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use sched_core::replay::{derive_workload, parse, replay};

/// `None` is the flat machine of the CPUs the log shows.
const MACHINES: [Option<&str>; 2] = [None, Some("teaching-small")];

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    let parsed = parse(&String::from_utf8_lossy(bytes));
    let metrics = replay(&parsed, None);
    let derived = derive_workload(&parsed);
    if derived.tasks.tasks.is_empty() {
        return;
    }
    let machine = MACHINES[usize::from(first) % MACHINES.len()];
    let scenario = sched_scenario::replay::what_if_scenario(&derived, &metrics, machine, 1, "fuzz");
    let value = serde_json::to_value(&scenario).expect("a scenario serialises");
    common::load_and_run(&value);
});
