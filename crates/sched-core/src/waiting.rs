//! How many tasks wait in each CPU's runqueue over time: runnable but not
//! running, so `nr_running` less the running task (the tasks in the CFS tree).
//!
//! The simulator notes the count of a CPU every time its runqueue changes
//! (`Simulator::touch`), so the log holds each change exactly, at the instant it
//! happened, rather than samples. Front ends shade the timeline with it. It is
//! kept only when asked for (`Simulator::keep_wait_log`) and only while the trace
//! keeps records, so it covers the same stretch of time as the kept trace.

/// Column-oriented log of `(time, cpu, waiting)` changes. Invariant: times never
/// decrease, and two entries of one CPU never repeat the same count (an entry is a
/// change). Several entries of one CPU may share an instant: the last one holds.
/// Where a wait log stood (`WaitLog::mark`).
#[derive(Clone, Debug)]
pub struct WaitMark {
    len: usize,
    last: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
pub struct WaitLog {
    pub time: Vec<u64>,
    pub cpu: Vec<u32>,
    pub waiting: Vec<u32>,
    /// Per CPU: the count last logged (0 before any entry).
    last: Vec<u32>,
}

impl WaitLog {
    /// An empty log for `n_cpus` CPUs, every count 0.
    pub fn new(n_cpus: usize) -> Self {
        Self {
            last: vec![0; n_cpus],
            ..Default::default()
        }
    }

    /// Logs `cpu`'s count at `time` if it differs from the count last logged.
    pub fn note(&mut self, time: u64, cpu: u32, waiting: u32) {
        let Some(last) = self.last.get_mut(cpu as usize) else {
            return;
        };
        if *last == waiting {
            return;
        }
        debug_assert!(self.time.last().is_none_or(|prev| *prev <= time));
        *last = waiting;
        self.time.push(time);
        self.cpu.push(cpu);
        self.waiting.push(waiting);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// Where the log stands now, to come back to with `rewind` (a snapshot's part).
    pub fn mark(&self) -> WaitMark {
        WaitMark {
            len: self.len(),
            last: self.last.clone(),
        }
    }

    /// Back to `mark`, taken earlier on this log: the later entries are dropped.
    pub fn rewind(&mut self, mark: &WaitMark) {
        self.time.truncate(mark.len);
        self.cpu.truncate(mark.len);
        self.waiting.truncate(mark.len);
        self.last.clone_from(&mark.last);
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// `cpu`'s count as the log says it stood at `time` (after every change at that
    /// instant). A scan of the whole log: for tests and one-off questions.
    pub fn waiting_at(&self, cpu: u32, time: u64) -> u32 {
        let mut count = 0;
        for idx in 0..self.len() {
            if self.time[idx] > time {
                break;
            }
            if self.cpu[idx] == cpu {
                count = self.waiting[idx];
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_only_changes_and_answers_the_count_at_an_instant() {
        let mut log = WaitLog::new(2);
        log.note(10, 0, 0);
        assert!(log.is_empty(), "0 at the start is no change");
        log.note(10, 0, 1);
        log.note(12, 1, 2);
        log.note(15, 0, 1);
        log.note(20, 0, 0);
        assert_eq!(log.len(), 3);
        assert_eq!(log.waiting_at(0, 9), 0);
        assert_eq!(log.waiting_at(0, 10), 1);
        assert_eq!(log.waiting_at(0, 19), 1);
        assert_eq!(log.waiting_at(0, 20), 0);
        assert_eq!(log.waiting_at(1, 100), 2);
        // A CPU the log does not know is ignored.
        log.note(30, 7, 3);
        assert_eq!(log.len(), 3);
    }
}
