//! How many tasks wait in each CPU's runqueue over time: runnable but not
//! running, so `nr_running` less the running task (the tasks in the CFS tree).
//!
//! The simulator notes the count of a CPU every time its runqueue changes
//! (`Simulator::touch`), so the log holds each change exactly, at the instant it
//! happened, rather than samples. Front ends shade the timeline with it. It is
//! kept only when asked for (`Simulator::keep_wait_log`) and only while the trace
//! keeps records, so it covers the same stretch of time as the kept trace.

use crate::packed::PackedRows;

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
#[derive(Clone, Debug, Default)]
pub struct WaitLog {
    sealed: Vec<PackedRows<3>>,
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
        debug_assert!(self.is_empty() || self.get(self.len() - 1).time <= time);
        if self.open.capacity() == 0 {
            self.open.reserve_exact(CHUNK);
        }
        self.open.push(WaitEntry { time, cpu, waiting });
        if self.open.len() == CHUNK {
            let open = &self.open;
            self.sealed.push(PackedRows::pack(CHUNK, |col, row| {
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

    pub fn len(&self) -> usize {
        self.sealed.len() * CHUNK + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `idx` (below [`WaitLog::len`]).
    #[inline]
    pub fn get(&self, idx: usize) -> WaitEntry {
        match self.sealed.get(idx / CHUNK) {
            Some(chunk) => {
                let row = idx % CHUNK;
                WaitEntry {
                    time: chunk.get(COL_TIME, row),
                    cpu: chunk.get(COL_CPU, row) as u32,
                    waiting: chunk.get(COL_WAITING, row) as u32,
                }
            }
            None => self.open[idx - self.sealed.len() * CHUNK],
        }
    }

    /// Every entry, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = WaitEntry> + '_ {
        (0..self.len()).map(|idx| self.get(idx))
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
    pub fn rewind(&mut self, mark: &WaitMark) {
        let whole = mark.len / CHUNK;
        if whole < self.sealed.len() {
            // The mark falls in a sealed chunk: its first entries become the open ones.
            let kept: Vec<WaitEntry> = (whole * CHUNK..mark.len).map(|idx| self.get(idx)).collect();
            self.sealed.truncate(whole);
            self.open.clear();
            self.open.extend(kept);
        } else {
            self.open.truncate(mark.len - whole * CHUNK);
        }
        self.last.clone_from(&mark.last);
    }

    /// `cpu`'s count as the log says it stood at `time` (after every change at that
    /// instant). A scan of the whole log: for tests and one-off questions.
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
}
