//! Arbitrary bytes through the streaming ftrace parser, split into chunks whose size
//! the input's first byte gives, then the replay and the derived workload.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sched_core::replay::{derive_workload, parse, replay, Parser, MAX_LINE_BYTES};

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else {
        return;
    };
    // 0 feeds everything at once; otherwise chunks of 1-255 bytes.
    let chunk = if first == 0 {
        bytes.len().max(1)
    } else {
        usize::from(first)
    };
    let mut parser = Parser::new();
    for piece in bytes.chunks(chunk) {
        parser.feed_bytes(piece);
        // A held line, plus at most twice a line's bytes not yet read.
        assert!(
            parser.buffered_bytes() <= 3 * MAX_LINE_BYTES,
            "{} bytes held",
            parser.buffered_bytes()
        );
    }
    let parsed = parser.finish();
    let report = &parsed.report;
    assert_eq!(
        report.lines,
        report.skipped_total() + report.events_total(),
        "every line is either an event or skipped for a reason"
    );
    assert_eq!(
        parsed,
        parse(&String::from_utf8_lossy(bytes)),
        "chunked bytes read as the whole text"
    );
    replay(&parsed, None);
    let workload = derive_workload(&parsed);
    assert!(workload.span_ns <= report.max_ts_ns.unwrap_or(0));
});
