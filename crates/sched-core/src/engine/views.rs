//! Read-only views for the front ends: utilisation, per-CPU frames, throughput, the summary, invariants.

use super::*;
use crate::metrics::{IdleWhileRunnable, RunSummary, Throughput, WorkloadThroughput};
use crate::task::{TaskId, TaskState, WaitWord};
use crate::topology::CpuId;
use crate::workload::ThroughputKind;

impl Simulator {
    /// `/proc/lock_stat`'s rows so far: `&rq->__lock`, and `&shard->lock` when
    /// SHARED_RUNQ is on, each with its averages and call sites.
    pub fn lock_stat_rows(&self) -> Vec<crate::lock::LockStat> {
        let mut rows = vec![self.rq_lock_stat.report()];
        if self.shared_runq.enabled() {
            rows.push(self.shared_runq.lock_stat.report());
        }
        rows
    }

    /// Utilisation of a CPU (PELT, 0..1024) as of now.
    pub fn cpu_util(&self, cpu: CpuId) -> f64 {
        let busy = self.rqs[cpu.0 as usize].curr.is_some();
        self.cpus[cpu.0 as usize].pelt.peek(self.now, busy)
    }

    /// Utilisation of a core: the sum over its SMT threads (0..1024 per thread).
    pub fn core_util(&self, core: crate::topology::CoreId) -> f64 {
        self.topology.core_cpus[core.0 as usize]
            .iter()
            .map(|cpu| self.cpu_util(cpu))
            .sum()
    }

    /// A task's utilisation (PELT) as of now.
    pub fn task_util(&self, task_id: TaskId) -> f64 {
        let task = &self.tasks[task_id.0 as usize];
        task.pelt
            .peek(self.now, matches!(task.state, TaskState::Running(_)))
    }

    /// Per CPU: the pid running there (0 when idle) and the number of runnable tasks.
    pub fn cpu_frame(&self, running_pid: &mut [u32], nr_running: &mut [u32]) {
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            running_pid[cpu_idx] = rq
                .curr
                .filter(|task| {
                    self.tasks[task.0 as usize].state == TaskState::Running(CpuId(cpu_idx as u32))
                })
                .map_or(0, |task| self.pid_of(task));
            nr_running[cpu_idx] = rq.nr_running;
        }
    }

    /// The tasks queued on `cpu`'s runqueue, the next to run first (vruntime order),
    /// at most `max` of them.
    pub fn cpu_queue(&self, cpu: usize, max: usize) -> impl Iterator<Item = u32> + '_ {
        self.rqs[cpu]
            .queued
            .iter()
            .take(max)
            .map(|&(_, task)| self.pid_of(task))
    }

    /// Throughput of each workload, in its benchmark's own unit(s).
    pub fn throughputs(&self) -> Vec<(String, Vec<Throughput>)> {
        let elapsed_s = self.now.as_ns() as f64 / 1e9;
        let rate = |completed: u64| {
            if elapsed_s > 0.0 {
                completed as f64 / elapsed_s
            } else {
                0.0
            }
        };
        self.workloads
            .iter()
            .zip(&self.metrics.completed)
            .filter(|(workload, _)| !workload.background)
            .map(|(workload, completed)| {
                let values = match &workload.throughput {
                    ThroughputKind::Rate { unit } => vec![Throughput {
                        unit: unit.clone(),
                        value: rate(*completed),
                    }],
                    ThroughputKind::CompletionTime { fallback_unit } => {
                        match workload.finished_at {
                            Some(at) => vec![Throughput {
                                unit: "s".into(),
                                value: at.as_ns() as f64 / 1e9,
                            }],
                            None => vec![Throughput {
                                unit: fallback_unit.clone(),
                                value: rate(*completed),
                            }],
                        }
                    }
                    ThroughputKind::StreamPhases { bytes_per_phase } => bytes_per_phase
                        .iter()
                        .map(|(label, bytes)| {
                            let best = workload
                                .phase_labels
                                .iter()
                                .position(|known| known == label)
                                .and_then(|idx| workload.best_phase_ns[idx]);
                            Throughput {
                                unit: format!("MB/s {label}"),
                                value: best
                                    .map_or(0.0, |ns| *bytes as f64 * 1000.0 / ns.max(1) as f64),
                            }
                        })
                        .collect(),
                };
                (workload.label.clone(), values)
            })
            .collect()
    }

    pub fn summary(&self, scenario_name: &str) -> RunSummary {
        let by_workload = self.throughputs();
        let throughput = by_workload
            .first()
            .and_then(|(_, values)| values.first().cloned())
            .unwrap_or(Throughput {
                unit: "ops/s".into(),
                value: 0.0,
            });
        let busy: u64 = self.busy_ns().iter().sum();
        let power = self.power.enabled.then(|| {
            let mut power = self.power.clone();
            for socket in 0..power.socket_mhz.len() {
                power.account(socket, self.now);
            }
            power.summary(self.now.as_ns())
        });
        // Of the online CPUs' time (a CPU offline is not idle capacity).
        let capacity = (self.now.as_ns() * self.topology.n_cpus() as u64)
            .saturating_sub(self.offline_time_ns()) as f64;
        RunSummary {
            scenario: scenario_name.to_string(),
            seed: self.seed,
            kernel: self.kernel.to_string(),
            features: self.features,
            sim_time_ns: self.now.as_ns(),
            events: self.events,
            trace_events: self.trace.total(),
            trace_hash: self.trace.hash_hex(),
            wakeup_latency_us: self.metrics.latency_percentiles(),
            throughput,
            throughput_by_workload: by_workload
                .into_iter()
                .map(|(workload, values)| WorkloadThroughput { workload, values })
                .collect(),
            utilization: if capacity > 0.0 {
                busy as f64 / capacity
            } else {
                0.0
            },
            idle_while_runnable_ns: {
                let (llc, machine) = self.idle_while_runnable_now();
                IdleWhileRunnable { llc, machine }
            },
            context_switches: self.metrics.context_switches,
            wakeups: self.metrics.wakeups,
            migrations: self.metrics.migrations.clone(),
            locks: self.lock_stat_rows(),
            avg_freq_mhz: power
                .as_ref()
                .map_or(self.costs.frequency_mhz as f64, |power| power.avg_freq_mhz),
            power,
            cache_refill_ns: self.metrics.cache_refill_ns,
            sched_overhead_ns: self.metrics.sched_overhead_ns,
            bandwidth: self.bandwidth_summary(),
            cache_misses: self.layout_model.as_ref().map(|model| model.summary()),
        }
    }

    /// Checks the model's bookkeeping: every task is in exactly one place, and the
    /// runqueues' counts and weights match their contents. Used by property tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = vec![0u32; self.tasks.len()];
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            let cpu = CpuId(cpu_idx as u32);
            let mut count = 0u32;
            let mut weight = 0u64;
            for (vruntime, task_id) in &rq.queued {
                let task = &self.tasks[task_id.0 as usize];
                if task.state != TaskState::Queued(cpu) {
                    return Err(format!(
                        "pid {} in CPU {cpu_idx}'s tree but {:?}",
                        task.pid.0, task.state
                    ));
                }
                if task.vruntime != *vruntime {
                    return Err(format!("pid {} keyed with a stale vruntime", task.pid.0));
                }
                seen[task_id.0 as usize] += 1;
                count += 1;
                weight += task.weight as u64;
            }
            if let Some(curr) = rq.curr {
                let task = &self.tasks[curr.0 as usize];
                if task.state == TaskState::Running(cpu) {
                    seen[curr.0 as usize] += 1;
                    count += 1;
                    weight += task.weight as u64;
                }
            }
            if count != rq.nr_running || weight != rq.load_weight {
                return Err(format!(
                    "CPU {cpu_idx}: nr_running {} / load {} but holds {count} tasks / {weight}",
                    rq.nr_running, rq.load_weight
                ));
            }
            // cfs_tasks holds the same tasks: the queued ones and the running one.
            let listed = self.cfs_tasks.iter(cpu.0).count() as u32;
            let stray = self.cfs_tasks.iter(cpu.0).find(|task| {
                !matches!(self.tasks[task.0 as usize].state,
                    TaskState::Queued(on) | TaskState::Running(on) if on == cpu)
            });
            if listed != rq.nr_running || stray.is_some() {
                return Err(format!(
                    "CPU {cpu_idx}: cfs_tasks lists {listed} tasks{} for nr_running {}",
                    stray.map_or(String::new(), |task| format!(
                        ", pid {} not runnable here",
                        self.pid_of(task)
                    )),
                    rq.nr_running
                ));
            }
        }
        for (idx, task) in self.tasks.iter().enumerate() {
            let expected = u32::from(task.is_runnable());
            if seen[idx] != expected {
                return Err(format!(
                    "pid {} ({:?}) found {} times on runqueues",
                    task.pid.0, task.state, seen[idx]
                ));
            }
        }
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            let cpu = CpuId(cpu_idx as u32);
            let running_here = rq
                .curr
                .is_some_and(|task| self.tasks[task.0 as usize].state == TaskState::Running(cpu));
            if !self.online.contains(cpu) && (!rq.queued.is_empty() || running_here) {
                return Err(format!("offline CPU {cpu_idx} still holds tasks"));
            }
            if self.overloaded.contains(cpu) != (rq.nr_running >= 2) {
                return Err(format!(
                    "CPU {cpu_idx}: overload mask says {} with nr_running {}",
                    self.overloaded.contains(cpu),
                    rq.nr_running
                ));
            }
        }
        self.check_group_sched()?;
        for llc in 0..self.topology.llc_cpus.len() as u32 {
            if self.llc_has_idle_core(llc) != self.llc_has_idle_core_by_scan(llc) {
                return Err(format!(
                    "LLC {llc}: the idle-core count disagrees with its cores"
                ));
            }
        }
        self.group_sums_problem()?;
        // SHARED_RUNQ: a task in a shard is queued on a CPU of that shard's LLC, and
        // in `all` mode every queued task allowed on several CPUs is in its CPU's
        // shard (pushed on __enqueue_entity, removed on __dequeue_entity).
        if self.shared_runq.enabled() {
            for shard in 0..self.shared_runq.n_shards() as u32 {
                let (_, llc) = self.shared_runq.shard_in_llc(shard);
                for task_id in self.shared_runq.shard_tasks(shard) {
                    let task = &self.tasks[task_id.0 as usize];
                    let TaskState::Queued(cpu) = task.state else {
                        return Err(format!(
                            "pid {} is in a shard but {:?}",
                            task.pid.0, task.state
                        ));
                    };
                    if self.topology.llc_of(cpu).0 != llc {
                        return Err(format!(
                            "pid {} is in a shard of LLC {llc} but queued on CPU {}",
                            task.pid.0, cpu.0
                        ));
                    }
                }
            }
            if self.shared_runq.spec.mode == crate::policy::shared_runq::SharedRunqMode::All {
                for (cpu_idx, rq) in self.rqs.iter().enumerate() {
                    for (_, task_id) in &rq.queued {
                        let task = &self.tasks[task_id.0 as usize];
                        let expected = self.shared_runq.shard_of_cpu(CpuId(cpu_idx as u32));
                        if task.affinity.len() > 1
                            && self.shared_runq.shard_of_task(*task_id) != Some(expected)
                        {
                            return Err(format!(
                                "pid {} is queued on CPU {cpu_idx} but not in its shard",
                                task.pid.0
                            ));
                        }
                    }
                }
            }
        }
        for (idx, task) in self.tasks.iter().enumerate() {
            if let TaskState::Waking(cpu) = task.state {
                let listed = self.cpus[cpu.0 as usize]
                    .wake_list
                    .iter()
                    .filter(|(task_id, _)| task_id.0 as usize == idx)
                    .count();
                if listed != 1 {
                    return Err(format!(
                        "pid {} is waking onto CPU {} but on its wake list {listed} times",
                        task.pid.0, cpu.0
                    ));
                }
            }
        }
        for (cpu_idx, state) in self.cpus.iter().enumerate() {
            if !state.wake_list.is_empty() && !state.leaving_idle && !state.need_resched {
                return Err(format!(
                    "CPU {cpu_idx} has {} wakeups on its wake list and nothing will enqueue them",
                    state.wake_list.len()
                ));
            }
            for (task_id, _) in &state.wake_list {
                if self.tasks[task_id.0 as usize].state != TaskState::Waking(CpuId(cpu_idx as u32))
                {
                    return Err(format!(
                        "pid {} is on CPU {cpu_idx}'s wake list but {:?}",
                        self.tasks[task_id.0 as usize].pid.0, self.tasks[task_id.0 as usize].state
                    ));
                }
            }
        }
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            let state = &self.cpus[cpu_idx];
            if rq.curr.is_none()
                && !rq.queued.is_empty()
                && !state.leaving_idle
                && !state.need_resched
            {
                return Err(format!(
                    "CPU {cpu_idx} is idle with {} tasks queued and nothing will make it schedule",
                    rq.queued.len()
                ));
            }
        }
        // A channel's waiter is blocked, or enlisted and not yet in its `Await`;
        // an enlisted task is on exactly one list (a channel's or a wake walk's),
        // and a woken word on none.
        let mut listed = vec![0u32; self.tasks.len()];
        for channel in &self.channels {
            for waiter in &channel.waiters {
                let task = &self.tasks[waiter.0 as usize];
                if task.state != TaskState::Blocked && task.word != WaitWord::Listed {
                    return Err(format!(
                        "pid {} waits on a channel but is {:?} and not enlisted",
                        task.pid.0, task.state
                    ));
                }
                listed[waiter.0 as usize] += 1;
            }
        }
        // A walk in progress holds waiters taken off their channel, not yet woken.
        for walk in self.tasks.iter().filter_map(|task| task.wake_walk.as_ref()) {
            for waiter in &walk.pending {
                listed[waiter.0 as usize] += 1;
            }
        }
        for (task, on_lists) in self.tasks.iter().zip(&listed) {
            if task.word == WaitWord::Listed && *on_lists != 1 {
                return Err(format!(
                    "pid {} is enlisted but on {on_lists} channel lists",
                    task.pid.0
                ));
            }
            if matches!(task.word, WaitWord::Woken(_)) && *on_lists != 0 {
                return Err(format!(
                    "pid {} was taken off its list but is still on {on_lists}",
                    task.pid.0
                ));
            }
        }
        for pool in &self.spawn_pools {
            for unborn in pool {
                let task = &self.tasks[unborn.0 as usize];
                if task.state != TaskState::Unborn {
                    return Err(format!(
                        "pid {} waits in a spawn pool but is {:?}",
                        task.pid.0, task.state
                    ));
                }
            }
        }
        self.check_power_invariants()
    }

    /// With the power model on: a core is active exactly when one of its threads
    /// runs a task, each socket's state counts add up to its cores, its busy-CPU
    /// count matches, and its frequency is its turbo table's entry for its cores not
    /// in deep idle.
    fn check_power_invariants(&self) -> Result<(), String> {
        use crate::power::CoreIdle;
        let power = &self.power;
        if !power.enabled {
            return Ok(());
        }
        let n_sockets = power.socket_mhz.len();
        let (mut active, mut shallow, mut deep, mut busy) = (
            vec![0u32; n_sockets],
            vec![0u32; n_sockets],
            vec![0u32; n_sockets],
            vec![0u32; n_sockets],
        );
        for (core_idx, cpus) in self.topology.core_cpus.iter().enumerate() {
            let Some(first) = cpus.first() else { continue };
            let socket = self.topology.info(first).socket.0 as usize;
            let running = cpus
                .iter()
                .filter(|cpu| self.rqs[cpu.0 as usize].curr.is_some())
                .count() as u32;
            busy[socket] += running;
            let state = power.core_idle[core_idx];
            if (state == CoreIdle::Active) != (running > 0) {
                return Err(format!(
                    "core {core_idx} is {state:?} with {running} threads running"
                ));
            }
            match state {
                CoreIdle::Active => active[socket] += 1,
                CoreIdle::Shallow => shallow[socket] += 1,
                CoreIdle::Deep => deep[socket] += 1,
            }
        }
        for socket in 0..n_sockets {
            if (active[socket], shallow[socket], deep[socket])
                != (
                    power.socket_active[socket],
                    power.socket_shallow[socket],
                    power.socket_deep[socket],
                )
            {
                return Err(format!("socket {socket}: core state counts disagree"));
            }
            if busy[socket] != power.socket_busy_cpus[socket] {
                return Err(format!(
                    "socket {socket}: {} busy CPUs counted, {} running",
                    power.socket_busy_cpus[socket], busy[socket]
                ));
            }
            let cores = power.socket_cores[socket];
            let expected = power.figures.turbo_mhz(cores - deep[socket], cores);
            if power.socket_mhz[socket] != expected {
                return Err(format!(
                    "socket {socket} at {} MHz, its table says {expected}",
                    power.socket_mhz[socket]
                ));
            }
        }
        Ok(())
    }
}
