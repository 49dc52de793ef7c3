//! Arbitrary text through the scenario loader the CLI and the browser use, then a
//! simulator of what loads, run for a bounded number of events.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The CLI's and the browser's first step: JSON syntax.
    let Ok(value) = sched_scenario::parse_json(text) else {
        return;
    };
    common::load_and_run(&value);
});
