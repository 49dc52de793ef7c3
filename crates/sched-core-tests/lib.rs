//! Nothing: this package only holds sched-core's integration tests (see Cargo.toml).
