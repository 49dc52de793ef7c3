//! The discrete-event queue: events ordered by `(time, sequence number)`.
//!
//! The sequence number makes equal-time events run first-in first-out, which is
//! what keeps a run deterministic: nothing depends on heap internals. The heap
//! holds 128-bit keys only; the events wait in a slab of reused slots.

use crate::time::SimTime;
use std::cmp::Reverse;
// A 4-ary heap: half the levels of a binary one, and a level's children share
// cache lines, which matters once a large machine keeps a thousand timers queued.
use dary_heap::QuaternaryHeap;

/// A queued event's key: the time in the high 64 bits, then the sequence number
/// (40 bits), then the slot its event waits in (24 bits). One 128-bit comparison
/// orders by time, then first in first out (sequence numbers are unique, so the
/// slot never decides), and sifting the heap moves 16 bytes, not the event.
type Key = u128;
const SEQ_BITS: u32 = 40;
const SLOT_BITS: u32 = 24;

/// A min-queue of future events. Sequence numbers are never reused.
#[derive(Clone, Debug)]
pub struct EventQueue<E> {
    heap: QuaternaryHeap<Reverse<Key>>,
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self {
            heap: QuaternaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(event);
                slot
            }
            None => {
                self.slots.push(Some(event));
                (self.slots.len() - 1) as u32
            }
        };
        assert!(
            seq < 1 << SEQ_BITS && slot < 1 << SLOT_BITS,
            "event queue: more than 2^40 events, or 2^24 queued at once"
        );
        let key = (u128::from(time.0) << 64) | (u128::from(seq) << SLOT_BITS) | u128::from(slot);
        self.heap.push(Reverse(key));
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let Reverse(key) = self.heap.pop()?;
        let slot = (key & ((1 << SLOT_BITS) - 1)) as u32;
        self.free.push(slot);
        let event = self.slots[slot as usize]
            .take()
            .expect("a queued key has its event");
        Some((SimTime((key >> 64) as u64), event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap
            .peek()
            .map(|Reverse(key)| SimTime((key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_pop_in_push_order() {
        let mut queue = EventQueue::default();
        queue.push(SimTime(10), "b");
        queue.push(SimTime(5), "a");
        queue.push(SimTime(10), "c");
        queue.push(SimTime(10), "d");
        let order: Vec<_> = std::iter::from_fn(|| queue.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn pops_in_time_then_push_order_while_slots_are_reused() {
        // Pushes and pops interleaved (slots freed and taken again), against a plain
        // list kept sorted by (time, push number).
        let mut queue = EventQueue::default();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for pushed in 0..20_000u64 {
            let time = next() % 64;
            queue.push(SimTime(time), pushed);
            reference.push((time, pushed));
            if next() % 3 == 0 {
                reference.sort_unstable();
                let want = reference.remove(0);
                assert_eq!(queue.pop(), Some((SimTime(want.0), want.1)));
            }
        }
        reference.sort_unstable();
        for want in reference {
            assert_eq!(queue.peek_time(), Some(SimTime(want.0)));
            assert_eq!(queue.pop(), Some((SimTime(want.0), want.1)));
        }
        assert!(queue.is_empty());
    }
}
