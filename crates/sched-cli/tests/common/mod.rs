//! Running the `schedlab` binary from the tests, as a user would.
#![allow(dead_code)]

use std::process::Command;

/// Runs `schedlab ARGS` from the repository root; returns success, stdout, stderr.
pub fn schedlab(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("schedlab runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A temporary file path no other test of this run uses: the tests of a file
/// run in parallel threads of one process, so the pid alone is not enough.
pub fn unique_temp(label: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let call = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "schedlab-test-{}-{call}-{label}",
        std::process::id()
    ))
}
