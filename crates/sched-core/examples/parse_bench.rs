//! Times the ftrace parser alone, and the parser with the replay, on a log file.
//!
//! ```sh
//! cargo run --release -p sched-core --example parse_bench -- FILE [--repeat N] [--chunk BYTES] [--digest]
//! ```
//!
//! The file is read into memory once, then each repeat feeds it to a new
//! [`Parser`] in 1 MiB slices (or `--chunk BYTES`) with `feed_bytes`, as `schedlab
//! replay` does, so disk
//! and gzip are not in the figure. Prints the median of the repeats with their
//! minimum and maximum. `--digest` also prints a hash of the whole `ParsedTrace`
//! (its `Debug` text), to check that a change to the parser keeps its results.

use sched_core::replay::{replay, ParsedTrace, Parser};
use std::hash::Hasher;
use std::time::Instant;

const USAGE: &str = "usage: parse_bench FILE [--repeat N] [--chunk BYTES] [--digest]";

fn parse_bytes(bytes: &[u8], chunk_bytes: usize) -> ParsedTrace {
    let mut parser = Parser::new();
    for chunk in bytes.chunks(chunk_bytes) {
        parser.feed_bytes(chunk);
    }
    parser.finish()
}

/// Feeds `Debug` text to a hasher without holding it.
struct HashWriter(std::collections::hash_map::DefaultHasher);

impl std::fmt::Write for HashWriter {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.0.write(text.as_bytes());
        Ok(())
    }
}

fn digest(parsed: &ParsedTrace) -> u64 {
    use std::fmt::Write;
    let mut writer = HashWriter(Default::default());
    write!(writer, "{parsed:?}").expect("hashing never fails");
    writer.0.finish()
}

/// "label: N MB in S s, X MB/s (median of K; min..max)".
fn print_rates(label: &str, bytes: usize, seconds: &mut [f64]) {
    seconds.sort_by(f64::total_cmp);
    let mb = bytes as f64 / 1e6;
    let median = seconds[seconds.len() / 2];
    let fastest = seconds[0];
    let slowest = seconds[seconds.len() - 1];
    println!(
        "{label}: {mb:.0} MB in {median:.3} s, {:.0} MB/s (median of {}; {:.0}..{:.0})",
        mb / median,
        seconds.len(),
        mb / slowest,
        mb / fastest,
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut repeat = 5usize;
    let mut chunk_bytes = 1 << 20;
    let mut want_digest = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|value| value.parse().ok())
                    .filter(|&value| value > 0)
                    .expect("--repeat takes a positive number");
            }
            "--chunk" => {
                chunk_bytes = args
                    .next()
                    .and_then(|value| value.parse().ok())
                    .filter(|&value| value > 0)
                    .expect("--chunk takes a positive number of bytes");
            }
            "--digest" => want_digest = true,
            _ if file.is_none() => file = Some(arg),
            _ => panic!("{USAGE}"),
        }
    }
    let file = file.expect(USAGE);
    let bytes = std::fs::read(&file).unwrap_or_else(|err| panic!("{file}: {err}"));

    let mut parse_seconds = Vec::with_capacity(repeat);
    let mut both_seconds = Vec::with_capacity(repeat);
    let mut events = 0;
    let mut last = None;
    for _ in 0..repeat {
        let start = Instant::now();
        let parsed = parse_bytes(&bytes, chunk_bytes);
        parse_seconds.push(start.elapsed().as_secs_f64());
        drop(parsed);

        let start = Instant::now();
        let parsed = parse_bytes(&bytes, chunk_bytes);
        let metrics = replay(&parsed, None);
        both_seconds.push(start.elapsed().as_secs_f64());
        events = parsed.events.len();
        std::hint::black_box(&metrics);
        last = Some(parsed);
    }
    println!("{file}: {} bytes, {events} events", bytes.len());
    print_rates("parse", bytes.len(), &mut parse_seconds);
    print_rates("parse+replay", bytes.len(), &mut both_seconds);
    if want_digest {
        let parsed = last.expect("at least one repeat");
        println!("digest: {:016x}", digest(&parsed));
    }
}
