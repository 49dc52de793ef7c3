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

    #[test]
    fn bad_lists_are_rejected() {
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("a").is_err());
        assert!(parse_cpu_list("").is_err());
    }
}
