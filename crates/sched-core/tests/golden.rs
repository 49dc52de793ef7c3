//! Golden schedules: the compact trace of small runs, checked against files in
//! `tests/golden/`. After an intended model change, regenerate them with
//! `UPDATE_EXPECT=1 cargo test -p sched-core --test golden` and review the diff.

mod common;

use common::{preset, run_sim, scenario, schbench};
use std::path::PathBuf;

fn check_golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with UPDATE_EXPECT=1", path.display()));
    if expected != actual {
        let first_difference = expected
            .lines()
            .zip(actual.lines())
            .position(|(left, right)| left != right)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from the golden file at line {}:\n  expected: {}\n  actual:   {}\n(rerun with UPDATE_EXPECT=1 if the change is intended)",
            first_difference + 1,
            expected.lines().nth(first_difference).unwrap_or("<end>"),
            actual.lines().nth(first_difference).unwrap_or("<end>")
        );
    }
}

#[test]
fn schbench_on_the_teaching_machine() {
    let scenario = scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        12,
        42,
    );
    let sim = run_sim(&scenario);
    check_golden("schbench-teaching-small.txt", &sim.trace.compact(&sim));
}
