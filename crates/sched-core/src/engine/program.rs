//! The behaviour-program interpreter: what a task does while it is a CPU's current task.

use super::*;
use crate::behaviour::{ChannelId, Instr};
use crate::cpuset::CpuSet;
use crate::task::{LoopFrame, TaskId, TaskState, WaitWord, WakeWalk};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind};

impl Simulator {
    /// A waker takes `waiter` off a channel's list. A task that enlisted and has
    /// not yet blocked in its `Await` only has its word set (schbench's `fpost()`:
    /// the compare-and-swap from BLOCKED succeeds, and the `FUTEX_WAKE` finds
    /// nobody sleeping); any other is woken (`try_to_wake_up()`).
    fn wake_waiter(
        &mut self,
        waiter: TaskId,
        cpu: CpuId,
        waker: TaskId,
        sync: bool,
        stamp: SimTime,
    ) {
        let task = &mut self.tasks[waiter.0 as usize];
        if task.word == WaitWord::Listed && task.state != TaskState::Blocked {
            task.word = WaitWord::Woken(stamp);
            // Not asleep: it reads the message where it is.
            if let (Some(from), TaskState::Running(at)) = (task.message_from, task.state) {
                task.message_from = None;
                self.note_message_read(waiter.0 as usize, from, at);
            }
            return;
        }
        task.word = WaitWord::Clear;
        self.try_to_wake_up(waiter, cpu, Some(waker), sync);
    }

    /// `WakeAll`: every waiter of the channel, in arrival order. This and the walk's
    /// start and end are out of line: the interpreter's loop stays as small as it
    /// was for the programs that use none of them (hackbench's).
    #[inline(never)]
    fn wake_all(&mut self, channel: ChannelId, cpu: CpuId, task_id: TaskId) {
        let mut waiters = std::mem::take(&mut self.waiters_scratch);
        waiters.extend(self.channels[channel.0 as usize].waiters.drain(..));
        for &waiter in &waiters {
            self.wake_waiter(waiter, cpu, task_id, false, self.now);
        }
        super::give_back(&mut self.waiters_scratch, waiters);
    }

    /// A token with a writer is taken on `cpu`: the oldest one, since tokens the
    /// channel started with (which have none) are older than any posted.
    #[inline(never)]
    fn take_message(&mut self, channel: ChannelId, tidx: usize, cpu: CpuId) {
        if let Some(from) = self.channels[channel.0 as usize].sources.pop_front() {
            self.note_message_read(tidx, from, cpu);
        }
    }

    /// A `WakeEach` walk is over: its box, its list empty, serves the next walk.
    #[inline(never)]
    fn end_wake_walk(&mut self, tidx: usize) {
        if let Some(walk) = self.tasks[tidx].wake_walk.take() {
            self.walk_pool.push(walk);
        }
    }

    /// A `WakeEach` walk begins: the channel's waiters move into a walk from the
    /// pool. False when nobody waits.
    #[inline(never)]
    fn start_wake_walk(&mut self, channel: ChannelId, tidx: usize) -> bool {
        let waiters = &mut self.channels[channel.0 as usize].waiters;
        if waiters.is_empty() {
            return false;
        }
        let mut walk = self.walk_pool.pop().unwrap_or_else(|| {
            Box::new(WakeWalk {
                pending: Vec::new(),
                started: self.now,
            })
        });
        walk.pending.extend(waiters.drain(..));
        walk.started = self.now;
        self.tasks[tidx].wake_walk = Some(walk);
        true
    }

    /// Runs the task's program from its current position until it needs CPU time,
    /// sleeps, blocks or exits.
    pub(crate) fn advance_program(&mut self, task_id: TaskId, cpu: CpuId) {
        let tidx = task_id.0 as usize;
        let program_idx = self.tasks[tidx].program;
        // Guard against a loop that draws zero-length runs forever.
        let mut steps_without_time = 0u32;
        loop {
            let pc = self.tasks[tidx].pc;
            let Some(instr) = self.programs[program_idx].instrs.get(pc).copied() else {
                self.exit_task(task_id, cpu);
                return;
            };
            self.tasks[tidx].pc = pc + 1;
            steps_without_time += 1;
            match instr {
                Instr::Run(dist, memory_bound) => {
                    let work = self.draw_time(dist, steps_without_time);
                    if work == 0 {
                        continue;
                    }
                    // A memory-bound run sets this CPU's speed (and its neighbours');
                    // if that already timed the run, it is queued.
                    self.start_burst(task_id, cpu, work, memory_bound);
                    return;
                }
                Instr::Spin(dist) => {
                    // usec_spin(): the deadline is set now; the work figure only keeps
                    // the task in a burst (it is not what ends it).
                    let duration = self.draw_time(dist, steps_without_time);
                    if duration == 0 {
                        continue;
                    }
                    // A refill owed from the switch-in happens inside the spin: the
                    // clock, not the work, ends it.
                    self.tasks[tidx].refill_debt_ns = 0;
                    self.tasks[tidx].spin_until = Some(self.now + SimTime(duration));
                    self.start_burst(task_id, cpu, duration, false);
                    return;
                }
                Instr::Sleep(dist) => {
                    let duration = self.draw_ns(dist);
                    self.dequeue_curr(task_id, cpu, TaskState::Sleeping);
                    self.queue
                        .push(self.now + SimTime(duration), Event::TimerWake(task_id));
                    return;
                }
                Instr::Wait(channel) => {
                    let chan = &mut self.channels[channel.0 as usize];
                    if chan.tokens > 0 {
                        chan.tokens -= 1;
                        if chan.tokens < chan.sources.len() as u64 {
                            self.take_message(channel, tidx, cpu);
                        }
                        continue;
                    }
                    chan.waiters.push_back(task_id);
                    self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                    return;
                }
                Instr::Post(channel, count, sync) => {
                    for _ in 0..count {
                        match self.channels[channel.0 as usize].waiters.pop_front() {
                            Some(waiter) => {
                                if self.costs.message_lines > 0 {
                                    self.tasks[waiter.0 as usize].message_from = Some(cpu);
                                }
                                self.wake_waiter(waiter, cpu, task_id, sync, self.now)
                            }
                            None => {
                                let chan = &mut self.channels[channel.0 as usize];
                                chan.tokens += 1;
                                if self.costs.message_lines > 0 {
                                    chan.sources.push_back(cpu);
                                }
                            }
                        }
                    }
                }
                Instr::WakeAll(channel) => self.wake_all(channel, cpu, task_id),
                Instr::Enlist(channel) => {
                    // A token kept from a post that found nobody is taken at once, as
                    // `Wait` takes it: the word reads woken, and `Await` goes on.
                    let chan = &mut self.channels[channel.0 as usize];
                    if chan.tokens > 0 {
                        chan.tokens -= 1;
                        if chan.tokens < chan.sources.len() as u64 {
                            self.take_message(channel, tidx, cpu);
                        }
                        self.tasks[tidx].word = WaitWord::Woken(self.now);
                    } else {
                        chan.waiters.push_back(task_id);
                        self.tasks[tidx].word = WaitWord::Listed;
                    }
                }
                Instr::Await => match self.tasks[tidx].word {
                    WaitWord::Clear => {}
                    WaitWord::Woken(stamp) => {
                        // Already woken: no sleep, and the wakeup latency is the
                        // time since the waker's stamp (schbench reads its clock
                        // after `fwait()` returns, slept or not).
                        self.tasks[tidx].word = WaitWord::Clear;
                        if self.tasks[tidx].record_latency {
                            self.metrics.record_latency((self.now - stamp).as_ns());
                        }
                    }
                    WaitWord::Listed => {
                        // Still on the list: sleep until a waker comes.
                        self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                        return;
                    }
                },
                Instr::WakeEach(channel, each) => {
                    // schbench's xlist_wake_all(): splice the list once, take one
                    // timestamp, then one futex wake per waiter, newest first. The
                    // instruction runs again after each wake's syscall time until
                    // the walk is done.
                    if self.tasks[tidx].wake_walk.is_none() && !self.start_wake_walk(channel, tidx)
                    {
                        continue;
                    }
                    let walk = self.tasks[tidx].wake_walk.as_mut().expect("walk");
                    let started = walk.started;
                    let Some(waiter) = walk.pending.pop() else {
                        self.end_wake_walk(tidx);
                        continue;
                    };
                    self.tasks[tidx].pc = pc;
                    self.wake_waiter(waiter, cpu, task_id, false, started);
                    let woken = &mut self.tasks[waiter.0 as usize].woken_at;
                    if *woken == Some(self.now) {
                        *woken = Some(started);
                    }
                    let work = self.draw_ns(each);
                    if work == 0 {
                        continue;
                    }
                    self.start_burst(task_id, cpu, work, false);
                    return;
                }
                Instr::Reset(channel) => {
                    let chan = &mut self.channels[channel.0 as usize];
                    chan.tokens = 0;
                    chan.sources.clear();
                }
                Instr::Barrier(channel, parties, label) => {
                    let chan = &mut self.channels[channel.0 as usize];
                    if chan.tokens + 1 < parties as u64 {
                        chan.tokens += 1;
                        chan.waiters.push_back(task_id);
                        self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                        return;
                    }
                    // The last to arrive: the phase is over, everyone goes on.
                    let phase = (self.now - chan.last_release).as_ns();
                    chan.tokens = 0;
                    chan.last_release = self.now;
                    let waiters: Vec<TaskId> = chan.waiters.drain(..).collect();
                    let group = self.tasks[tidx].group as usize;
                    if let Some(best) = self.workloads[group].best_phase_ns.get_mut(label as usize)
                    {
                        *best = Some(best.map_or(phase, |known| known.min(phase)));
                    }
                    for waiter in waiters {
                        self.try_to_wake_up(waiter, cpu, Some(task_id), false);
                    }
                }
                Instr::SetAffinity(mask) => {
                    let n_cpus = self.topology.n_cpus();
                    let mask = CpuSet::from_cpus(
                        n_cpus,
                        self.programs[program_idx].masks[mask as usize]
                            .iter()
                            .filter(|cpu| (**cpu as usize) < n_cpus)
                            .map(|cpu| CpuId(*cpu)),
                    );
                    if mask.is_empty() {
                        continue; // the kernel refuses an empty mask (EINVAL)
                    }
                    let must_move = !mask.contains(cpu);
                    self.tasks[tidx].affinity = mask;
                    if must_move {
                        // set_cpus_allowed_ptr(): the running task is pushed off this
                        // CPU and placed again as if woken.
                        self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                        self.place_woken_task(task_id, cpu, None, false);
                        return;
                    }
                }
                Instr::Complete => {
                    let group = self.tasks[tidx].group as usize;
                    self.metrics.completed[group] += 1;
                }
                Instr::Spawn(pool) => {
                    // fork(): the child is placed from this CPU, at once, as
                    // `wake_up_new_task()` does in the parent's context. An empty
                    // pool has nothing left to fork.
                    if let Some(child) = self.spawn_pools[pool as usize].pop_front() {
                        debug_assert_eq!(self.tasks[child.0 as usize].state, TaskState::Unborn);
                        debug_assert_eq!(self.tasks[tidx].cpu, cpu);
                        self.fork_parent[child.0 as usize] = Some(task_id);
                        self.tasks[child.0 as usize].start_at = self.now;
                        self.wake_up_new_task(child);
                    }
                }
                Instr::LoopStart { count, end } => {
                    if count == Some(0) {
                        self.tasks[tidx].pc = end as usize + 1;
                    } else {
                        self.tasks[tidx].loops.push(LoopFrame {
                            start: pc,
                            remaining: count,
                        });
                    }
                }
                Instr::LoopEnd { start } => {
                    let task = &mut self.tasks[tidx];
                    let frame = task.loops.last_mut().expect("loop end without start");
                    match frame.remaining.as_mut() {
                        None => task.pc = start as usize + 1,
                        Some(remaining) => {
                            *remaining -= 1;
                            if *remaining == 0 {
                                task.loops.pop();
                            } else {
                                task.pc = start as usize + 1;
                            }
                        }
                    }
                }
            }
        }
    }

    /// A duration from `dist`: its fixed value, or a draw from the generator.
    #[inline]
    fn draw_ns(&mut self, dist: crate::behaviour::DistId) -> u64 {
        match self.dist_fixed_ns[dist.0 as usize] {
            u64::MAX => self.dists[dist.0 as usize].sample_ns(&mut self.rng),
            ns => ns,
        }
    }

    /// A duration drawn for a step that takes time; after 10,000 steps that took
    /// none, a zero draw becomes 1 us, so that no loop can spin without time passing.
    fn draw_time(&mut self, dist: crate::behaviour::DistId, steps_without_time: u32) -> u64 {
        match self.draw_ns(dist) {
            0 if steps_without_time > 10_000 => 1_000,
            ns => ns,
        }
    }

    /// Starts a burst of `work` on the CPU (plus any cache refill still owed) and
    /// queues its end.
    fn start_burst(&mut self, task_id: TaskId, cpu: CpuId, work: u64, memory_bound: bool) {
        let task = &mut self.tasks[task_id.0 as usize];
        let work = work + std::mem::take(&mut task.refill_debt_ns);
        task.remaining_work = Some(work);
        task.run_memory_bound = memory_bound;
        if memory_bound && self.refresh_memory_bound(cpu) {
            return;
        }
        self.schedule_run_done(cpu, work);
    }

    pub(crate) fn exit_task(&mut self, task_id: TaskId, cpu: CpuId) {
        let pid = self.pid_of(task_id);
        self.emit(cpu, TraceKind::SchedProcessExit, pid, 0, 0, Reason::None);
        self.dequeue_curr(task_id, cpu, TaskState::Exited);
        let group = self.tasks[task_id.0 as usize].group as usize;
        let workload = &mut self.workloads[group];
        workload.alive -= 1;
        if workload.alive == 0 {
            workload.finished_at = Some(self.now);
            if self
                .workloads
                .iter()
                .all(|workload| workload.alive == 0 || workload.background)
            {
                // Every task has exited: the run is over.
                self.queue.push(self.now, Event::End);
            }
        }
    }
}
