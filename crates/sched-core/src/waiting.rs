//! How many tasks wait in each CPU's runqueue over time: runnable but not
//! running, so `nr_running` less the running task (the tasks in the CFS tree).
//!
//! The simulator notes the count of a CPU every time its runqueue changes
//! (`Simulator::touch`), so the log holds each change exactly, at the instant it
//! happened, rather than samples. Front ends shade the timeline with it. It is
//! kept only when asked for (`Simulator::keep_wait_log`) and only while the trace
//! keeps records, so it covers the same stretch of time as the kept trace.

use crate::packed::PackedRows;
use std::collections::VecDeque;

/// Where a wait log stood (`WaitLog::mark`).
#[derive(Clone, Debug)]
pub struct WaitMark {
    len: usize,
    last: Vec<u32>,
}

/// Entries per sealed chunk of the log.
const CHUNK: usize = 1024;

/// The log's columns in a sealed chunk.
const COL_TIME: usize = 0;
const COL_CPU: usize = 1;
const COL_WAITING: usize = 2;

/// One change: at `time` (ns), `cpu`'s runqueue had `waiting` tasks waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitEntry {
    pub time: u64,
    pub cpu: u32,
    pub waiting: u32,
}

/// Log of `(time, cpu, waiting)` changes. Invariant: times never decrease, and two
/// entries of one CPU never repeat the same count (an entry is a change). Several
/// entries of one CPU may share an instant: the last one holds.
///
/// A long run logs about one change per event (ten million in a 10 M-event run), so
/// the entries are kept as the trace keeps its records: sealed chunks of
/// [`CHUNK`] entries, each column bit-packed from the chunk's smallest value
/// (`crate::packed`; about 3 to 4 bytes an entry where plain columns took 16), and
/// the newest entries (fewer than a chunk) plain. Each chunk is one exactly sized
/// allocation, so the log never doubles a large buffer.
///
/// A front end that copies the entries out as they come (the app's engine worker)
/// can let the log forget them (`WaitLog::forget_before`): its sealed chunks are
/// then freed from the front, and entry numbers go on counting from where they were.
#[derive(Clone, Debug, Default)]
pub struct WaitLog {
    /// The number of the first entry kept: the ones before it were forgotten.
    base: usize,
    sealed: VecDeque<PackedRows<3>>,
    /// The newest entries, not yet a whole chunk.
    open: Vec<WaitEntry>,
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
        *last = waiting;
        debug_assert!(self.len() == self.base || self.get(self.len() - 1).time <= time);
        if self.open.capacity() == 0 {
            self.open.reserve_exact(CHUNK);
        }
        self.open.push(WaitEntry { time, cpu, waiting });
        if self.open.len() == CHUNK {
            let open = &self.open;
            self.sealed.push_back(PackedRows::pack(CHUNK, |col, row| {
                let entry = open[row];
                match col {
                    COL_TIME => entry.time,
                    COL_CPU => u64::from(entry.cpu),
                    _ => u64::from(entry.waiting),
                }
            }));
            self.open.clear();
        }
    }

    /// Entries logged so far, the forgotten ones included.
    pub fn len(&self) -> usize {
        self.base + self.sealed.len() * CHUNK + self.open.len()
    }

    /// The number of the first entry still kept (`get` answers from it on).
    pub fn first_kept(&self) -> usize {
        self.base
    }

    /// Forgets the sealed chunks wholly before entry `idx`, freeing them: for a
    /// reader that has copied those entries out. The open entries stay.
    pub fn forget_before(&mut self, idx: usize) {
        while self.base + CHUNK <= idx && !self.sealed.is_empty() {
            self.sealed.pop_front();
            self.base += CHUNK;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `idx` (from [`WaitLog::first_kept`] to below [`WaitLog::len`]).
    #[inline]
    pub fn get(&self, idx: usize) -> WaitEntry {
        let at = idx - self.base;
        match self.sealed.get(at / CHUNK) {
            Some(chunk) => {
                let row = at % CHUNK;
                WaitEntry {
                    time: chunk.get(COL_TIME, row),
                    cpu: chunk.get(COL_CPU, row) as u32,
                    waiting: chunk.get(COL_WAITING, row) as u32,
                }
            }
            None => self.open[at - self.sealed.len() * CHUNK],
        }
    }

    /// Every entry kept, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = WaitEntry> + '_ {
        (self.base..self.len()).map(|idx| self.get(idx))
    }

    /// Bytes the entries take on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.sealed
            .iter()
            .map(PackedRows::heap_bytes)
            .sum::<usize>()
            + self.sealed.capacity() * std::mem::size_of::<PackedRows<3>>()
            + self.open.capacity() * std::mem::size_of::<WaitEntry>()
    }

    /// Where the log stands now, to come back to with `rewind` (a snapshot's part).
    pub fn mark(&self) -> WaitMark {
        WaitMark {
            len: self.len(),
            last: self.last.clone(),
        }
    }

    /// Back to `mark`, taken earlier on this log: the later entries are dropped.
    /// Where the mark falls among forgotten entries, the log goes on from it keeping
    /// nothing before it (the reader had copied those out).
    pub fn rewind(&mut self, mark: &WaitMark) {
        if mark.len < self.base {
            self.base = mark.len;
            self.sealed.clear();
            self.open.clear();
        } else {
            let at = mark.len - self.base;
            let whole = at / CHUNK;
            if whole < self.sealed.len() {
                // The mark falls in a sealed chunk: its first entries become the open ones.
                let start = self.base + whole * CHUNK;
                let kept: Vec<WaitEntry> = (start..mark.len).map(|idx| self.get(idx)).collect();
                self.sealed.truncate(whole);
                self.open.clear();
                self.open.extend(kept);
            } else {
                self.open.truncate(at - whole * CHUNK);
            }
        }
        self.last.clone_from(&mark.last);
    }

    /// `cpu`'s count as the log says it stood at `time` (after every change at that
    /// instant). A scan of the whole log kept: for tests and one-off questions.
    pub fn waiting_at(&self, cpu: u32, time: u64) -> u32 {
        let mut count = 0;
        for entry in self.iter() {
            if entry.time > time {
                break;
            }
            if entry.cpu == cpu {
                count = entry.waiting;
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

    #[test]
    fn entries_read_back_across_sealed_chunks_and_rewind_into_one() {
        let n_cpus = 48;
        let mut log = WaitLog::new(n_cpus);
        let mut want = Vec::new();
        let mut counts = vec![0u32; n_cpus];
        let mut marks = Vec::new();
        let mut time = 1_000_000u64;
        for step in 0..5_000u64 {
            time += step % 7;
            let cpu = (step * 31 % n_cpus as u64) as u32;
            let waiting = counts[cpu as usize] + 1 + (step % 3) as u32;
            counts[cpu as usize] = waiting;
            log.note(time, cpu, waiting);
            want.push(WaitEntry { time, cpu, waiting });
            if step % 1_700 == 900 {
                marks.push((log.mark(), want.len()));
            }
        }
        assert_eq!(log.len(), want.len());
        for (idx, entry) in want.iter().enumerate() {
            assert_eq!(log.get(idx), *entry, "entry {idx}");
        }
        // Packed: well under the 16 bytes an entry of plain columns.
        assert!(
            log.heap_bytes() < want.len() * 8,
            "{} bytes",
            log.heap_bytes()
        );
        // Back to marks inside sealed chunks (901 and 2601 entries), newest first.
        for (mark, len) in marks.into_iter().rev() {
            log.rewind(&mark);
            assert_eq!(log.len(), len);
            for (idx, entry) in want[..len].iter().enumerate() {
                assert_eq!(log.get(idx), *entry, "entry {idx} after rewinding to {len}");
            }
            // The log goes on from there: the count last logged is the mark's.
            let last = want[len - 1];
            log.note(last.time, last.cpu, last.waiting);
            assert_eq!(log.len(), len, "no change, no entry");
        }
    }

    #[test]
    fn forgets_read_chunks_keeps_numbering_and_rewinds_across_them() {
        let mut log = WaitLog::new(4);
        let mut want = Vec::new();
        let mut marks = Vec::new();
        for step in 0..(5 * CHUNK as u64 + 100) {
            let cpu = (step % 4) as u32;
            let waiting = (step / 4 % 2 + 1) as u32 + u32::from(step % 8 >= 4) * 2;
            log.note(10 * step, cpu, waiting);
            want.push(WaitEntry {
                time: 10 * step,
                cpu,
                waiting,
            });
            if step % (CHUNK as u64) == 500 {
                marks.push((log.mark(), want.len()));
            }
        }
        let full = log.heap_bytes();
        let len = log.len();
        // Read up to the middle of the fourth chunk: the three before it go.
        log.forget_before(3 * CHUNK + 10);
        assert_eq!(log.len(), len, "numbering goes on");
        assert_eq!(log.first_kept(), 3 * CHUNK);
        assert_eq!(log.sealed.len(), 2, "chunks 3 and 4 kept");
        assert!(
            log.heap_bytes() < full,
            "{} of {full} bytes",
            log.heap_bytes()
        );
        let kept: Vec<WaitEntry> = (log.first_kept()..len).map(|idx| log.get(idx)).collect();
        assert_eq!(kept, want[3 * CHUNK..]);
        assert_eq!(log.iter().count(), len - 3 * CHUNK);
        // Back to a mark still kept (3 * CHUNK + 501 entries): read back as before.
        let (mark, at) = marks[3].clone();
        log.rewind(&mark);
        assert_eq!(log.len(), at);
        let kept: Vec<WaitEntry> = (log.first_kept()..at).map(|idx| log.get(idx)).collect();
        assert_eq!(kept, want[3 * CHUNK..at], "after the rewind");
        // Back to a forgotten mark (CHUNK + 501): nothing kept, numbering from there.
        let (mark, at) = marks[1].clone();
        log.rewind(&mark);
        assert_eq!((log.len(), log.first_kept()), (at, at));
        assert_eq!(log.iter().count(), 0);
        // It goes on logging from the mark's counts.
        let next = want[at];
        log.note(next.time, next.cpu, next.waiting);
        assert_eq!(log.len(), at + 1);
        assert_eq!(log.get(at), next);
    }
}
