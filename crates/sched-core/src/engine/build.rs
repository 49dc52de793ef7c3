//! Building a simulator from a scenario: tasks, cgroups, channels, CPU state and the first events.

use super::*;
use crate::policy::struct_layout::{LayoutModel, StructLayoutSpec};

impl Simulator {
    /// Builds a simulator whose trace keeps records within `trace_keep_bytes` of
    /// memory (`Trace::new`); 0 keeps none, only the count and the hash.
    pub fn with_trace_limit(
        scenario: &Scenario,
        trace_keep_bytes: usize,
    ) -> Result<Simulator, Vec<ScenarioError>> {
        let errors = scenario.check();
        if !errors.is_empty() {
            return Err(errors);
        }
        let shape = scenario
            .topology
            .resolve()
            .expect("checked by Scenario::check");
        let topology = Topology::build(shape);
        let n_cpus = topology.n_cpus();
        let domains = Domains::build(&topology);
        let knobs = scenario.knobs.resolve(n_cpus);
        let kernel = scenario
            .kernel_version()
            .expect("checked by Scenario::check");
        let features = scenario.features.resolve(kernel);

        let mut tasks = Vec::new();
        let mut fork_parent = Vec::new();
        let mut spawn_pools: Vec<VecDeque<TaskId>> = Vec::new();
        let new_group =
            |name: String, parent: Option<u32>, quota_ns: Option<u64>, period_ns| TaskGroup {
                name,
                parent,
                depth: 1,
                quota_ns,
                period_ns,
                cpu_weight: 100,
                shares: 1024,
                pool_ns: quota_ns.unwrap_or(0),
                throttled_cpus: Vec::new(),
                tasks: Vec::new(),
                subtree: (0, 0),
                stat: Default::default(),
                timer_cpu: None,
            };
        // The explicit hierarchy first; a workload listed in a cgroup runs there.
        let (explicit, workload_group) =
            crate::bandwidth::explicit_groups(&scenario.cgroups, scenario.workloads.len());
        let mut groups: Vec<TaskGroup> = explicit
            .into_iter()
            .map(|(name, parent, cpu_max, cpu_weight)| {
                let mut group = match cpu_max {
                    Some(max) => new_group(
                        name,
                        parent,
                        Some(max.quota_us * 1_000),
                        max.period_us * 1_000,
                    ),
                    None => new_group(name, parent, None, 100_000_000),
                };
                group.cpu_weight = cpu_weight.unwrap_or(100);
                group.shares = crate::group_sched::shares_from_cpu_weight(group.cpu_weight);
                group
            })
            .collect();
        let mut programs = Vec::new();
        let mut channels = Vec::new();
        let mut dists = crate::behaviour::DistTable::default();
        let mut workloads = Vec::new();
        // The scenario's workloads, then the machine's background kernel threads.
        let background = scenario.background.workload(n_cpus);
        let all_workloads = scenario
            .workloads
            .iter()
            .map(|workload| (workload, false))
            .chain(background.iter().map(|workload| (workload, true)));
        for (group, (workload, is_background)) in all_workloads.enumerate() {
            let expansion = workload.expand();
            let program_base = programs.len();
            let channel_base = channels.len() as u32;
            let pool_base = spawn_pools.len() as u32;
            spawn_pools.extend((0..expansion.pools).map(|_| VecDeque::new()));
            for program in expansion.programs {
                programs.push(offset_channels(
                    program,
                    channel_base,
                    pool_base,
                    &mut dists,
                ));
            }
            channels.extend((0..expansion.channels.next).map(|idx| {
                Channel {
                    tokens: expansion
                        .channels
                        .initial_tokens
                        .get(&ChannelId(idx))
                        .copied()
                        .unwrap_or(0),
                    ..Channel::default()
                }
            }));
            let first_task = tasks.len();
            let group_base = groups.len() as u32;
            let home = workload_group.get(group).copied().flatten();
            let home_path = home.map_or(String::new(), |idx| groups[idx as usize].name.clone());
            for plan in &expansion.groups {
                let period_ns = plan.period_us * 1_000;
                let quota_ns = plan.quota_machine_fraction.map(|fraction| {
                    ((fraction * n_cpus as f64 * period_ns as f64) as u64).max(1_000)
                });
                groups.push(new_group(
                    format!("{home_path}{}", plan.name),
                    plan.parent
                        .map(|parent| group_base + parent as u32)
                        .or(home),
                    quota_ns,
                    period_ns,
                ));
            }
            for plan in expansion.tasks {
                let leader_idx = first_task + plan.leader;
                fork_parent.push((leader_idx != tasks.len()).then_some(TaskId(leader_idx as u32)));
                let pid = Pid(FIRST_PID + tasks.len() as u32);
                let tgid = Pid(FIRST_PID + (first_task + plan.leader) as u32);
                let affinity = match &plan.cpus {
                    Some(list) => CpuSet::from_cpus(
                        n_cpus,
                        parse_cpu_list(list)
                            .expect("checked by Scenario::check")
                            .into_iter()
                            .map(CpuId),
                    ),
                    None => CpuSet::full(n_cpus),
                };
                tasks.push(Task {
                    pid,
                    tgid,
                    comm: plan.comm,
                    nice: plan.nice,
                    weight: nice_to_weight(plan.nice),
                    affinity,
                    group: group as u32,
                    program: program_base + plan.program,
                    // A pool's task is forked by a program, not at a time.
                    start_at: match plan.pool {
                        Some(_) => SimTime::MAX,
                        None => SimTime::from_us(plan.start_us),
                    },
                    record_latency: plan.record_latency,
                    state: TaskState::Unborn,
                    cpu: CpuId(0),
                    vruntime: 0,
                    sum_exec_runtime: 0,
                    prev_sum_exec_runtime: 0,
                    last_ran: SimTime::ZERO,
                    exec_start: None,
                    charged_until: SimTime::ZERO,
                    woken_at: None,
                    pc: 0,
                    loops: Vec::new(),
                    word: crate::task::WaitWord::Clear,
                    wake_walk: None,
                    remaining_work: None,
                    spin_until: None,
                    nr_switches: 0,
                    nr_migrations: 0,
                    recent_used_cpu: None,
                    wakee_flips: 0,
                    last_wakee: None,
                    wakee_flips_decayed_at: SimTime::ZERO,
                    pelt: Pelt::default(),
                    warm_cpu: None,
                    refill_debt_ns: 0,
                    message_from: None,
                    footprint_kib: plan.footprint_kib,
                    jitter: plan.jitter,
                    uclamp_max: plan.uclamp_max,
                    forked_at: None,
                    run_memory_bound: false,
                    cgroup: plan.cgroup.map(|group| group_base + group as u32).or(home),
                    load: Pelt::default(),
                    load_rq: None,
                });
                if let Some(group) = plan.cgroup.map(|group| group_base + group as u32).or(home) {
                    groups[group as usize]
                        .tasks
                        .push(TaskId(tasks.len() as u32 - 1));
                }
                if let Some(pool) = plan.pool {
                    spawn_pools[(pool_base + pool) as usize]
                        .push_back(TaskId(tasks.len() as u32 - 1));
                }
            }
            let labels = expansion.channels.labels.clone();
            workloads.push(WorkloadInfo {
                label: if is_background {
                    "background: one kworker per CPU".into()
                } else {
                    workload.label()
                },
                background: is_background,
                throughput: expansion.throughput,
                best_phase_ns: vec![None; labels.len()],
                phase_labels: labels,
                alive: (tasks.len() - first_task) as u32,
                finished_at: None,
            });
        }

        let nominal_mhz = crate::topology::nominal_mhz(&topology.shape.name);
        let costs = scenario.costs.resolve(
            nominal_mhz,
            crate::topology::memory_figures(&topology.shape.name),
            crate::power::power_figures(&topology.shape.name, nominal_mhz)
                .shallow
                .exit_latency_ns,
        );
        let n_llcs = topology.llc_cpus.len();
        let llc_idle_initial: Vec<u32> = topology
            .llc_cpus
            .iter()
            .map(|cpus| cpus.len() as u32)
            .collect();
        let cpu_states: Vec<CpuState> = (0..n_cpus)
            .map(|cpu_idx| {
                let levels = domains.per_cpu[cpu_idx].len();
                CpuState {
                    avg_idle_ns: 2 * knobs.sched_migration_cost_ns,
                    speed_permille: costs.frequency_permille,
                    last_balance: vec![SimTime::ZERO; levels],
                    balance_interval_ms: domains.min_intervals(cpu_idx),
                    balance_failed: vec![0; levels],
                    max_newidle_lb_cost: vec![0; levels],
                    counted_idle: true,
                    ..CpuState::default()
                }
            })
            .collect();
        let group_preorder = crate::bandwidth::preorder(&mut groups);
        let group_rqs = crate::group_table::PairTable::new(
            n_cpus,
            groups.len(),
            crate::bandwidth::GroupRq::default(),
        );
        let group_sched = (!groups.is_empty())
            .then(|| Box::new(crate::group_sched::GroupSched::new(n_cpus, groups.len())));
        let layout_model =
            if groups.is_empty() && scenario.policy.struct_layout == StructLayoutSpec::Unset {
                None
            } else {
                let model = LayoutModel::new(
                    &scenario.policy.struct_layout,
                    n_cpus,
                    tasks.len(),
                    groups.len(),
                )
                .expect("checked by Scenario::check");
                Some(Box::new(model))
            };
        let mut queue = EventQueue::default();
        for (idx, group) in groups.iter().enumerate() {
            if group.quota_ns.is_some() {
                queue.push(
                    SimTime(group.period_ns),
                    Event::BandwidthRefresh(idx as u32),
                );
            }
        }
        // The machine's kthreads exist before the run starts: each begins asleep on
        // its CPU, its first timer due after an exponential residual of its interval
        // (the phase of a machine that has been up for a while), drawn from a stream
        // of its own so the workloads' draws do not depend on the machine's size.
        let mut phase_rng = SimRng::new(scenario.seed ^ 0x6b77_6f72_6b65_7273);
        let first_timer = crate::behaviour::Dist::Exponential {
            mean_us: scenario.background.kthread_interval_us,
        };
        for (idx, task) in tasks.iter_mut().enumerate() {
            if workloads[task.group as usize].background {
                task.state = TaskState::Sleeping;
                task.cpu = task.affinity.first().unwrap_or(CpuId(0));
                let at = SimTime(first_timer.sample_ns(&mut phase_rng));
                queue.push(at, Event::TimerWake(TaskId(idx as u32)));
            } else if task.start_at != SimTime::MAX {
                queue.push(task.start_at, Event::Fork(TaskId(idx as u32)));
            }
        }
        // CPUs offline from time 0 (a replayed log's CPUs that the log never shows)
        // are taken out once the simulator is built, before anything runs: one
        // rebuild of the domains, not one per CPU. Later hotplug events are queued.
        let hotplug = scenario.hotplug_in_order();
        let from_start = hotplug
            .iter()
            .take_while(|(_, event)| event.at_ms == 0.0 && !event.online)
            .count();
        let offline_at_start: Vec<CpuId> = hotplug[..from_start]
            .iter()
            .map(|(_, event)| CpuId(event.cpu))
            .collect();
        for (_, event) in &hotplug[from_start..] {
            queue.push(
                SimTime((event.at_ms * 1e6) as u64),
                Event::Hotplug {
                    cpu: CpuId(event.cpu),
                    online: event.online,
                },
            );
        }
        let end = SimTime::from_ms(scenario.duration_ms);
        queue.push(end, Event::End);
        let n_workloads = workloads.len();
        let power = crate::power::PowerState::new(
            scenario.power.enabled,
            scenario.power.resolve(
                crate::topology::nominal_mhz(&topology.shape.name),
                &topology.shape.name,
            ),
            &topology,
        );
        let shared_runq = crate::policy::shared_runq::SharedRunq::new(
            scenario.policy.shared_runq,
            &topology,
            tasks.len(),
        );
        let idle_cores = accounting::IdleCores::new(&topology);
        let llc_idle_scan = (topology.llc_cpus.iter())
            .map(|cpus| crate::baseline::sis::IdleScanHint::idle(cpus.len() as u32))
            .collect();
        let n_tasks = tasks.len();
        let mut sim = Simulator {
            title: scenario.title.clone(),
            seed: scenario.seed,
            topology,
            domains,
            knobs,
            kernel,
            features,
            costs,
            policy: scenario.policy.resolve(),
            tasks,
            workloads,
            programs,
            balance_groups: Vec::new(),
            retime_buffer: Vec::new(),
            waiters_scratch: Vec::new(),
            walk_pool: Vec::new(),
            dist_fixed_ns: dists
                .dists
                .iter()
                .map(|dist| dist.fixed_ns().unwrap_or(u64::MAX))
                .collect(),
            dists: dists.dists,
            channels,
            rqs: vec![CfsRq::default(); n_cpus],
            cpus: cpu_states,
            queue,
            now: SimTime::ZERO,
            end,
            finished: false,
            rng: SimRng::new(scenario.seed),
            trace: Trace::new(trace_keep_bytes),
            metrics: Metrics::new(n_cpus, n_workloads),
            resched_queue: VecDeque::new(),
            events: 0,
            last_nohz_balance: SimTime::ZERO,
            fork_parent,
            spawn_pools,
            llc_avg_scan_cost: vec![0; n_llcs],
            llc_idle_scan,
            overhead_pending: Vec::new(),
            online: CpuSet::full(n_cpus),
            parked: Vec::new(),
            offline_ns: 0,
            offline_since: vec![SimTime::ZERO; n_cpus],
            sg_imbalance: Default::default(),
            max_balance_interval_ticks: 0,
            power,
            rq_locks: vec![SpinLock::default(); n_cpus],
            rq_lock_stat: LockStat::new("&rq->__lock"),
            shared_runq,
            cfs_tasks: crate::task_list::TaskLists::new(n_cpus, n_tasks),
            gap: accounting::GapCounts::new(llc_idle_initial),
            gap_integrated_to: SimTime::ZERO,
            memory_bound_cpus: CpuSet::empty(n_cpus),
            groups,
            group_rqs,
            group_sched,
            group_preorder,
            leaf_cfs_rqs: vec![Vec::new(); n_cpus],
            pending_throttle: Vec::new(),
            layout_model,
            bandwidth: BandwidthStats::default(),
            recorder: None,
            wait_log: None,
            group_sums: Default::default(),
            idle_cores,
            overloaded: CpuSet::empty(n_cpus),
        };
        sim.rebuild_group_sums();
        sim.update_max_interval();
        if !offline_at_start.is_empty() {
            sim.start_offline(&offline_at_start);
        }
        Ok(sim)
    }
}

/// A workload's program in the simulator's numbering: its channels and spawn pools
/// shifted past the earlier workloads', its distributions found in (or added to)
/// the simulator's one table.
fn offset_channels(
    program: Program,
    base: u32,
    pool_base: u32,
    dists: &mut crate::behaviour::DistTable,
) -> Program {
    let shift = |channel: ChannelId| ChannelId(channel.0 + base);
    let mut dist = |id: DistId| dists.intern(program.dists[id.0 as usize]);
    Program {
        instrs: program
            .instrs
            .iter()
            .map(|&instr| match instr {
                Instr::Run(id, memory_bound) => Instr::Run(dist(id), memory_bound),
                Instr::Spin(id) => Instr::Spin(dist(id)),
                Instr::Sleep(id) => Instr::Sleep(dist(id)),
                Instr::Wait(channel) => Instr::Wait(shift(channel)),
                Instr::Post(channel, count, sync) => Instr::Post(shift(channel), count, sync),
                Instr::Barrier(channel, parties, label) => {
                    Instr::Barrier(shift(channel), parties, label)
                }
                Instr::WakeAll(channel) => Instr::WakeAll(shift(channel)),
                Instr::Enlist(channel) => Instr::Enlist(shift(channel)),
                Instr::WakeEach(channel, each) => Instr::WakeEach(shift(channel), dist(each)),
                Instr::Reset(channel) => Instr::Reset(shift(channel)),
                Instr::Spawn(pool) => Instr::Spawn(pool + pool_base),
                other => other,
            })
            .collect(),
        masks: program.masks,
        // The instructions now name the simulator's table.
        dists: Vec::new(),
    }
}
