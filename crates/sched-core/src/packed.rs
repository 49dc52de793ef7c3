//! Frame-of-reference bit packing, shared by the logs that only grow (the trace's
//! chunks, the wait log): a column of values is stored as offsets from its smallest
//! value, each in as many bits as the largest offset needs, and read back in O(1).
//! Neighbouring records of a simulation differ little (times a few microseconds
//! apart, small CPU numbers and counts), so a column of 1,024 of them usually needs a
//! fraction of its full width.

/// Bits needed for offsets up to `range`.
pub(crate) fn bit_width(range: u64) -> u8 {
    (64 - range.leading_zeros()) as u8
}

/// Writes bits into zeroed words, a word at a time.
pub(crate) struct BitWriter<'a> {
    words: &'a mut [u64],
    /// The word `acc` goes to.
    next: usize,
    acc: u64,
    /// Bits of `acc` filled (below 64).
    used: u32,
}

impl<'a> BitWriter<'a> {
    pub(crate) fn new(words: &'a mut [u64]) -> BitWriter<'a> {
        BitWriter {
            words,
            next: 0,
            acc: 0,
            used: 0,
        }
    }

    /// Appends `value`, which fits in `width` bits (1 to 64).
    #[inline]
    fn put(&mut self, value: u64, width: u32) {
        self.acc |= value << self.used;
        let end = self.used + width;
        if end >= 64 {
            self.words[self.next] = self.acc;
            self.next += 1;
            self.acc = if self.used == 0 {
                0
            } else {
                value >> (64 - self.used)
            };
            self.used = end - 64;
        } else {
            self.used = end;
        }
    }

    /// Appends a column: `len` values, each as its offset from `base` in `width` bits.
    pub(crate) fn column(
        &mut self,
        (base, width): (u64, u8),
        len: usize,
        value: impl Fn(usize) -> u64,
    ) {
        if width == 0 {
            return;
        }
        for i in 0..len {
            self.put(value(i) - base, width as u32);
        }
    }

    pub(crate) fn finish(self) {
        if self.used > 0 {
            self.words[self.next] = self.acc;
        }
    }
}

/// `width` bits (1 to 64) from bit `bit` of `words`.
#[inline]
pub(crate) fn read_bits(words: &[u64], bit: usize, width: u32) -> u64 {
    let (word, shift) = (bit / 64, (bit % 64) as u32);
    let mut value = words[word] >> shift;
    if shift + width > 64 {
        value |= words[word + 1] << (64 - shift);
    }
    if width == 64 {
        value
    } else {
        value & ((1u64 << width) - 1)
    }
}

/// `N` columns of the same length, packed one after the other in one exactly sized
/// allocation.
#[derive(Clone, Debug)]
pub(crate) struct PackedRows<const N: usize> {
    len: usize,
    /// Each column's smallest value.
    base: [u64; N],
    /// Each column's width in bits; 0 when every value equals the base.
    width: [u8; N],
    /// Each column's first bit in `words`.
    start: [usize; N],
    words: Box<[u64]>,
}

impl<const N: usize> PackedRows<N> {
    /// Packs `len` rows; `value(col, row)` gives each field.
    pub(crate) fn pack(len: usize, value: impl Fn(usize, usize) -> u64) -> PackedRows<N> {
        let mut base = [u64::MAX; N];
        let mut top = [0u64; N];
        for row in 0..len {
            for col in 0..N {
                let v = value(col, row);
                base[col] = base[col].min(v);
                top[col] = top[col].max(v);
            }
        }
        if len == 0 {
            base = [0; N];
        }
        let width: [u8; N] = std::array::from_fn(|col| bit_width(top[col] - base[col]));
        let start: [usize; N] =
            std::array::from_fn(|col| width[..col].iter().map(|&w| w as usize * len).sum());
        let bits: usize = width.iter().map(|&w| w as usize * len).sum();
        let mut words = vec![0u64; bits.div_ceil(64)].into_boxed_slice();
        let mut out = BitWriter::new(&mut words);
        for col in 0..N {
            out.column((base[col], width[col]), len, |row| value(col, row));
        }
        out.finish();
        PackedRows {
            len,
            base,
            width,
            start,
            words,
        }
    }

    /// Field `col` of row `row`.
    #[inline]
    pub(crate) fn get(&self, col: usize, row: usize) -> u64 {
        debug_assert!(row < self.len);
        let width = self.width[col] as usize;
        if width == 0 {
            return self.base[col];
        }
        self.base[col] + read_bits(&self.words, self.start[col] + row * width, width as u32)
    }

    /// Bytes of its allocation.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_as_packed() {
        let mut rng = crate::rng::SimRng::new(7);
        let mut next = || rng.next_u64();
        for len in [0usize, 1, 7, 64, 1000] {
            let rows: Vec<[u64; 4]> = (0..len)
                .map(|row| {
                    [
                        1_000_000 + row as u64 * 37 + next() % 50,
                        next() % 512,
                        5,
                        next(),
                    ]
                })
                .collect();
            let packed = PackedRows::<4>::pack(len, |col, row| rows[row][col]);
            for (row, want) in rows.iter().enumerate() {
                for (col, value) in want.iter().enumerate() {
                    assert_eq!(packed.get(col, row), *value, "row {row} col {col}");
                }
            }
            if len == 1000 {
                // Narrow columns (the constant one takes no bits; the last is full
                // width): about 12 bytes a row, not 32.
                assert!(
                    packed.heap_bytes() <= len * 12 + 8,
                    "{}",
                    packed.heap_bytes()
                );
            }
        }
    }
}
