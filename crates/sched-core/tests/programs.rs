//! Behaviour-program steps whose timing is their point: a spin on the clock against
//! a run of work, and a wake walk that wakes one waiter per syscall.

use crate::common;

use common::{preset, run, scenario, tasks};
use sched_core::behaviour::{Dist, Op};
use sched_core::workload::WorkloadSpec;

/// Two tasks pinned to CPU 0, each doing `step` once and exiting: when the run ends.
fn two_on_one_cpu(step: Op) -> u64 {
    let mut scenario = scenario(
        preset("teaching-small"),
        vec![tasks("t", 2, Some("0"), 0, vec![step])],
        1_000,
        1,
    );
    scenario.background.enabled = false;
    run(&scenario).sim_time_ns
}

#[test]
fn a_spin_on_the_clock_ends_at_its_deadline_while_work_waits_for_the_cpu() {
    let ms50 = Dist::fixed_us(50_000.0);
    // Two 50 ms runs of work on one CPU take 100 ms between them.
    let work = two_on_one_cpu(Op::Run {
        duration: ms50,
        memory_bound: false,
    });
    // Two 50 ms spins sharing the CPU: the second starts its clock at its first
    // slice (12 ms of a 24 ms period on 8 CPUs, seen at the 4 ms tick: 16 ms in),
    // and both end by 66 ms. Time spent waiting for the CPU counts, as
    // gettimeofday sees it.
    let spin = two_on_one_cpu(Op::Spin { duration: ms50 });
    assert!(work >= 100_000_000, "two 50 ms runs ended at {work} ns");
    assert!(
        (50_000_000..70_000_000).contains(&spin),
        "two 50 ms spins ended at {spin} ns"
    );
}

/// A 100 ms run on the teaching machine, without background tasks, of the tasks of
/// `recorded` and of `other` as one workload, so that they share its channels; only
/// `recorded`'s wakeups count as latency samples.
fn sharing_channels(recorded: WorkloadSpec, other: WorkloadSpec) -> sched_core::scenario::Scenario {
    let (WorkloadSpec::Tasks(mut spec), WorkloadSpec::Tasks(other)) = (recorded, other) else {
        unreachable!()
    };
    let first_other = spec.tasks.len();
    spec.tasks.extend(other.tasks);
    for plan in &mut spec.tasks[first_other..] {
        plan.record_latency = false;
    }
    let mut scenario = scenario(
        preset("teaching-small"),
        vec![WorkloadSpec::Tasks(spec)],
        100,
        1,
    );
    scenario.background.enabled = false;
    scenario
}

/// One waker and four waiters on an idle 8-CPU machine: the waker runs 1 ms (the
/// waiters block meanwhile), wakes them with `wake`, and exits; the waiters exit
/// when woken. Returns the spread of the waiters' wakeup latencies, in us.
fn latency_spread(wake: Op) -> f64 {
    let waiter = vec![Op::Wait {
        channel: "list".into(),
    }];
    let waker = vec![
        Op::Run {
            duration: Dist::fixed_us(1_000.0),
            memory_bound: false,
        },
        wake,
    ];
    let scenario = sharing_channels(
        tasks("waiter", 4, None, 0, waiter),
        tasks("waker", 1, None, 0, waker),
    );
    let latency = run(&scenario).wakeup_latency_us;
    assert_eq!(latency.samples, 4, "{latency:?}");
    latency.max - latency.min
}

#[test]
fn a_wake_walk_adds_one_syscall_per_waiter_to_the_latency_of_the_next() {
    // All at once: every waiter waits the same idle-exit time.
    let together = latency_spread(Op::WakeAll {
        channel: "list".into(),
    });
    // One 5 us wake after another, timed from the walk's start: the last waiter
    // woken waits three wakes longer than the first.
    let walk = latency_spread(Op::WakeEach {
        channel: "list".into(),
        each: Dist::fixed_us(5.0),
    });
    assert!(together < 1.0, "WakeAll spread {together} us");
    assert!((15.0..17.0).contains(&walk), "WakeEach spread {walk} us");
}

#[test]
fn an_endless_loop_of_spins_shorter_than_a_nanosecond_still_takes_time() {
    // Valid (the duration is above 0), but each draw rounds to 0 ns: the same guard
    // as a run's makes it take time, so the run reaches its end.
    let spin = Op::Spin {
        duration: Dist::fixed_us(0.0005),
    };
    let program = vec![Op::Loop {
        count: None,
        body: vec![spin],
    }];
    let mut scenario = scenario(
        preset("teaching-small"),
        vec![tasks("t", 1, None, 0, program)],
        2,
        1,
    );
    scenario.background.enabled = false;
    assert_eq!(run(&scenario).sim_time_ns, 2_000_000);
}

/// A task that enlists on a list, works `enlisted_us`, then awaits; another, on
/// another CPU, works `poster_us` and posts the list. Returns the run's wakeups
/// and the enlisted task's one latency sample, in us.
fn enlist_then_post(enlisted_us: f64, poster_us: f64) -> (u64, f64) {
    let work = |us: f64| Op::Run {
        duration: Dist::fixed_us(us),
        memory_bound: false,
    };
    let enlisted = vec![
        Op::Enlist {
            channel: "word".into(),
        },
        work(enlisted_us),
        Op::Await,
    ];
    let poster = vec![
        work(poster_us),
        Op::Post {
            channel: "word".into(),
            count: 1,
            sync: false,
        },
    ];
    let scenario = sharing_channels(
        tasks("enlisted", 1, Some("1"), 0, enlisted),
        tasks("poster", 1, Some("2"), 0, poster),
    );
    let summary = run(&scenario);
    assert_eq!(summary.wakeup_latency_us.samples, 1, "{summary:?}");
    (summary.wakeups, summary.wakeup_latency_us.max)
}

#[test]
fn a_post_that_comes_before_the_await_sets_the_word_and_nobody_sleeps() {
    // The post comes 200 us before the await: no wakeup at all, and the latency
    // schbench would read is the time from the post to the await.
    let (wakeups, latency) = enlist_then_post(300.0, 100.0);
    assert_eq!(wakeups, 0);
    assert!((199.0..201.0).contains(&latency), "latency {latency} us");
    // The post comes after the await: the task slept on its word and is woken.
    let (wakeups, latency) = enlist_then_post(100.0, 300.0);
    assert_eq!(wakeups, 1);
    assert!(latency < 100.0, "latency {latency} us");
}

#[test]
fn an_enlist_takes_a_token_kept_from_an_earlier_post() {
    // The poster posts at 0 with nobody listed, so the channel keeps the token; the
    // other enlists 100 us later and must not sleep on a wake that already came.
    let post = Op::Post {
        channel: "word".into(),
        count: 1,
        sync: false,
    };
    let late = vec![
        Op::Run {
            duration: Dist::fixed_us(100.0),
            memory_bound: false,
        },
        Op::Enlist {
            channel: "word".into(),
        },
        Op::Await,
    ];
    let scenario = sharing_channels(
        tasks("late", 1, Some("1"), 0, late),
        tasks("poster", 1, Some("2"), 0, vec![post]),
    );
    let summary = run(&scenario);
    assert_eq!(summary.wakeups, 0);
    // Both ran to their end: the late task did not stay blocked.
    assert!(
        summary.sim_time_ns < 1_000_000,
        "ended at {} ns",
        summary.sim_time_ns
    );
}

/// A writer pinned to `writer` posts 10 messages 20 us apart to a reader pinned to
/// `reader`, which first works `reader_delay_us` (so the early messages wait as
/// kept tokens) and then takes them one by one. Returns the refill the run charged
/// and its trace hash.
fn messages(writer: &str, reader: &str, lines: Option<u32>, reader_delay_us: f64) -> (u64, String) {
    let work = |us: f64| Op::Run {
        duration: Dist::fixed_us(us),
        memory_bound: false,
    };
    let channel = || "m".to_string();
    let writes = vec![Op::Loop {
        count: Some(10),
        body: vec![
            work(20.0),
            Op::Post {
                channel: channel(),
                count: 1,
                sync: true,
            },
        ],
    }];
    let reads = vec![
        work(reader_delay_us),
        Op::Loop {
            count: Some(10),
            body: vec![Op::Wait { channel: channel() }, work(5.0)],
        },
    ];
    let mut scenario = sharing_channels(
        tasks("reader", 1, Some(reader), 0, reads),
        tasks("writer", 1, Some(writer), 0, writes),
    );
    scenario.costs.message_lines = lines;
    let sim = common::run_sim(&scenario);
    (sim.summary("test").cache_refill_ns, sim.trace.hash_hex())
}

#[test]
fn a_message_read_on_another_cpu_costs_its_lines_at_the_distance_they_travel() {
    // teaching-small: CPUs 0 and 1 are SMT siblings, 0-3 one LLC, 4-7 the other.
    // Eight lines a message: a lock line's bounce each (40 ns within the LLC, 120 ns
    // across), nothing between siblings, whether the reader was woken by the post
    // (no delay) or took a token kept while it worked (a 300 us delay).
    for delay in [0.0, 300.0] {
        assert_eq!(
            messages("0", "1", Some(8), delay).0,
            0,
            "siblings, delay {delay}"
        );
        assert_eq!(
            messages("0", "2", Some(8), delay).0,
            10 * 8 * 40,
            "same LLC, delay {delay}"
        );
        assert_eq!(
            messages("0", "4", Some(8), delay).0,
            10 * 8 * 120,
            "other LLC, delay {delay}"
        );
    }
    // Free by default: no lines, the same run as with none set.
    let (refill, hash) = messages("0", "4", Some(0), 0.0);
    assert_eq!(refill, 0);
    assert_eq!(hash, messages("0", "4", None, 0.0).1);
    assert_ne!(
        hash,
        messages("0", "4", Some(8), 0.0).1,
        "the lines cost the reader time"
    );
}
