//! Group scheduling: the pick through group entities, and `cpu.weight`.

mod common;

use common::*;

/// `count` busy loops of 1 ms, all pinned to CPU 0.
fn pinned_hogs(comm: &str, count: u32) -> serde_json::Value {
    serde_json::json!({"kind": "tasks", "unit": "loops", "tasks": [{"comm": comm, "count": count,
        "cpus": "0", "program": [{"op": "loop", "body": [
            {"op": "run", "duration": {"dist": "fixed", "us": 1000.0}}, {"op": "complete"}]}]}]})
}

/// Each workload's share of the loops done in a run.
fn shares_of_work(spec: &sched_core::Scenario) -> Vec<f64> {
    let loops: Vec<f64> = run(spec)
        .throughput_by_workload
        .iter()
        .map(|workload| workload.values[0].value)
        .collect();
    let total: f64 = loops.iter().sum();
    loops.iter().map(|done| done / total).collect()
}

/// Loops done by each workload of a 1 s run with two cgroups on one CPU.
fn share_of_cpu0(cgroups: serde_json::Value, hogs: [u32; 2]) -> [f64; 2] {
    let text = serde_json::json!({
        "title": "two groups on CPU 0", "seed": 1, "duration_ms": 1000, "kernel": "6.5",
        "topology": {"preset": "teaching-small"},
        "cgroups": cgroups,
        "workloads": [pinned_hogs("a", hogs[0]), pinned_hogs("b", hogs[1])]
    });
    let spec: sched_core::Scenario = serde_json::from_value(text).unwrap();
    assert!(spec.check().is_empty(), "{:?}", spec.check());
    let shares = shares_of_work(&spec);
    [shares[0], shares[1]]
}

/// CFS shares a CPU between groups first, then between the tasks of each group:
/// one task in /a and four in /b split the CPU in halves, not 1:4 as tasks alone
/// would.
#[test]
fn groups_share_a_cpu_before_their_tasks() {
    let cgroups = serde_json::json!([
        {"path": "/a", "workloads": [0]},
        {"path": "/b", "workloads": [1]}
    ]);
    let [a, b] = share_of_cpu0(cgroups, [1, 4]);
    assert!(
        (0.45..0.55).contains(&a),
        "/a has {a:.3} of the CPU, /b {b:.3}"
    );
}

/// `cpu.weight` 300 against 100 gives three quarters of the CPU.
#[test]
fn cpu_weight_sets_the_share() {
    let cgroups = serde_json::json!([
        {"path": "/a", "workloads": [0]},
        {"path": "/b", "cpu_weight": 300, "workloads": [1]}
    ]);
    let [a, b] = share_of_cpu0(cgroups, [1, 1]);
    assert!(
        (0.70..0.80).contains(&b),
        "/b has {b:.3} of the CPU, /a {a:.3}"
    );
}

/// Without cgroups every task is its own entity on the root: two tasks in the root
/// against one task in a group of weight 100 get a third each.
#[test]
fn a_group_is_one_entity_among_root_tasks() {
    let text = serde_json::json!({
        "title": "root and a group", "seed": 1, "duration_ms": 1000, "kernel": "6.5",
        "topology": {"preset": "teaching-small"},
        "cgroups": [{"path": "/a", "workloads": [0]}],
        "workloads": [pinned_hogs("a", 4), pinned_hogs("root", 2)]
    });
    let spec: sched_core::Scenario = serde_json::from_value(text).unwrap();
    let group = shares_of_work(&spec)[0];
    assert!(
        (0.28..0.39).contains(&group),
        "the group's four tasks have {group:.3} of the CPU against two root tasks"
    );
}

#[test]
fn a_bad_cpu_weight_is_explained() {
    let text = serde_json::json!({
        "title": "bad weight", "seed": 1, "duration_ms": 10,
        "topology": {"preset": "teaching-small"},
        "cgroups": [{"path": "/a", "cpu_weight": 0, "workloads": [0]}],
        "workloads": [pinned_hogs("a", 1)]
    });
    let spec: sched_core::Scenario = serde_json::from_value(text).unwrap();
    let errors: Vec<String> = spec
        .check()
        .into_iter()
        .map(|error| format!("{}: {}", error.path, error.message))
        .collect();
    assert!(
        errors.contains(&"cgroups.0.cpu_weight: must be between 1 and 10000, got 0".to_string()),
        "{errors:?}"
    );
}

/// The shipped `cgroup-weights` scenario, over seeds 1-5: /web (cpu.weight 300, 8
/// tasks) does about three quarters of the work against /batch (16 tasks), far
/// more than the third its tasks would get one by one, and about half with
/// cpu.weight 100.
#[test]
fn the_weighted_cgroup_scenario_gives_web_its_share() {
    let path = format!(
        "{}/../../scenarios/cgroup-weights.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let base: sched_core::Scenario =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let web_share = |weight: u32, seed: u64| {
        let mut spec = base.clone();
        spec.seed = seed;
        spec.cgroups[1].cpu_weight = Some(weight);
        shares_of_work(&spec)[1]
    };
    let mut heavy = Vec::new();
    let mut even = Vec::new();
    for seed in 1..=5 {
        let (w300, w100) = (web_share(300, seed), web_share(100, seed));
        assert!(
            w300 > w100 + 0.15,
            "seed {seed}: /web {w300:.3} at 300, {w100:.3} at 100"
        );
        heavy.push(w300);
        even.push(w100);
    }
    let (heavy, even) = (median(heavy), median(even));
    assert!(
        (0.65..0.78).contains(&heavy),
        "median /web share at weight 300: {heavy:.3}"
    );
    assert!(
        (0.40..0.52).contains(&even),
        "median /web share at weight 100: {even:.3}"
    );
}
