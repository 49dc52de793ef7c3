//! The kernel's own scheduling paths, by function, each with its version variants
//! side by side, so that 4.6 and 6.0 `select_idle_sibling` can be compared on one
//! screen. Which variant runs is decided by the scenario's `kernel` and `features`
//! ([`crate::kernel::Features`]); the policies of the patch series hook into these
//! paths from [`crate::policy`].
//!
//! - `wakeup`: `select_task_rq_fair` on a wakeup, `wake_wide`, `wake_affine`, and
//!   how a remote wakeup takes the target's runqueue lock (`ttwu_queue`).
//! - `sis`: `select_idle_sibling` and its scans.
//! - `fork`: `find_idlest_cpu` / `find_idlest_group` and their NUMA rules.
//! - `balance`: `newidle_balance`, `rebalance_domains`, `load_balance`, `task_hot`.
//! - `groups`: a scheduling group's statistics and `group_classify`.

pub mod balance;
pub mod fork;
pub mod groups;
pub mod sis;
pub mod wakeup;

#[cfg(test)]
mod tests;
