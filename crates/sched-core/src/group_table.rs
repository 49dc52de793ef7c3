//! Storage for what each (task group, CPU) pair holds: a group's `cfs_rq` and
//! `sched_entity` on one CPU.
//!
//! The kernel allocates every group's cfs_rq and entity on every CPU when the group
//! is made (`alloc_fair_sched_group`). The model makes a pair's record the first time
//! it is written and reads a blank one before that, so the records in use lie
//! together, whatever the number of groups: 1,000 groups on 256 CPUs are 256,000
//! pairs, of which a run touches a few tens of thousands, and a walk that visits
//! them stays in a few megabytes instead of tens.

use crate::topology::CpuId;
use std::ops::{Index, IndexMut};

const NONE: u32 = u32::MAX;

/// Records of type `T` per (column, CPU) pair, made on first write.
#[derive(Clone, Debug)]
pub struct PairTable<T> {
    cols: usize,
    /// CPU-major: the record of (column, CPU) at `cpu * cols + column`, or `NONE`.
    slot: Vec<u32>,
    items: Vec<T>,
    /// What a pair holds before its record is made.
    blank: T,
}

impl<T: Clone> PairTable<T> {
    pub fn new(n_cpus: usize, cols: usize, blank: T) -> Self {
        PairTable {
            cols,
            slot: vec![NONE; n_cpus * cols],
            items: Vec::new(),
            blank,
        }
    }

    /// The record's index, if it has been made.
    #[inline]
    pub fn find(&self, col: usize, cpu: CpuId) -> Option<usize> {
        let slot = self.slot[cpu.0 as usize * self.cols + col];
        (slot != NONE).then_some(slot as usize)
    }

    /// The pair's record, or the blank one.
    #[inline]
    pub fn get(&self, col: usize, cpu: CpuId) -> &T {
        match self.find(col, cpu) {
            Some(idx) => &self.items[idx],
            None => &self.blank,
        }
    }

    /// The record's index, made from the blank if need be.
    #[inline]
    pub fn index_of(&mut self, col: usize, cpu: CpuId) -> usize {
        let at = cpu.0 as usize * self.cols + col;
        match self.slot[at] {
            NONE => self.make(at),
            slot => slot as usize,
        }
    }

    #[cold]
    #[inline(never)]
    fn make(&mut self, at: usize) -> usize {
        self.slot[at] = self.items.len() as u32;
        self.items.push(self.blank.clone());
        self.items.len() - 1
    }

    /// The pair's record, made from the blank if need be.
    #[inline]
    pub fn get_mut(&mut self, col: usize, cpu: CpuId) -> &mut T {
        let idx = self.index_of(col, cpu);
        &mut self.items[idx]
    }

    /// How many records have been made.
    pub fn made(&self) -> usize {
        self.items.len()
    }
}

impl<T> Index<usize> for PairTable<T> {
    type Output = T;
    #[inline]
    fn index(&self, idx: usize) -> &T {
        &self.items[idx]
    }
}

impl<T> IndexMut<usize> for PairTable<T> {
    #[inline]
    fn index_mut(&mut self, idx: usize) -> &mut T {
        &mut self.items[idx]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_until_written_then_kept() {
        let mut table = PairTable::new(4, 3, 7u32);
        assert_eq!(*table.get(2, CpuId(3)), 7);
        assert_eq!(table.made(), 0, "a read makes nothing");
        *table.get_mut(2, CpuId(3)) = 9;
        *table.get_mut(0, CpuId(1)) += 1;
        assert_eq!(*table.get(2, CpuId(3)), 9);
        assert_eq!(*table.get(0, CpuId(1)), 8);
        assert_eq!(*table.get(2, CpuId(1)), 7, "other pairs stay blank");
        assert_eq!(table.made(), 2);
        let idx = table.index_of(2, CpuId(3));
        assert_eq!(table[idx], 9, "the same record again");
        assert_eq!(table.made(), 2);
    }
}
