//! A fixed-size set of CPU numbers (the model's `struct cpumask`).

use crate::topology::CpuId;

/// A bitmask of CPUs. Iteration is always in ascending CPU order, which the
/// kernel's `for_each_cpu` also guarantees and the model relies on for determinism.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CpuSet {
    words: Vec<u64>,
}

impl CpuSet {
    pub fn empty(n_cpus: usize) -> Self {
        Self {
            words: vec![0; n_cpus.div_ceil(64).max(1)],
        }
    }

    pub fn full(n_cpus: usize) -> Self {
        let mut set = Self::empty(n_cpus);
        for cpu_idx in 0..n_cpus {
            set.insert(CpuId(cpu_idx as u32));
        }
        set
    }

    pub fn from_cpus(n_cpus: usize, cpus: impl IntoIterator<Item = CpuId>) -> Self {
        let mut set = Self::empty(n_cpus);
        for cpu in cpus {
            set.insert(cpu);
        }
        set
    }

    pub fn insert(&mut self, cpu: CpuId) {
        let idx = cpu.0 as usize;
        if idx / 64 >= self.words.len() {
            self.words.resize(idx / 64 + 1, 0);
        }
        self.words[idx / 64] |= 1u64 << (idx % 64);
    }

    pub fn remove(&mut self, cpu: CpuId) {
        let idx = cpu.0 as usize;
        if let Some(word) = self.words.get_mut(idx / 64) {
            *word &= !(1u64 << (idx % 64));
        }
    }

    /// The CPUs in both sets.
    pub fn and(&self, other: &CpuSet) -> CpuSet {
        CpuSet {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(left, right)| left & right)
                .collect(),
        }
    }

    pub fn contains(&self, cpu: CpuId) -> bool {
        let idx = cpu.0 as usize;
        self.words
            .get(idx / 64)
            .is_some_and(|word| word & (1u64 << (idx % 64)) != 0)
    }

    pub fn len(&self) -> usize {
        self.words
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|word| *word == 0)
    }

    pub fn intersects(&self, other: &CpuSet) -> bool {
        self.words
            .iter()
            .zip(&other.words)
            .any(|(left, right)| left & right != 0)
    }

    pub fn intersection_len(&self, other: &CpuSet) -> usize {
        self.words
            .iter()
            .zip(&other.words)
            .map(|(left, right)| (left & right).count_ones() as usize)
            .sum()
    }

    /// The CPUs in ascending order, a set bit at a time (`for_each_cpu`).
    pub fn iter(&self) -> impl Iterator<Item = CpuId> + '_ {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(word_idx, &word)| bits(word, word_idx))
    }

    /// The CPUs in both sets, in ascending order (`for_each_cpu_and`), without
    /// building the intersection.
    pub fn iter_and<'a>(&'a self, other: &'a CpuSet) -> impl Iterator<Item = CpuId> + 'a {
        self.words
            .iter()
            .zip(&other.words)
            .enumerate()
            .flat_map(|(word_idx, (&left, &right))| bits(left & right, word_idx))
    }

    pub fn first(&self) -> Option<CpuId> {
        self.iter().next()
    }

    /// Formats like the kernel's `%*pbl`: `0-3,8,10-11`.
    pub fn to_list_string(&self) -> String {
        let cpus: Vec<u32> = self.iter().map(|cpu| cpu.0).collect();
        format_cpu_list(&cpus)
    }
}

/// What a bounded wrap-around scan found: see [`scan_wrap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WrapScan {
    /// The first CPU found (in wrap order), if the budget reached it.
    pub found: Option<CpuId>,
    /// The allowed CPUs looked at, the found one included.
    pub scanned: u32,
}

/// `select_idle_cpu()`'s loop (`for_each_cpu_wrap(cpu, span, target + 1)`), a 64-CPU
/// word at a time: walks `span` upwards from the CPU after `target`, wrapping round
/// to `target` itself last. A CPU not in `allowed` is skipped, or, with
/// `count_disallowed`, uses up one of the `budget` like an allowed one (the pre-5.6
/// SIS_PROP form); the scan stops at the first allowed CPU of `hit`, or when the
/// budget is spent (`None`: no bound). Gives what the CPU-at-a-time loop gives.
pub fn scan_wrap(
    span: &CpuSet,
    allowed: &CpuSet,
    hit: &CpuSet,
    target: CpuId,
    count_disallowed: bool,
    budget: Option<u32>,
) -> WrapScan {
    let n_words = span.words.len();
    let word_of = |set: &CpuSet, idx: usize| set.words.get(idx).copied().unwrap_or(0);
    let target_idx = (target.0 as usize).min(n_words * 64 - 1);
    let (target_word, target_bit) = (target_idx / 64, target_idx % 64);
    let up_to_target = up_to(target_bit);
    // The segments in wrap order: above the target in its word, the words above,
    // the words below, then the target's word up to the target.
    let segments = std::iter::once((target_word, !up_to_target))
        .chain((target_word + 1..n_words).map(|idx| (idx, u64::MAX)))
        .chain((0..target_word).map(|idx| (idx, u64::MAX)))
        .chain(std::iter::once((target_word, up_to_target)));
    let mut left = budget;
    let mut scanned = 0u32;
    for (idx, range) in segments {
        let in_span = word_of(span, idx) & range;
        let in_allowed = in_span & word_of(allowed, idx);
        let counted = if count_disallowed {
            in_span
        } else {
            in_allowed
        };
        let hits = in_allowed & word_of(hit, idx);
        // The counted CPU that would find the budget spent, if it is in this word.
        let stop = left.and_then(|left| nth_bit(counted, left));
        let first_hit = (hits != 0).then(|| hits.trailing_zeros());
        match (first_hit, stop) {
            (Some(bit), stop) if stop.is_none_or(|stop| bit < stop) => {
                scanned += (in_allowed & up_to(bit as usize)).count_ones();
                return WrapScan {
                    found: Some(CpuId((idx * 64) as u32 + bit)),
                    scanned,
                };
            }
            (_, Some(stop)) => {
                scanned += (in_allowed & ((1u64 << stop) - 1)).count_ones();
                return WrapScan {
                    found: None,
                    scanned,
                };
            }
            _ => {
                scanned += in_allowed.count_ones();
                if let Some(left) = left.as_mut() {
                    *left -= counted.count_ones();
                }
            }
        }
    }
    WrapScan {
        found: None,
        scanned,
    }
}

/// Bits 0 to `bit` of a word.
fn up_to(bit: usize) -> u64 {
    if bit >= 63 {
        u64::MAX
    } else {
        (1u64 << (bit + 1)) - 1
    }
}

/// The position of the set bit with `n` set bits below it, if the word has one.
fn nth_bit(mut word: u64, n: u32) -> Option<u32> {
    if word.count_ones() <= n {
        return None;
    }
    for _ in 0..n {
        word &= word - 1;
    }
    Some(word.trailing_zeros())
}

/// The loop [`scan_wrap`] stands for, a CPU at a time as the kernel runs it:
/// `look(cpu, allowed)` sees each CPU the loop counts, in turn, and says whether it
/// is the one wanted (only an allowed one can be). The check that the two agree,
/// and the decision inspector's record of the CPUs a scan looked at.
pub fn scan_wrap_by_cpu(
    span: &CpuSet,
    allowed: &CpuSet,
    mut look: impl FnMut(CpuId, bool) -> bool,
    target: CpuId,
    count_disallowed: bool,
    budget: Option<u32>,
) -> WrapScan {
    // `for_each_cpu_wrap(cpu, span, target + 1)`: the CPUs after the target, then
    // the rest from the first (no list built: this runs beside every scan in the
    // tests, which count allocations).
    let wrapped = span
        .iter()
        .filter(|cpu| cpu.0 > target.0)
        .chain(span.iter().filter(|cpu| cpu.0 <= target.0));
    let mut left = budget;
    let mut scanned = 0;
    for cpu in wrapped {
        let ok = allowed.contains(cpu);
        if !ok && !count_disallowed {
            continue;
        }
        if let Some(left) = left.as_mut() {
            if *left == 0 {
                break;
            }
            *left -= 1;
        }
        let hit = look(cpu, ok) && ok;
        if !ok {
            continue;
        }
        scanned += 1;
        if hit {
            return WrapScan {
                found: Some(cpu),
                scanned,
            };
        }
    }
    WrapScan {
        found: None,
        scanned,
    }
}

/// The CPUs of one 64-bit word of a set, lowest first.
fn bits(mut word: u64, word_idx: usize) -> impl Iterator<Item = CpuId> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let bit = word.trailing_zeros() as usize;
            word &= word - 1;
            CpuId((word_idx * 64 + bit) as u32)
        })
    })
}

/// Formats ascending CPU numbers like the kernel's `%*pbl`: `0-3,8,10-11`.
pub fn format_cpu_list(cpus: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut idx = 0;
    while idx < cpus.len() {
        let start = cpus[idx];
        let mut end = start;
        while idx + 1 < cpus.len() && cpus[idx + 1] == end + 1 {
            idx += 1;
            end = cpus[idx];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        idx += 1;
    }
    parts.join(",")
}

/// Parses a CPU list in the kernel's format (`0-3,8,10-11`), as taskset and numactl take it.
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, String> {
    let mut cpus = Vec::new();
    for part in text
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
    {
        if let Some((start, end)) = part.split_once('-') {
            let start: u32 = start
                .trim()
                .parse()
                .map_err(|_| format!("`{part}` is not a CPU range"))?;
            let end: u32 = end
                .trim()
                .parse()
                .map_err(|_| format!("`{part}` is not a CPU range"))?;
            if end < start {
                return Err(format!("`{part}`: range end is below its start"));
            }
            cpus.extend(start..=end);
        } else {
            cpus.push(
                part.parse()
                    .map_err(|_| format!("`{part}` is not a CPU number"))?,
            );
        }
    }
    if cpus.is_empty() {
        return Err("the CPU list is empty".to_string());
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_round_trip() {
        let cpus = parse_cpu_list("0-3,8,10-11").unwrap();
        let set = CpuSet::from_cpus(16, cpus.into_iter().map(CpuId));
        assert_eq!(set.len(), 7);
        assert_eq!(set.to_list_string(), "0-3,8,10-11");
    }

    #[test]
    fn iteration_is_ascending_and_matches_membership() {
        let set = CpuSet::from_cpus(200, [0, 3, 63, 64, 130, 199].map(CpuId));
        let other = CpuSet::from_cpus(200, [3, 64, 65, 199].map(CpuId));
        let cpus: Vec<u32> = set.iter().map(|cpu| cpu.0).collect();
        assert_eq!(cpus, [0, 3, 63, 64, 130, 199]);
        let both: Vec<u32> = set.iter_and(&other).map(|cpu| cpu.0).collect();
        assert_eq!(both, [3, 64, 199]);
        let slow: Vec<u32> = (0..200).filter(|&cpu| set.contains(CpuId(cpu))).collect();
        assert_eq!(cpus, slow);
    }

    proptest::proptest! {
        #[test]
        fn scan_wrap_matches_the_loop(
            n_cpus in 1usize..300,
            span_bits in proptest::collection::vec(proptest::bool::weighted(0.6), 300),
            allowed_bits in proptest::collection::vec(proptest::bool::weighted(0.8), 300),
            hit_bits in proptest::collection::vec(proptest::bool::weighted(0.1), 300),
            target in 0usize..300,
            count_disallowed: bool,
            budget in proptest::option::of(0u32..80),
        ) {
            let set = |bits: &[bool]| CpuSet::from_cpus(
                n_cpus,
                (0..n_cpus).filter(|idx| bits[*idx]).map(|idx| CpuId(idx as u32)),
            );
            let (span, allowed, hit) = (set(&span_bits), set(&allowed_bits), set(&hit_bits));
            let target = CpuId((target % n_cpus) as u32);
            proptest::prop_assert_eq!(
                scan_wrap(&span, &allowed, &hit, target, count_disallowed, budget),
                scan_wrap_by_cpu(&span, &allowed, |cpu, _| hit.contains(cpu), target, count_disallowed, budget)
            );
        }
    }

    #[test]
    fn bad_lists_are_rejected() {
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("a").is_err());
        assert!(parse_cpu_list("").is_err());
    }
}
