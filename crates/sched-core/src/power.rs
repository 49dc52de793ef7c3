//! The power and frequency model (TurboSched's machine, seed 003): per-core idle
//! states, and a per-socket turbo frequency set by how many cores are not in deep
//! idle.
//!
//! How the parts fit. A core is active while any of its threads runs a task. When
//! the last one goes idle the core enters the shallow idle state; if it stays idle
//! for the deep state's target residency it enters deep idle (a `CoreDeepIdle`
//! event). Simplification: this promotion timer stands for the cpuidle governor,
//! which picks the deep state when it predicts an idle period longer than that
//! residency; for the periodic sleeps of the seed's benchmark the two agree.
//! A socket runs at its turbo table's entry for the number of its cores not in deep
//! idle: a shallow-idle core may wake at any moment, so the firmware budgets it as
//! active (Intel's turbo ratio limits count cores in C0 and C1; POWER9's Workload
//! Optimized Frequency counts cores not in deep stop states). Run speed follows the
//! socket's frequency: work sized at the nominal clock takes `nominal / f` as long.
//! A wakeup onto a CPU of a deep-idle core waits the deep state's exit latency.
//!
//! Power, for the figures a run reports: an active core draws its static (leakage)
//! power plus a dynamic part that grows with the cube of the frequency (voltage
//! rises with frequency); a shallow-idle core draws its static power; a deep-idle
//! core almost nothing. The socket's budget is the most the turbo table ever asks
//! for. Every figure is per machine preset ([`power_figures`]), illustrative, and the
//! same for every scenario; `docs/policies/turbosched.md` says where each comes from.
//!
//! The model runs only when a scenario sets `power.enabled` (default off: a fixed
//! clock at `costs.frequency_mhz`, as with turbo disabled, the usual way to
//! benchmark a scheduler).

use crate::time::SimTime;
use crate::topology::{CpuId, Topology};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `power` as a scenario writes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerSpec {
    /// Model turbo frequencies and idle states (default false: a fixed clock).
    #[serde(default)]
    pub enabled: bool,
    /// The highest frequency, with one core active, in MHz (default: the preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100, max = 10000))]
    pub turbo_one_core_mhz: Option<u32>,
    /// The frequency with every core of a socket active, in MHz (default: the
    /// preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100, max = 10000))]
    pub turbo_all_cores_mhz: Option<u32>,
    /// How long a core must stay idle before it enters deep idle, in microseconds
    /// (default: the preset's deep state's target residency).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10000000))]
    pub deep_residency_us: Option<u64>,
}

impl PowerSpec {
    /// Problems the schema cannot state, with paths relative to `power`.
    pub fn check(&self, nominal_mhz: u32, preset: &str) -> Vec<(String, String)> {
        let figures = self.resolve(nominal_mhz, preset);
        let mut errors = Vec::new();
        if figures.turbo_all_cores_mhz > figures.turbo_one_core_mhz {
            errors.push((
                "turbo_all_cores_mhz".into(),
                format!(
                    "must not exceed turbo_one_core_mhz ({} MHz), got {}",
                    figures.turbo_one_core_mhz, figures.turbo_all_cores_mhz
                ),
            ));
        }
        errors
    }

    /// The preset's figures with this scenario's overrides.
    pub fn resolve(&self, nominal_mhz: u32, preset: &str) -> PowerFigures {
        let mut figures = power_figures(preset, nominal_mhz);
        if let Some(mhz) = self.turbo_one_core_mhz {
            figures.turbo_one_core_mhz = mhz;
        }
        if let Some(mhz) = self.turbo_all_cores_mhz {
            figures.turbo_all_cores_mhz = mhz;
        }
        if let Some(us) = self.deep_residency_us {
            figures.deep.target_residency_ns = us * 1_000;
        }
        figures
    }
}

/// An idle state's costs, as cpuidle describes one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct IdleStateFigures {
    pub name: &'static str,
    /// Time to leave it before the core runs again.
    pub exit_latency_ns: u64,
    /// How long an idle period must last for the state to be worth entering.
    pub target_residency_ns: u64,
}

impl IdleStateFigures {
    /// A state from its exit latency and target residency in microseconds.
    const fn new(name: &'static str, exit_latency_us: u64, target_residency_us: u64) -> Self {
        IdleStateFigures {
            name,
            exit_latency_ns: exit_latency_us * 1_000,
            target_residency_ns: target_residency_us * 1_000,
        }
    }
}

/// A machine's frequency and power figures (illustrative; see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PowerFigures {
    pub nominal_mhz: u32,
    pub turbo_one_core_mhz: u32,
    pub turbo_all_cores_mhz: u32,
    /// The frequency step (a P-state's granularity).
    pub step_mhz: u32,
    /// A core's power when active at the nominal frequency, in watts.
    pub core_active_w: f64,
    /// Its static (leakage) part, drawn in shallow idle too.
    pub core_static_w: f64,
    /// A core in deep idle (power-gated).
    pub core_deep_w: f64,
    pub shallow: IdleStateFigures,
    pub deep: IdleStateFigures,
}

impl PowerFigures {
    /// The turbo table: the frequency with `active` cores of `cores` not in deep
    /// idle, from the one-core to the all-core figure in equal steps, rounded down
    /// to the step (at least one core counts: a socket never runs with none).
    pub fn turbo_mhz(&self, active: u32, cores: u32) -> u32 {
        let (one, all) = (
            self.turbo_one_core_mhz as f64,
            self.turbo_all_cores_mhz as f64,
        );
        let active = active.clamp(1, cores.max(1));
        let fraction = if cores > 1 {
            (active - 1) as f64 / (cores - 1) as f64
        } else {
            0.0
        };
        let mhz = one - (one - all) * fraction;
        let step = self.step_mhz.max(1);
        (mhz as u32 / step) * step
    }

    /// An active core's power at `mhz`: static plus dynamic, the dynamic part
    /// growing with the cube of the frequency.
    pub fn active_w(&self, mhz: u32) -> f64 {
        let ratio = mhz as f64 / self.nominal_mhz.max(1) as f64;
        self.core_static_w + (self.core_active_w - self.core_static_w) * ratio * ratio * ratio
    }

    /// The socket's power budget: the most its turbo table asks for, with every
    /// core not counted in deep idle.
    pub fn budget_w(&self, cores: u32) -> f64 {
        (1..=cores.max(1))
            .map(|active| {
                active as f64 * self.active_w(self.turbo_mhz(active, cores))
                    + (cores - active) as f64 * self.core_deep_w
            })
            .fold(0.0, f64::max)
    }
}

/// Each preset's figures. Frequencies are the parts' published base, all-core and
/// single-core turbo clocks (or close to them); idle states are the platform's
/// cpuidle tables (`intel_idle`, `acpi_idle`, OPAL's POWER9 stop states); power is
/// a plausible split of each part's TDP over its cores (static about 30 %). All
/// illustrative: `docs/policies/turbosched.md` has the sources.
pub fn power_figures(preset: &str, nominal_mhz: u32) -> PowerFigures {
    // (one-core turbo, all-core turbo, step, core W at nominal, shallow, deep)
    let intel_c1e = IdleStateFigures::new("C1E", 10, 20);
    let intel_c6 = IdleStateFigures::new("C6", 133, 600);
    let amd_c1 = IdleStateFigures::new("C1", 1, 2);
    let amd_c2 = IdleStateFigures::new("C2 (CC6)", 100, 800);
    let (one, all, step, core_w, shallow, deep) = match preset {
        // OPAL's POWER9 table: stop2 (10 us exit, 100 us residency) is the deepest
        // state that keeps the core powered; stop4 (100 us, 10 ms) power-gates it.
        "power9-smt4" => (
            3800,
            3200,
            25,
            9.0,
            IdleStateFigures::new("stop2", 10, 100),
            IdleStateFigures::new("stop4", 100, 10_000),
        ),
        // Xeon E5-2630 v4 class (Broadwell-EP, 10 cores, 85 W): 2.2 / 2.4 / 3.1 GHz.
        "xeon-2s10c" => (3100, 2400, 100, 7.0, intel_c1e, intel_c6),
        // Xeon Gold 6140 class (Skylake-SP, 18 cores, 140 W).
        "skylake-18c" => (3700, 3000, 100, 6.5, intel_c1e, intel_c6),
        // Xeon Platinum 8358 class (Ice Lake-SP, 32 cores, 250 W).
        "icelake-2s32c" => (3400, 3000, 100, 6.5, intel_c1e, intel_c6),
        // Ryzen 9 7950X (16 cores, 170 W): 4.5 / about 5.1 / 5.7 GHz.
        "ryzen-7950x" => (5700, 5100, 25, 9.0, amd_c1, amd_c2),
        // EPYC 7763 class (Milan, 64 cores, 280 W): 2.45 / about 3.1 / 3.5 GHz.
        "milan-72" | "zen3-2s64c" => (3500, 3100, 25, 3.8, amd_c1, amd_c2),
        // EPYC 9754 class (Bergamo, 128 cores, 360 W): 2.25 / 3.1 GHz.
        "zen4-2s128c" => (3100, 3000, 25, 2.4, amd_c1, amd_c2),
        _ => (
            nominal_mhz + nominal_mhz / 2,
            nominal_mhz + nominal_mhz / 5,
            100,
            5.0,
            intel_c1e,
            intel_c6,
        ),
    };
    PowerFigures {
        nominal_mhz,
        turbo_one_core_mhz: one,
        turbo_all_cores_mhz: all,
        step_mhz: step,
        core_active_w: core_w,
        core_static_w: 0.3 * core_w,
        core_deep_w: 0.02 * core_w,
        shallow,
        deep,
    }
}

/// A core's idle state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CoreIdle {
    Active,
    Shallow,
    Deep,
}

/// The power model's state: per core and per socket, with the integrals behind the
/// reported averages.
#[derive(Clone, Debug)]
pub struct PowerState {
    pub enabled: bool,
    pub figures: PowerFigures,
    pub core_idle: Vec<CoreIdle>,
    /// Bumped when a core leaves idle, so a stale `CoreDeepIdle` is ignored.
    pub core_gen: Vec<u64>,
    pub socket_mhz: Vec<u32>,
    /// Per socket: cores in each state, busy CPUs, and its core count.
    pub socket_cores: Vec<u32>,
    pub socket_active: Vec<u32>,
    pub socket_shallow: Vec<u32>,
    pub socket_deep: Vec<u32>,
    pub socket_busy_cpus: Vec<u32>,
    /// Integrals since the start, per socket, up to `accounted_to`.
    pub accounted_to: Vec<SimTime>,
    /// MHz x busy-CPU-ns (the busy-time-weighted frequency, as turbostat's Bzy_MHz).
    pub mhz_busy_integral: Vec<f64>,
    pub busy_cpu_ns: Vec<f64>,
    /// Deep-idle cores x ns.
    pub deep_core_integral: Vec<f64>,
    /// Watts x ns.
    pub energy_integral: Vec<f64>,
    /// Frequency changes so far.
    pub changes: u64,
}

impl PowerState {
    /// Every core starts in deep idle (the machine has been idle), every socket at
    /// its one-core turbo frequency.
    pub fn new(enabled: bool, figures: PowerFigures, topology: &Topology) -> PowerState {
        let n_sockets = topology.shape.sockets as usize;
        let n_cores = topology.core_cpus.len();
        let mut socket_cores = vec![0u32; n_sockets];
        for core_cpus in &topology.core_cpus {
            if let Some(first) = core_cpus.first() {
                socket_cores[topology.info(first).socket.0 as usize] += 1;
            }
        }
        let socket_mhz = socket_cores
            .iter()
            .map(|cores| figures.turbo_mhz(1, *cores))
            .collect();
        PowerState {
            enabled,
            figures,
            core_idle: vec![CoreIdle::Deep; n_cores],
            core_gen: vec![0; n_cores],
            socket_mhz,
            socket_active: vec![0; n_sockets],
            socket_shallow: vec![0; n_sockets],
            socket_deep: socket_cores.clone(),
            socket_cores,
            socket_busy_cpus: vec![0; n_sockets],
            accounted_to: vec![SimTime::ZERO; n_sockets],
            mhz_busy_integral: vec![0.0; n_sockets],
            busy_cpu_ns: vec![0.0; n_sockets],
            deep_core_integral: vec![0.0; n_sockets],
            energy_integral: vec![0.0; n_sockets],
            changes: 0,
        }
    }

    /// The socket's power draw now, in watts.
    pub fn socket_power_w(&self, socket: usize) -> f64 {
        let figures = &self.figures;
        self.socket_active[socket] as f64 * figures.active_w(self.socket_mhz[socket])
            + self.socket_shallow[socket] as f64 * figures.core_static_w
            + self.socket_deep[socket] as f64 * figures.core_deep_w
    }

    /// Brings the socket's integrals up to `now` (call before any change).
    pub fn account(&mut self, socket: usize, now: SimTime) {
        let dt = (now
            .as_ns()
            .saturating_sub(self.accounted_to[socket].as_ns())) as f64;
        if dt > 0.0 {
            let busy = self.socket_busy_cpus[socket] as f64;
            self.mhz_busy_integral[socket] += self.socket_mhz[socket] as f64 * busy * dt;
            self.busy_cpu_ns[socket] += busy * dt;
            self.deep_core_integral[socket] += self.socket_deep[socket] as f64 * dt;
            self.energy_integral[socket] += self.socket_power_w(socket) * dt;
        }
        self.accounted_to[socket] = now;
    }

    /// The figures a run reports, over `elapsed_ns`.
    pub fn summary(&self, elapsed_ns: u64) -> PowerSummary {
        let elapsed = elapsed_ns.max(1) as f64;
        let avg_mhz = |socket: usize| {
            if self.busy_cpu_ns[socket] > 0.0 {
                self.mhz_busy_integral[socket] / self.busy_cpu_ns[socket]
            } else {
                self.socket_mhz[socket] as f64
            }
        };
        let sockets = 0..self.socket_mhz.len();
        let busy_total: f64 = self.busy_cpu_ns.iter().sum();
        let avg_freq_mhz = if busy_total > 0.0 {
            self.mhz_busy_integral.iter().sum::<f64>() / busy_total
        } else {
            avg_mhz(0)
        };
        PowerSummary {
            avg_freq_mhz,
            avg_freq_mhz_by_socket: sockets.clone().map(avg_mhz).collect(),
            avg_deep_idle_cores: self.deep_core_integral.iter().sum::<f64>() / elapsed,
            avg_deep_idle_cores_by_socket: sockets
                .clone()
                .map(|socket| self.deep_core_integral[socket] / elapsed)
                .collect(),
            avg_power_w_by_socket: sockets
                .clone()
                .map(|socket| self.energy_integral[socket] / elapsed)
                .collect(),
            budget_w_by_socket: sockets
                .map(|socket| self.figures.budget_w(self.socket_cores[socket]))
                .collect(),
            frequency_changes: self.changes,
        }
    }
}

/// What a run with the power model reports (`run --json`'s `power`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PowerSummary {
    /// Frequency averaged over busy CPU time (turbostat's Bzy_MHz), overall.
    pub avg_freq_mhz: f64,
    pub avg_freq_mhz_by_socket: Vec<f64>,
    /// Cores in deep idle, averaged over the run.
    pub avg_deep_idle_cores: f64,
    pub avg_deep_idle_cores_by_socket: Vec<f64>,
    pub avg_power_w_by_socket: Vec<f64>,
    pub budget_w_by_socket: Vec<f64>,
    pub frequency_changes: u64,
}

impl crate::engine::Simulator {
    /// The clock of `cpu`'s socket relative to nominal, in permille.
    pub(crate) fn frequency_permille(&self, cpu: CpuId) -> u64 {
        if !self.power.enabled {
            return self.costs.frequency_permille as u64;
        }
        let socket = self.topology.info(cpu).socket.0 as usize;
        self.power.socket_mhz[socket] as u64 * 1000 / self.power.figures.nominal_mhz.max(1) as u64
    }

    /// Extra wait before a CPU of a deep-idle core runs a task woken onto it.
    pub(crate) fn idle_exit_latency_ns(&self, cpu: CpuId) -> u64 {
        let base = self.costs.idle_exit_latency_ns;
        if !self.power.enabled {
            return base;
        }
        let core = self.topology.core_of(cpu).0 as usize;
        match self.power.core_idle[core] {
            CoreIdle::Deep => base.max(self.power.figures.deep.exit_latency_ns),
            _ => base,
        }
    }

    /// `cpu` started or stopped running a task: its core may change idle state, and
    /// with it its socket's frequency.
    pub(crate) fn power_cpu_busy_changed(&mut self, cpu: CpuId) {
        if !self.power.enabled {
            return;
        }
        let now = self.now();
        let socket = self.topology.info(cpu).socket.0 as usize;
        let core = self.topology.core_of(cpu);
        let core_idx = core.0 as usize;
        self.power.account(socket, now);
        let busy_cpus = self.topology.core_cpus[core_idx]
            .iter()
            .filter(|thread| self.rqs[thread.0 as usize].curr.is_some())
            .count() as u32;
        // Called only when this CPU's busy state flipped: the socket's count follows.
        if self.rqs[cpu.0 as usize].curr.is_some() {
            self.power.socket_busy_cpus[socket] += 1;
        } else {
            self.power.socket_busy_cpus[socket] =
                self.power.socket_busy_cpus[socket].saturating_sub(1);
        }
        let state = self.power.core_idle[core_idx];
        match (state, busy_cpus > 0) {
            (CoreIdle::Active, false) => {
                self.set_core_idle(socket, core_idx, CoreIdle::Shallow);
                self.power.core_gen[core_idx] += 1;
                let gen = self.power.core_gen[core_idx];
                let at = now + SimTime(self.power.figures.deep.target_residency_ns);
                self.queue_core_deep_idle(core_idx as u32, gen, at);
            }
            (CoreIdle::Shallow, true) => {
                self.power.core_gen[core_idx] += 1;
                self.set_core_idle(socket, core_idx, CoreIdle::Active);
            }
            (CoreIdle::Deep, true) => {
                self.power.core_gen[core_idx] += 1;
                self.set_core_idle(socket, core_idx, CoreIdle::Active);
                self.refresh_socket_frequency(socket);
            }
            _ => {}
        }
    }

    /// A core that stayed idle for the deep state's residency enters it.
    pub(crate) fn core_deep_idle(&mut self, core: u32, gen: u64) {
        let core_idx = core as usize;
        if self.power.core_gen[core_idx] != gen
            || self.power.core_idle[core_idx] != CoreIdle::Shallow
        {
            return;
        }
        let first = self.topology.core_cpus[core_idx]
            .first()
            .expect("a core has a CPU");
        let socket = self.topology.info(first).socket.0 as usize;
        self.power.account(socket, self.now());
        self.set_core_idle(socket, core_idx, CoreIdle::Deep);
        self.refresh_socket_frequency(socket);
    }

    fn set_core_idle(&mut self, socket: usize, core_idx: usize, to: CoreIdle) {
        let power = &mut self.power;
        let from = power.core_idle[core_idx];
        for (state, delta) in [(from, -1i64), (to, 1i64)] {
            let counter = match state {
                CoreIdle::Active => &mut power.socket_active[socket],
                CoreIdle::Shallow => &mut power.socket_shallow[socket],
                CoreIdle::Deep => &mut power.socket_deep[socket],
            };
            *counter = (*counter as i64 + delta) as u32;
        }
        power.core_idle[core_idx] = to;
    }

    /// Traces `cpu`'s new frequency as the kernel's `cpu_frequency` event does (kHz).
    fn emit_frequency(&mut self, cpu: CpuId, mhz: u32) {
        let socket = self.topology.info(cpu).socket.0;
        let not_deep =
            self.power.socket_cores[socket as usize] - self.power.socket_deep[socket as usize];
        self.emit(
            cpu,
            crate::trace::TraceKind::CpuFrequency,
            0,
            mhz * 1_000,
            0,
            crate::trace::Reason::FrequencyChange { not_deep, socket },
        );
    }

    /// Re-derives the socket's frequency from its cores not in deep idle; on a
    /// change, every CPU of the socket is re-timed and traced (`cpu_frequency`).
    fn refresh_socket_frequency(&mut self, socket: usize) {
        let not_deep = self.power.socket_cores[socket] - self.power.socket_deep[socket];
        let mhz = self
            .power
            .figures
            .turbo_mhz(not_deep, self.power.socket_cores[socket]);
        if mhz == self.power.socket_mhz[socket] {
            return;
        }
        self.power.account(socket, self.now());
        self.power.socket_mhz[socket] = mhz;
        self.power.changes += 1;
        let cpus: Vec<CpuId> = self.topology.socket_cpus[socket].iter().collect();
        for cpu in cpus {
            self.retime(cpu);
            self.emit_frequency(cpu, mhz);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turbo_table_falls_from_the_one_core_to_the_all_core_frequency() {
        let power9 = power_figures("power9-smt4", 3200);
        assert_eq!(power9.turbo_mhz(1, 22), 3800);
        assert_eq!(power9.turbo_mhz(0, 22), 3800, "at least one core counts");
        assert_eq!(power9.turbo_mhz(22, 22), 3200);
        let table: Vec<u32> = (1..=22).map(|k| power9.turbo_mhz(k, 22)).collect();
        assert!(table.windows(2).all(|pair| pair[0] >= pair[1]), "{table:?}");
        assert!(table.iter().all(|mhz| mhz % power9.step_mhz == 0));
    }

    #[test]
    fn the_budget_covers_every_row_of_the_table_and_deep_idle_frees_power() {
        let figures = power_figures("skylake-18c", 2500);
        let budget = figures.budget_w(18);
        for active in 1..=18 {
            let draw = active as f64 * figures.active_w(figures.turbo_mhz(active, 18))
                + (18 - active) as f64 * figures.core_deep_w;
            assert!(
                draw <= budget + 1e-9,
                "{active} cores: {draw} W > {budget} W"
            );
        }
        assert!(figures.core_deep_w < figures.core_static_w);
        assert!(figures.active_w(3000) > figures.active_w(2500));
    }

    #[test]
    fn overrides_replace_the_preset_figures_and_bad_ones_are_explained() {
        let spec = PowerSpec {
            enabled: true,
            turbo_one_core_mhz: Some(3000),
            turbo_all_cores_mhz: Some(3500),
            deep_residency_us: Some(500),
        };
        let figures = spec.resolve(3200, "power9-smt4");
        assert_eq!(figures.deep.target_residency_ns, 500_000);
        let errors = spec.check(3200, "power9-smt4");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].0, "turbo_all_cores_mhz");
        assert!(errors[0].1.contains("must not exceed"), "{}", errors[0].1);
    }
}
