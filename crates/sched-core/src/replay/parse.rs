//! Reading scheduler trace text as users paste it: the kernel's `trace` file (with or
//! without the TGID column and the irq-info flags), `trace-cmd report` (default and
//! `-R`), `perf script`, `ftrace_dump` console output, Android systrace wrappers and
//! mail quoting. See `docs/replay.md` and `/work/shared/design/FTRACE.md`.
//!
//! Nothing here is fatal: a line that is not a scheduler event is skipped and counted
//! by reason, and the parse always ends with a [`ParseReport`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

mod quick;

/// A task name (or an exec'd file name) as the log gives it. A log repeats the same
/// few names millions of times, so the parser keeps one shared copy of each.
pub type Comm = Arc<str>;

/// Lines longer than this are skipped unread (a 10 MB line of minified JavaScript in
/// a systrace file, binary garbage without newlines).
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// CPU numbers at or above this are taken as garbage (the kernel's `NR_CPUS` limit).
pub const MAX_CPUS: u32 = 8192;
/// How many line numbers each skip reason remembers.
pub const FIRST_LINES_KEPT: usize = 5;
/// How many warnings are kept; the rest are only counted.
pub const WARNINGS_KEPT: usize = 50;
/// The header (task, pid, TGID, CPU, flags, timestamp) sits within this many bytes of
/// the line's start.
const HEADER_SEARCH_BYTES: usize = 512;

/// The scheduler events the replay uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventKind {
    SchedSwitch,
    SchedWakeup,
    SchedWakeupNew,
    SchedWaking,
    SchedMigrateTask,
    SchedProcessFork,
    SchedProcessExec,
    SchedProcessExit,
    /// The runtime the kernel charged a task (`update_curr`).
    SchedStatRuntime,
    /// A CPU's frequency changed (cpufreq).
    CpuFrequency,
    /// A CPU entered an idle state or left idle (cpuidle).
    CpuIdle,
}

impl EventKind {
    pub const ALL: [EventKind; 11] = [
        EventKind::SchedSwitch,
        EventKind::SchedWakeup,
        EventKind::SchedWakeupNew,
        EventKind::SchedWaking,
        EventKind::SchedMigrateTask,
        EventKind::SchedProcessFork,
        EventKind::SchedProcessExec,
        EventKind::SchedProcessExit,
        EventKind::SchedStatRuntime,
        EventKind::CpuFrequency,
        EventKind::CpuIdle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EventKind::SchedSwitch => "sched_switch",
            EventKind::SchedWakeup => "sched_wakeup",
            EventKind::SchedWakeupNew => "sched_wakeup_new",
            EventKind::SchedWaking => "sched_waking",
            EventKind::SchedMigrateTask => "sched_migrate_task",
            EventKind::SchedProcessFork => "sched_process_fork",
            EventKind::SchedProcessExec => "sched_process_exec",
            EventKind::SchedProcessExit => "sched_process_exit",
            EventKind::SchedStatRuntime => "sched_stat_runtime",
            EventKind::CpuFrequency => "cpu_frequency",
            EventKind::CpuIdle => "cpu_idle",
        }
    }

    pub fn from_name(name: &str) -> Option<EventKind> {
        Some(match name {
            "sched_switch" => EventKind::SchedSwitch,
            "sched_wakeup" => EventKind::SchedWakeup,
            "sched_wakeup_new" => EventKind::SchedWakeupNew,
            "sched_waking" => EventKind::SchedWaking,
            "sched_migrate_task" => EventKind::SchedMigrateTask,
            "sched_process_fork" => EventKind::SchedProcessFork,
            "sched_process_exec" => EventKind::SchedProcessExec,
            "sched_process_exit" => EventKind::SchedProcessExit,
            "sched_stat_runtime" => EventKind::SchedStatRuntime,
            "cpu_frequency" => EventKind::CpuFrequency,
            "cpu_idle" => EventKind::CpuIdle,
            _ => return None,
        })
    }
}

/// The switched-out task's state, from `prev_state` (letters, or a number with
/// `trace-cmd report -R`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrevState {
    /// `R`: runnable (no state bit set). trace-cmd's short form prints a preempted
    /// task as `R` too.
    Runnable,
    /// `R+`: preempted.
    Preempted,
    /// `S`, `D`, `T`, `t`, `I`, `P`, `W`, `K` and their combinations: off the runqueue.
    Blocked,
    /// `X`, `Z`, `x` (2.6.3x), or `64`/`16`/`32` raw: the task is exiting.
    Dead,
    /// No `prev_state`, or one not understood.
    Unknown,
}

impl PrevState {
    /// Whether the task stays on its runqueue after switching out.
    pub fn is_runnable(self) -> bool {
        matches!(self, PrevState::Runnable | PrevState::Preempted)
    }

    /// From the text after `prev_state=` or the short form's state column.
    pub fn parse(text: &str) -> PrevState {
        quick::prev_state(text).unwrap_or_else(|| PrevState::parse_any_form(text))
    }

    /// [`PrevState::parse`] for every form.
    fn parse_any_form(text: &str) -> PrevState {
        let text = text.trim_ws().trim_start_matches('(').trim_end_matches(')');
        if text.is_empty() {
            return PrevState::Unknown;
        }
        if text.bytes().all(|byte| byte.is_ascii_digit()) {
            return match text.parse::<u64>() {
                Ok(0) => PrevState::Runnable,
                // TASK_STATE_MAX / TASK_REPORT_MAX marks preemption: 1024 on 3.x,
                // 4096 on 4.8-4.13, 256 from 4.14.
                Ok(256) | Ok(1024) | Ok(4096) => PrevState::Preempted,
                Ok(16) | Ok(32) | Ok(64) => PrevState::Dead,
                Ok(_) => PrevState::Blocked,
                Err(_) => PrevState::Unknown,
            };
        }
        match text {
            "R" => PrevState::Runnable,
            "R+" => PrevState::Preempted,
            _ => {
                let letters_ok = text.bytes().all(|byte| b"SDTtXZxKWPIN|+".contains(&byte));
                if !letters_ok {
                    PrevState::Unknown
                } else if text.contains(['X', 'Z', 'x']) {
                    PrevState::Dead
                } else {
                    PrevState::Blocked
                }
            }
        }
    }
}

/// One scheduler event, with the fields the replay needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Nanoseconds (the trace's clock; µs precision for most formats).
    pub ts_ns: u64,
    /// The CPU the event was recorded on.
    pub cpu: u32,
    /// The task current on `cpu` per the line's header (0 = idle). `perf script`
    /// prints a tid that can be from inside a PID namespace.
    pub ctx_pid: u32,
    /// 1-based line number in the input.
    pub line: u64,
    pub data: EventData,
}

impl Event {
    pub fn kind(&self) -> EventKind {
        match &self.data {
            EventData::Switch { .. } => EventKind::SchedSwitch,
            EventData::Wakeup { kind, .. } => *kind,
            EventData::MigrateTask { .. } => EventKind::SchedMigrateTask,
            EventData::ProcessFork { .. } => EventKind::SchedProcessFork,
            EventData::ProcessExec { .. } => EventKind::SchedProcessExec,
            EventData::ProcessExit { .. } => EventKind::SchedProcessExit,
            EventData::StatRuntime { .. } => EventKind::SchedStatRuntime,
            EventData::CpuFrequency { .. } => EventKind::CpuFrequency,
            EventData::CpuIdle { .. } => EventKind::CpuIdle,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum EventData {
    Switch {
        prev_comm: Comm,
        prev_pid: u32,
        prev_prio: Option<i32>,
        prev_state: PrevState,
        next_comm: Comm,
        next_pid: u32,
        next_prio: Option<i32>,
    },
    /// `sched_wakeup`, `sched_wakeup_new` or `sched_waking` (`kind`).
    Wakeup {
        kind: EventKind,
        comm: Comm,
        pid: u32,
        prio: Option<i32>,
        /// `target_cpu=`, the short form's `CPU:005` or 2.6.31's `[5]`; absent in
        /// some forms (the replay then takes the event's CPU).
        target_cpu: Option<u32>,
        /// Before 4.3: `success=0` means the task was already running.
        success: Option<bool>,
    },
    MigrateTask {
        comm: Comm,
        pid: u32,
        prio: Option<i32>,
        orig_cpu: u32,
        dest_cpu: u32,
    },
    ProcessFork {
        comm: Comm,
        pid: u32,
        child_comm: Comm,
        child_pid: u32,
    },
    ProcessExec {
        filename: Comm,
        pid: u32,
        old_pid: Option<u32>,
    },
    ProcessExit {
        comm: Comm,
        pid: u32,
        prio: Option<i32>,
    },
    /// `sched_stat_runtime`: `runtime` ns charged to the task since the last such
    /// event (`vruntime` is gone from 6.8 on).
    StatRuntime {
        comm: Comm,
        pid: u32,
        runtime_ns: u64,
        vruntime_ns: Option<u64>,
    },
    /// `cpu_frequency`: CPU `cpu_id` now runs at `khz`.
    CpuFrequency { khz: u64, cpu_id: u32 },
    /// `cpu_idle`: CPU `cpu_id` entered idle state `state` (an index into the
    /// cpuidle driver's states, 0 the shallowest), or left idle (`None`: the
    /// kernel's `PWR_EVENT_EXIT`, printed as 4294967295 or -1).
    CpuIdle { state: Option<u32>, cpu_id: u32 },
}

/// Why a line was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    Blank,
    /// `#` lines, `trace-cmd report`'s `version = 6`, `cpus=N`, `CPU N is empty`.
    Header,
    /// `CPU:N [LOST M EVENTS]` (also a warning).
    LostEvents,
    /// `##### CPU N buffer started ####`.
    BufferStarted,
    /// `<stack trace>` and its ` => frame` lines.
    StackTrace,
    /// Function-tracer lines (`func+0x14/0x1acc <-caller+0xc0/0x41c`).
    FunctionTracer,
    /// `tracing_mark_write:` / `print:` app markers.
    Marker,
    /// Another event (`sched_stat_runtime`, `cpu_idle`, `irq_handler_entry`, ...):
    /// counted by name in [`ParseReport::other_events`].
    OtherEvent,
    /// HTML, JavaScript and JSON around systrace text.
    Markup,
    /// Kernel log lines around an `ftrace_dump` (`Dumping ftrace buffer:`, `-----`).
    KernelLog,
    /// `***`, `...` and similar annotations between pasted events.
    Annotation,
    /// A scheduler event whose payload could not be read (wrapped or cut lines).
    BadPayload,
    /// The wrapped rest of the line before it, read joined to that line.
    Continuation,
    /// Longer than [`MAX_LINE_BYTES`].
    TooLong,
    Unrecognised,
}

impl SkipReason {
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Blank => "blank",
            SkipReason::Header => "header",
            SkipReason::LostEvents => "lost_events",
            SkipReason::BufferStarted => "buffer_started",
            SkipReason::StackTrace => "stack_trace",
            SkipReason::FunctionTracer => "function_tracer",
            SkipReason::Marker => "marker",
            SkipReason::OtherEvent => "other_event",
            SkipReason::Markup => "markup",
            SkipReason::KernelLog => "kernel_log",
            SkipReason::Annotation => "annotation",
            SkipReason::BadPayload => "bad_payload",
            SkipReason::Continuation => "continuation",
            SkipReason::TooLong => "too_long",
            SkipReason::Unrecognised => "unrecognised",
        }
    }

    /// The reason in words, for messages (`name` is the `--json` key).
    pub fn label(self) -> &'static str {
        match self {
            SkipReason::Blank => "blank lines",
            SkipReason::Header => "headers",
            SkipReason::LostEvents => "lost-event notes",
            SkipReason::BufferStarted => "buffer-start notes",
            SkipReason::StackTrace => "stack traces",
            SkipReason::FunctionTracer => "function-tracer lines",
            SkipReason::Marker => "trace markers",
            SkipReason::OtherEvent => "other events",
            SkipReason::Markup => "HTML markup",
            SkipReason::KernelLog => "kernel log lines",
            SkipReason::Annotation => "annotations",
            SkipReason::BadPayload => "scheduler events that could not be read",
            SkipReason::Continuation => "continued lines",
            SkipReason::TooLong => "lines too long to read",
            SkipReason::Unrecognised => "lines that are not trace events",
        }
    }

    /// `count` of them in words: "1 header", "2 lines that are not trace events".
    pub fn counted(self, count: u64) -> String {
        if count != 1 {
            return format!("{count} {}", self.label());
        }
        let one = match self {
            SkipReason::Blank => "blank line",
            SkipReason::Header => "header",
            SkipReason::LostEvents => "lost-event note",
            SkipReason::BufferStarted => "buffer-start note",
            SkipReason::StackTrace => "stack trace",
            SkipReason::FunctionTracer => "function-tracer line",
            SkipReason::Marker => "trace marker",
            SkipReason::OtherEvent => "other event",
            SkipReason::Markup => "line of HTML markup",
            SkipReason::KernelLog => "kernel log line",
            SkipReason::Annotation => "annotation",
            SkipReason::BadPayload => "scheduler event that could not be read",
            SkipReason::Continuation => "continued line",
            SkipReason::TooLong => "line too long to read",
            SkipReason::Unrecognised => "line that is not a trace event",
        };
        format!("1 {one}")
    }
}

/// How many lines were skipped for one reason, and the first few line numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkipCount {
    pub count: u64,
    pub first_lines: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// 1-based line number, when the warning concerns one line.
    pub line: Option<u64>,
    pub message: String,
}

/// What the parse saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParseReport {
    /// Line layouts (`ftrace`, `ftrace-tgid`, `trace-cmd`, `trace-cmd-raw`, `perf`,
    /// `ftrace_dump`) by the number of event lines in each.
    pub formats: BTreeMap<String, u64>,
    /// Containers the text was found in: `mail-quote`, `systrace-html`,
    /// `systrace-legacy`, `dmesg`.
    pub wrappers: BTreeSet<String>,
    pub lines: u64,
    /// Scheduler events read, by event name.
    pub events: BTreeMap<&'static str, u64>,
    /// Other events seen (skipped as `other_event`), by event name.
    pub other_events: BTreeMap<String, u64>,
    pub skipped: BTreeMap<SkipReason, SkipCount>,
    pub warnings: Vec<Warning>,
    /// Warnings beyond [`WARNINGS_KEPT`], counted only.
    pub warnings_dropped: u64,
    /// `CPU:N [LOST M EVENTS]`: the sum of M.
    pub lost_events: u64,
    pub cpus: BTreeSet<u32>,
    /// pid → the last comm seen for it (`<...>` never replaces a known comm); pid 0
    /// (the idle tasks) is left out.
    pub tasks: BTreeMap<u32, String>,
    /// Seconds: the timestamps of the first and last event lines in file order.
    pub first_ts: Option<f64>,
    pub last_ts: Option<f64>,
    /// Events whose timestamp is below an earlier line's (they are sorted).
    pub out_of_order: u64,
    /// Nanoseconds: the earliest and latest timestamps of any event line (other
    /// events included), the span the replay measures utilisation over.
    pub min_ts_ns: Option<u64>,
    pub max_ts_ns: Option<u64>,
    /// The machine's CPU count, when a header gives it: `#P:N` in the trace file's
    /// `# entries-in-buffer` line, `cpus=N` in `trace-cmd report`'s.
    pub machine_cpus: Option<u32>,
}

impl ParseReport {
    /// The main layout: the one with the most event lines (`unknown` with none).
    pub fn format(&self) -> String {
        self.formats
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(name, _)| name.clone())
            .unwrap_or_else(|| "unknown".to_string())
    }

    /// Scheduler events read, all kinds together.
    pub fn events_total(&self) -> u64 {
        self.events.values().sum()
    }

    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().map(|skip| skip.count).sum()
    }

    /// Why a log with no scheduler event cannot be replayed, naming `source`, its
    /// lines and what they were instead; `None` when it has an event to replay.
    pub fn nothing_to_replay(&self, source: &str) -> Option<String> {
        if self.events_total() > 0 {
            return None;
        }
        if self.lines == 0 {
            return Some(format!(
                "{source} is empty: there is no ftrace line to replay"
            ));
        }
        let unreadable = self.skipped.get(&SkipReason::BadPayload);
        // What the other lines were; the unreadable events have a sentence of their own.
        let mut what: Vec<String> = self
            .skipped
            .iter()
            .filter(|(reason, _)| !matches!(reason, SkipReason::Blank | SkipReason::BadPayload))
            .map(|(reason, skip)| {
                let lines: Vec<String> = skip.first_lines.iter().map(u64::to_string).collect();
                let at = if lines.len() == 1 { "line" } else { "lines" };
                format!("{} ({at} {})", reason.counted(skip.count), lines.join(", "))
            })
            .collect();
        if what.is_empty() && unreadable.is_none() {
            what.push("only blank lines".to_string());
        }
        let mut message = match unreadable {
            Some(unreadable) => {
                // The first unreadable line's warning says what is wrong with it.
                let first_line = unreadable.first_lines.first().copied();
                let why = first_line.and_then(|line| {
                    self.warnings
                        .iter()
                        .find(|warning| warning.line == Some(line))
                        .map(|warning| warning.message.clone())
                });
                let about = match (unreadable.count, first_line, why) {
                    (1, Some(line), Some(why)) => format!(
                        "Line {line} is a scheduler event whose fields could not be read: {why}."
                    ),
                    (count, Some(line), Some(why)) => format!(
                        "{count} lines are scheduler events whose fields could not be read; the \
                         first, line {line}: {why}."
                    ),
                    (count, _, _) => format!(
                        "{} whose fields could not be read.",
                        if count == 1 {
                            "1 line is a scheduler event".to_string()
                        } else {
                            format!("{count} lines are scheduler events")
                        }
                    ),
                };
                format!(
                    "{source}: none of its {} lines is a scheduler event that could be read, so \
                     there is nothing to replay. {about}",
                    self.lines
                )
            }
            None => format!(
                "{source}: none of its {} lines is a scheduler event (sched_switch, \
                 sched_wakeup, sched_waking, sched_wakeup_new, sched_migrate_task, ...), so \
                 there is nothing to replay.",
                self.lines
            ),
        };
        if !what.is_empty() {
            let lead = if unreadable.is_some() {
                "The others"
            } else {
                "Its lines"
            };
            message.push_str(&format!(" {lead}: {}.", what.join("; ")));
        }
        message.push_str(
            " The text of an ftrace buffer (/sys/kernel/tracing/trace or trace_pipe, or the \
             output of trace-cmd report) is what replays.",
        );
        Some(message)
    }
}

/// The parse result: events sorted by time (stable) and the report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedTrace {
    pub events: Vec<Event>,
    pub report: ParseReport,
}

/// Parses a whole text.
pub fn parse(text: &str) -> ParsedTrace {
    let mut parser = Parser::new();
    parser.feed(text);
    parser.finish()
}

/// The streaming parser: `feed` chunks of text (split anywhere), then `finish`.
#[derive(Debug, Default)]
pub struct Parser {
    pending: String,
    /// The pending line grew past [`MAX_LINE_BYTES`]: drop it up to its newline.
    overflow: bool,
    events: Vec<Event>,
    report: ParseReport,
    max_ts: u64,
    first_out_of_order: Option<u64>,
    /// Each CPU's latest event time and its line (index: CPU), to tell a clock that
    /// went back on one CPU (or two logs pasted together) from the usual order across
    /// CPUs.
    cpu_last_ts: Vec<(u64, u64)>,
    /// Events earlier than the one before them on their own CPU: how many, and the
    /// first's line, CPU, and the line and time it is earlier than.
    same_cpu_backwards: u64,
    first_same_cpu_backwards: Option<(u64, u32, u64, u64)>,
    /// `perf script` headers' tids and comms, named as tasks only at `finish`: a
    /// header tid can be from inside a PID namespace.
    perf_header_tasks: HashMap<u32, String>,
    /// A header tid's pid, learnt from `perf script` switches (the header of a
    /// switch names its previous task): None when two switches disagree.
    perf_tid_pid: HashMap<u32, Option<u32>>,
    html: bool,
    in_script: ScriptBlock,
    legacy: bool,
    /// Evidence that flagless lines come from `trace-cmd report`.
    trace_cmd_hint: bool,
    /// A numeric `prev_state` was seen: `trace-cmd report -R`.
    trace_cmd_raw: bool,
    flagless_lines: u64,
    /// The previous line, held back one line in case the next one continues it (a
    /// line wrapped by a mail client): its number and text.
    held: Option<(u64, String)>,
    /// A line buffer to reuse, so holding a line back allocates nothing.
    spare: String,
    /// The line being handled (for the skip counts).
    current_line: u64,
    /// Bytes given to [`Parser::feed_bytes`] after its last newline: the start of a
    /// line, whose characters may be split between chunks.
    carry: Vec<u8>,
    /// Counts and sets kept in cheaper forms while reading, moved into the report by
    /// `finish`: event lines by layout (as [`LAYOUT_NAMES`]), events by kind (as
    /// [`EventKind::ALL`]), CPUs below [`MAX_CPUS`] (a bit each) and the tasks.
    layout_counts: [u64; LAYOUT_NAMES.len()],
    event_counts: [u64; EventKind::ALL.len()],
    cpu_bits: Vec<u64>,
    tasks: Names,
    /// The timestamps of the first and last event lines, in seconds at `finish`.
    first_ts_ns: Option<u64>,
    last_ts_ns: Option<u64>,
}

/// The layouts an event line is counted under while reading (the flagless lines
/// whose layout depends on the whole file are counted apart).
const LAYOUT_NAMES: [&str; 5] = ["ftrace", "ftrace-tgid", "perf", "ftrace_dump", "trace-cmd"];

/// A hasher for pids: one multiplication (the table uses the high bits).
#[derive(Default)]
struct PidHasher(u64);

impl Hasher for PidHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u32(&mut self, value: u32) {
        self.0 = (self.0 ^ u64::from(value)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Each task's last name read, by pid: the table [`ParseReport::tasks`] is made of,
/// and where an event's name is looked up first, so that a name repeated line after
/// line is one shared copy ([`Comm`]). A log's lines look it up several times each,
/// so pids below [`SMALL_PIDS`] (most pids of most logs) index a vector, and only
/// the others are hashed.
#[derive(Debug, Default)]
struct Names {
    small: Vec<Option<Comm>>,
    large: HashMap<u32, Comm, BuildHasherDefault<PidHasher>>,
}

/// Pids below this are kept in [`Names`]'s vector (at most 1 MiB of it).
const SMALL_PIDS: u32 = 1 << 16;

impl Names {
    #[inline]
    fn get(&self, pid: u32) -> Option<&Comm> {
        if pid < SMALL_PIDS {
            self.small.get(pid as usize)?.as_ref()
        } else {
            self.large.get(&pid)
        }
    }

    #[inline]
    fn get_mut(&mut self, pid: u32) -> Option<&mut Comm> {
        if pid < SMALL_PIDS {
            self.small.get_mut(pid as usize)?.as_mut()
        } else {
            self.large.get_mut(&pid)
        }
    }

    fn insert(&mut self, pid: u32, comm: Comm) {
        if pid < SMALL_PIDS {
            let at = pid as usize;
            if at >= self.small.len() {
                self.small.resize(at + 1, None);
            }
            self.small[at] = Some(comm);
        } else {
            self.large.insert(pid, comm);
        }
    }

    /// Every pid and its name, the table left empty.
    fn drain(&mut self) -> impl Iterator<Item = (u32, Comm)> + '_ {
        let small = std::mem::take(&mut self.small);
        let small = small
            .into_iter()
            .enumerate()
            .filter_map(|(pid, comm)| Some((pid as u32, comm?)));
        small.chain(self.large.drain())
    }
}

/// `a == b`, quicker for the short texts names are: two word loads each instead of
/// a call to `memcmp` (a byte loop in WebAssembly).
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let len = a.len();
    if len != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| {
        u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    let half = |bytes: &[u8], at: usize| {
        u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
    };
    match len {
        // The first and last words overlap in the middle.
        8..=16 => word(a, 0) == word(b, 0) && word(a, len - 8) == word(b, len - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4),
        _ => a == b,
    }
}

/// `comm` for `pid`: the task's known name when it is the same text, else a new copy.
fn name_of(names: &Names, pid: u32, comm: &str) -> Comm {
    match names.get(pid) {
        Some(known) if same_text(known, comm) => known.clone(),
        _ => Comm::from(comm),
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ScriptBlock {
    #[default]
    Outside,
    /// Just after `<script class="trace-data" ...>`: the first line tells text from JSON.
    Start,
    Text,
    Json,
}

/// The parsed header and the event name, borrowed from the line.
#[derive(Debug, PartialEq)]
struct Head<'a> {
    comm: &'a str,
    pid: u32,
    cpu: u32,
    ts_ns: u64,
    layout: Layout,
    name: &'a str,
    /// Spaces between the event name's colon and the payload.
    pad: usize,
    payload: &'a str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// `trace` file with irq-info flags.
    Ftrace,
    FtraceTgid,
    /// No flags: `trace-cmd report` or `trace` without irq-info.
    Flagless,
    Perf,
    Dump,
}

enum Payload {
    Event(EventData, PayloadForm),
    Bad,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PayloadForm {
    KeyValue,
    /// `trace-cmd`'s plugin short forms.
    Short,
    /// 2.6.31's `task comm:pid [prio]` (the kernel's own text).
    Short2631,
    /// `prev_state` printed as a number (`trace-cmd report -R`).
    RawState,
}

impl Parser {
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Reads a chunk; a line may continue into the next chunk.
    pub fn feed(&mut self, chunk: &str) {
        let mut rest = chunk;
        if self.overflow || !self.pending.is_empty() {
            // The start of a line came with the chunk before: end it first.
            let Some(newline) = memchr::memchr(b'\n', rest.as_bytes()) else {
                self.keep_pending(rest);
                return;
            };
            let piece = &rest[..newline];
            rest = &rest[newline + 1..];
            if self.overflow || self.pending.len() + piece.len() > MAX_LINE_BYTES {
                self.overflow = false;
                self.pending.clear();
                self.too_long_line();
            } else {
                let mut line = std::mem::take(&mut self.pending);
                line.push_str(piece);
                let mut held = None;
                self.push_line(&mut held, &line);
                self.hold(held);
                line.clear();
                self.pending = line;
            }
        }
        // The line held back while it is still in `chunk` (`self.held` is then empty).
        let mut held: Option<(u64, &str)> = None;
        while let Some(newline) = memchr::memchr(b'\n', rest.as_bytes()) {
            let piece = &rest[..newline];
            rest = &rest[newline + 1..];
            if piece.len() > MAX_LINE_BYTES {
                if let Some((held_no, held_text)) = held.take() {
                    self.line(held_no, held_text);
                }
                self.too_long_line();
            } else {
                self.push_line(&mut held, piece);
            }
        }
        self.hold(held);
        self.keep_pending(rest);
    }

    /// Keeps the start of a line, without its newline yet, for the next chunk.
    fn keep_pending(&mut self, rest: &str) {
        if self.overflow {
            return;
        }
        if self.pending.len() + rest.len() > MAX_LINE_BYTES {
            self.overflow = true;
            self.pending.clear();
        } else {
            self.pending.push_str(rest);
        }
    }

    /// Reads a chunk of bytes split anywhere, even inside a character: whole lines are
    /// read as UTF-8 (invalid bytes become U+FFFD, as in `from_utf8_lossy`), the rest
    /// waits for the next chunk. Never holds more than a line's bytes past
    /// [`MAX_LINE_BYTES`].
    pub fn feed_bytes(&mut self, chunk: &[u8]) {
        let Some(last_newline) = memchr::memrchr(b'\n', chunk) else {
            self.carry.extend_from_slice(chunk);
            self.bound_carry();
            return;
        };
        let (mut lines, rest) = chunk.split_at(last_newline + 1);
        if !self.carry.is_empty() {
            // Only the line the carried bytes start is joined; the rest is read in place.
            let first_end = memchr::memchr(b'\n', lines).expect("a newline") + 1;
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(&lines[..first_end]);
            self.feed_lossy(&joined);
            joined.clear();
            self.carry = joined;
            lines = &lines[first_end..];
        }
        self.feed_lossy(lines);
        self.carry.extend_from_slice(rest);
        self.bound_carry();
    }

    /// A carried line start longer than twice [`MAX_LINE_BYTES`] is skipped as too
    /// long anyway: give what there is and keep nothing.
    fn bound_carry(&mut self) {
        if self.carry.len() > 2 * MAX_LINE_BYTES {
            let carry = std::mem::take(&mut self.carry);
            self.feed_lossy(&carry);
        }
    }

    /// Bytes of input held and not yet read: the pending line, the bytes after
    /// [`Parser::feed_bytes`]'s last newline, and the line held back one line.
    pub fn buffered_bytes(&self) -> usize {
        self.pending.len() + self.carry.len() + self.held.as_ref().map_or(0, |(_, text)| text.len())
    }

    /// Feeds bytes as `String::from_utf8_lossy` reads them, copying only from the
    /// first invalid byte on.
    fn feed_lossy(&mut self, bytes: &[u8]) {
        // simdutf8 checks with the target's vector instructions (wasm's simd128 too).
        match simdutf8::compat::from_utf8(bytes) {
            Ok(text) => self.feed(text),
            Err(error) => {
                let (valid, rest) = bytes.split_at(error.valid_up_to());
                self.feed(std::str::from_utf8(valid).expect("valid up to the error"));
                self.feed(&String::from_utf8_lossy(rest));
            }
        }
    }

    /// Reads the last line (if it has no newline), sorts the events and returns them
    /// with the report.
    pub fn finish(mut self) -> ParsedTrace {
        if !self.carry.is_empty() {
            let carry = std::mem::take(&mut self.carry);
            self.feed_lossy(&carry);
        }
        if self.overflow {
            self.too_long_line();
        } else if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            let mut held = None;
            self.push_line(&mut held, &line);
            if let Some((held_no, held_text)) = held {
                self.line(held_no, held_text);
            }
        }
        self.flush_held();
        for (name, &count) in LAYOUT_NAMES.iter().zip(&self.layout_counts) {
            if count > 0 {
                *self.report.formats.entry(name.to_string()).or_default() += count;
            }
        }
        for (kind, &count) in EventKind::ALL.iter().zip(&self.event_counts) {
            if count > 0 {
                *self.report.events.entry(kind.name()).or_default() += count;
            }
        }
        for (word_at, &word) in self.cpu_bits.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let bit = bits.trailing_zeros();
                self.report.cpus.insert(word_at as u32 * 64 + bit);
                bits &= bits - 1;
            }
        }
        self.resolve_perf_tids();
        self.report.tasks.extend(
            self.tasks
                .drain()
                .map(|(pid, comm)| (pid, comm.to_string())),
        );
        self.report.first_ts = self.first_ts_ns.map(|ns| ns as f64 / 1e9);
        self.report.last_ts = self.last_ts_ns.map(|ns| ns as f64 / 1e9);
        if self.flagless_lines > 0 {
            let name = if self.trace_cmd_raw {
                "trace-cmd-raw"
            } else if self.trace_cmd_hint {
                "trace-cmd"
            } else {
                "ftrace"
            };
            *self.report.formats.entry(name.to_string()).or_default() += self.flagless_lines;
        }
        if self.report.out_of_order > 0 {
            let count = self.report.out_of_order;
            let were = if count == 1 { "event is" } else { "events are" };
            let line = self.first_out_of_order;
            match self.first_same_cpu_backwards {
                Some((first, cpu, ahead_line, ahead_ts)) => {
                    let same = self.same_cpu_backwards;
                    // The line it is earlier than: one line far ahead of its CPU's others
                    // (a bad timestamp) shows as every later line going back.
                    let ahead = format!(
                        "line {ahead_line}, at {}.{:06}",
                        ahead_ts / 1_000_000_000,
                        ahead_ts % 1_000_000_000 / 1_000
                    );
                    let which = if count == 1 {
                        format!("1 event is earlier than a line before it on its own CPU (CPU {cpu}, {ahead})")
                    } else {
                        format!("{count} events are earlier than a line before them, {same} of them on their own CPU (the first: CPU {cpu}, earlier than {ahead})")
                    };
                    self.warn(
                        Some(first),
                        format!(
                            "{which}: a clock that went back, a line whose time is wrong, or two logs pasted together? Events were sorted by time, so figures across that point may be wrong"
                        ),
                    );
                }
                None => self.warn(
                    line,
                    format!(
                        "{count} {were} earlier than a line before them (timestamps out of order across CPUs, as per-CPU buffers give them); events were sorted by time"
                    ),
                ),
            }
            self.events.sort_by_key(|event| event.ts_ns);
        }
        ParsedTrace {
            events: self.events,
            report: self.report,
        }
    }

    fn too_long_line(&mut self) {
        self.flush_held();
        self.report.lines += 1;
        self.current_line = self.report.lines;
        self.skip(SkipReason::TooLong);
    }

    fn flush_held(&mut self) {
        if let Some((line_no, text)) = self.held.take() {
            self.line(line_no, &text);
            self.spare = text;
        }
    }

    /// Keeps the line held back in a chunk for the next chunk.
    fn hold(&mut self, held: Option<(u64, &str)>) {
        if let Some((line_no, text)) = held {
            let mut kept = std::mem::take(&mut self.spare);
            kept.clear();
            kept.push_str(text);
            self.held = Some((line_no, kept));
        }
    }

    /// Takes one line: holds it back one line (in `held` while it is in the chunk
    /// being read), joining the next to it when that one is the wrapped rest of a
    /// scheduler event (only `key=value` fields).
    fn push_line<'a>(&mut self, held: &mut Option<(u64, &'a str)>, raw: &'a str) {
        self.report.lines += 1;
        let line_no = self.report.lines;
        if let Some((held_no, held_text)) = held.take() {
            if self.join_continuation(held_no, held_text, line_no, raw) {
                return;
            }
            self.line(held_no, held_text);
        } else if let Some((held_no, held_text)) = self.held.take() {
            let joined = self.join_continuation(held_no, &held_text, line_no, raw);
            if !joined {
                self.line(held_no, &held_text);
            }
            self.spare = held_text;
            if joined {
                return;
            }
        }
        *held = Some((line_no, raw));
    }

    /// When `raw` is the wrapped rest of the held line, reads the two joined and
    /// skips `raw` as a continuation.
    fn join_continuation(
        &mut self,
        held_no: u64,
        held_text: &str,
        line_no: u64,
        raw: &str,
    ) -> bool {
        match continuation(raw) {
            Some(rest)
                if held_text.contains(": sched_")
                    && !held_text
                        .contains(&format!(" {}=", rest.split('=').next().unwrap_or(rest))) =>
            {
                let base = held_text.trim_end_ws();
                let mut joined = String::with_capacity(base.len() + 1 + rest.len());
                joined.push_str(base);
                joined.push(' ');
                joined.push_str(rest);
                self.line(held_no, &joined);
                self.current_line = line_no;
                self.skip(SkipReason::Continuation);
                true
            }
            _ => false,
        }
    }

    fn skip(&mut self, reason: SkipReason) {
        let line = self.current_line;
        let entry = self.report.skipped.entry(reason).or_default();
        entry.count += 1;
        if entry.first_lines.len() < FIRST_LINES_KEPT {
            entry.first_lines.push(line);
        }
    }

    fn warn(&mut self, line: Option<u64>, message: String) {
        if self.report.warnings.len() < WARNINGS_KEPT {
            self.report.warnings.push(Warning { line, message });
        } else {
            self.report.warnings_dropped += 1;
        }
    }

    fn wrapper(&mut self, name: &str) {
        if !self.report.wrappers.contains(name) {
            self.report.wrappers.insert(name.to_string());
        }
    }

    fn note_cpu(&mut self, cpu: u32) {
        if cpu >= MAX_CPUS {
            self.report.cpus.insert(cpu);
            return;
        }
        let word = (cpu / 64) as usize;
        if word >= self.cpu_bits.len() {
            self.cpu_bits.resize(word + 1, 0);
        }
        self.cpu_bits[word] |= 1 << (cpu % 64);
    }

    /// `perf script` headers print a tid that can be from inside a PID namespace
    /// (FTRACE.md): where the log's switches show a header tid standing for another
    /// pid (a switch's header names its previous task), the events' current task is
    /// that pid, and the tid is no task of its own. Other header tids are tasks.
    fn resolve_perf_tids(&mut self) {
        let map: HashMap<u32, u32> = self
            .perf_tid_pid
            .iter()
            .filter_map(|(&tid, &pid)| pid.filter(|&pid| pid != tid).map(|pid| (tid, pid)))
            .collect();
        if !map.is_empty() {
            for event in &mut self.events {
                if let Some(&pid) = map.get(&event.ctx_pid) {
                    event.ctx_pid = pid;
                }
            }
        }
        // A header's task the payloads did not name (the payloads' names are the
        // latest ones of the tasks they name).
        let mut headers: Vec<(u32, String)> = std::mem::take(&mut self.perf_header_tasks)
            .into_iter()
            .filter(|(tid, _)| !map.contains_key(tid) && self.tasks.get(*tid).is_none())
            .collect();
        headers.sort_unstable();
        for (tid, comm) in headers {
            self.note_task(tid, &comm);
        }
    }

    fn note_task(&mut self, pid: u32, comm: &str) {
        let comm = comm.trim_ws();
        if pid == 0 || comm.is_empty() || comm == "<...>" || comm == "<idle>" {
            if pid != 0 && self.tasks.get(pid).is_none() {
                self.tasks.insert(pid, Comm::from("<...>"));
            }
            return;
        }
        match self.tasks.get_mut(pid) {
            Some(known) if same_text(known, comm) => {}
            Some(known) => *known = Comm::from(comm),
            None => {
                self.tasks.insert(pid, Comm::from(comm));
            }
        }
    }

    /// [`Parser::note_task`] for an event's name: nothing to compare when the event
    /// shares the task's known name.
    fn note_task_name(&mut self, pid: u32, comm: &Comm) {
        if !self
            .tasks
            .get(pid)
            .is_some_and(|known| Arc::ptr_eq(known, comm))
        {
            self.note_task(pid, comm);
        }
    }

    /// One line, without its newline.
    fn line(&mut self, line_no: u64, raw: &str) {
        self.current_line = line_no;
        let mut text = raw.strip_suffix('\r').unwrap_or(raw);

        // Legacy systrace: `var linuxPerfData = "\` then lines ending in `\n\`. One
        // look for it and for an HTML comment (`<!-- `, for `html_line`).
        let mut comment = false;
        let bytes = text.as_bytes();
        for found in memchr::memchr2_iter(b'P', b'!', bytes) {
            if bytes[found] == b'P' {
                if found >= 9 && bytes[found - 9..].starts_with(b"var linuxPerfData") {
                    self.legacy = true;
                    self.wrapper("systrace-legacy");
                    self.skip(SkipReason::Markup);
                    return;
                }
            } else if found >= 1 && bytes[found - 1..].starts_with(b"<!-- ") {
                comment = true;
            }
        }
        if let Some(stripped) = text.strip_suffix("\\n\\") {
            text = stripped;
            self.wrapper("systrace-legacy");
        } else if self.legacy && text.trim_start_ws().starts_with('"') {
            self.skip(SkipReason::Markup);
            return;
        }

        // Mail and chat quoting: `> `, `>> `, `> | `. `start` is `text` without its
        // leading whitespace.
        let mut quoted = false;
        let mut start = text.trim_start_ws();
        while let Some(rest) = start.strip_prefix('>') {
            text = rest.strip_prefix(' ').unwrap_or(rest);
            start = text.trim_start_ws();
            quoted = true;
        }
        if quoted {
            self.wrapper("mail-quote");
            if let Some(rest) = start.strip_prefix('|') {
                text = rest.strip_prefix(' ').unwrap_or(rest);
                start = text.trim_start_ws();
            }
        }

        // Systrace HTML: only the text `trace-data` blocks hold trace lines.
        let mut trimmed = start.trim_end_ws();
        if self.html_line(trimmed, comment) {
            return;
        }

        if trimmed.is_empty() {
            self.skip(SkipReason::Blank);
            return;
        }

        // A dmesg prefix `[  123.456789] ` (ftrace_dump on the console).
        let mut dmesg = false;
        if let Some(rest) = strip_dmesg_prefix(trimmed) {
            text = rest;
            dmesg = true;
            self.wrapper("dmesg");
            trimmed = text.trim_ws();
            if trimmed.is_empty() {
                self.skip(SkipReason::Blank);
                return;
            }
        }

        if let Some(reason) = self.line_kind(trimmed, line_no) {
            self.skip(reason);
            return;
        }

        match split_event(text) {
            Some(head) => self.event_line(head, line_no),
            None => {
                let reason = classify_other(trimmed, dmesg);
                // A scheduler event whose head (task-pid, [CPU], time) cannot be read
                // says which part is wrong, as one whose fields cannot be read does.
                if reason == SkipReason::Unrecognised {
                    if let Some((kind, why)) = unreadable_head(trimmed) {
                        self.skip_unreadable(line_no, kind, || why);
                        return;
                    }
                }
                self.skip(reason);
            }
        }
    }

    /// Handles systrace HTML structure; true when the line was consumed. `comment`:
    /// the line may hold `<!-- `.
    fn html_line(&mut self, trimmed: &str, comment: bool) -> bool {
        // Outside any HTML, only a line starting with `<` or holding `<!-- ` can be
        // markup: every other line is not (the usual case, answered at once).
        if !self.html
            && self.in_script == ScriptBlock::Outside
            && !comment
            && !trimmed.starts_with('<')
        {
            return false;
        }
        let lower_start = |prefix: &str| {
            trimmed.len() >= prefix.len()
                && trimmed.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
        };
        if lower_start("<!doctype html") || lower_start("<html") {
            self.html = true;
            self.wrapper("systrace-html");
            self.skip(SkipReason::Markup);
            return true;
        }
        if comment
            && (trimmed.contains("<!-- BEGIN TRACE -->") || trimmed.contains("<!-- END TRACE -->"))
        {
            self.html = true;
            self.wrapper("systrace-html");
            self.skip(SkipReason::Markup);
            return true;
        }
        if lower_start("<script") && trimmed.contains("trace-data") {
            self.html = true;
            self.wrapper("systrace-html");
            self.in_script = ScriptBlock::Start;
            self.skip(SkipReason::Markup);
            return true;
        }
        if self.in_script != ScriptBlock::Outside && lower_start("</script") {
            self.in_script = ScriptBlock::Outside;
            self.skip(SkipReason::Markup);
            return true;
        }
        match self.in_script {
            ScriptBlock::Start if !trimmed.is_empty() => {
                if trimmed.starts_with('{') || trimmed.starts_with('[') {
                    self.in_script = ScriptBlock::Json;
                    self.skip(SkipReason::Markup);
                    return true;
                }
                self.in_script = ScriptBlock::Text;
                false
            }
            ScriptBlock::Json => {
                self.skip(SkipReason::Markup);
                true
            }
            ScriptBlock::Start | ScriptBlock::Text => false,
            ScriptBlock::Outside if self.html && !self.legacy => {
                self.skip(SkipReason::Markup);
                true
            }
            ScriptBlock::Outside => false,
        }
    }

    /// A header's CPU count (the digits `text` starts with), if it is a sane one.
    fn note_machine_cpus(&mut self, text: &str) {
        let digits = text.trim_start();
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        if let Ok(count @ 1..=MAX_CPUS) = digits[..end].parse::<u32>() {
            self.report.machine_cpus = Some(count);
        }
    }

    /// Lines recognised by their start: headers, lost events, stack traces.
    fn line_kind(&mut self, trimmed: &str, line_no: u64) -> Option<SkipReason> {
        // Each kind below starts with one of these (an event line usually does not).
        if !matches!(
            trimmed.as_bytes().first(),
            Some(b'#' | b'C' | b'<' | b'=' | b'v' | b'c')
        ) {
            return None;
        }
        if trimmed.starts_with('#') {
            if trimmed.starts_with("#####") && trimmed.contains("buffer started") {
                return Some(SkipReason::BufferStarted);
            }
            if let Some((_, count)) = trimmed.split_once("#P:") {
                self.note_machine_cpus(count);
            }
            return Some(SkipReason::Header);
        }
        if let Some(rest) = trimmed.strip_prefix("CPU:") {
            if let Some(lost_at) = rest.find("[LOST ") {
                let cpu = leading_u32(rest).map(|(cpu, _)| cpu);
                let count = leading_u64(&rest[lost_at + 6..]).map(|(count, _)| count);
                self.report.lost_events =
                    self.report.lost_events.saturating_add(count.unwrap_or(0));
                let message = match (cpu, count) {
                    (Some(cpu), Some(count)) => format!(
                        "CPU {cpu} lost {count} events here: what the replay rebuilds around this point may be wrong"
                    ),
                    _ => "lost events here: what the replay rebuilds around this point may be wrong".to_string(),
                };
                self.warn(Some(line_no), message);
                return Some(SkipReason::LostEvents);
            }
        }
        if trimmed.starts_with("<stack trace>")
            || trimmed.starts_with("<user stack trace>")
            || trimmed.starts_with("=>")
        {
            return Some(SkipReason::StackTrace);
        }
        if trimmed.starts_with("version =")
            || trimmed.starts_with("cpus=")
            || (trimmed.starts_with("CPU ") && trimmed.ends_with(" is empty"))
        {
            if let Some(count) = trimmed.strip_prefix("cpus=") {
                self.note_machine_cpus(count);
            }
            self.trace_cmd_hint = true;
            return Some(SkipReason::Header);
        }
        None
    }

    /// An event line that is read: its time and CPU count in the report's range
    /// and CPUs (a scheduler event whose fields cannot be read does not).
    fn note_event_line(&mut self, head: &Head<'_>) {
        self.first_ts_ns.get_or_insert(head.ts_ns);
        self.last_ts_ns = Some(head.ts_ns);
        let min = self.report.min_ts_ns.get_or_insert(head.ts_ns);
        *min = (*min).min(head.ts_ns);
        let max = self.report.max_ts_ns.get_or_insert(head.ts_ns);
        *max = (*max).max(head.ts_ns);
        self.note_cpu(head.cpu);
    }

    /// A scheduler event line that cannot be read: the first few say what is wrong
    /// with them; the rest are counted.
    fn skip_unreadable(&mut self, line_no: u64, kind: EventKind, why: impl FnOnce() -> String) {
        if self
            .report
            .skipped
            .get(&SkipReason::BadPayload)
            .is_none_or(|skip| skip.count < FIRST_LINES_KEPT as u64)
        {
            self.warn(
                Some(line_no),
                format!("{} line skipped: {}", kind.name(), why()),
            );
        }
        self.skip(SkipReason::BadPayload);
    }

    fn event_line(&mut self, head: Head<'_>, line_no: u64) {
        // The line's own task names it from here on (the payload's names are read
        // against the table), even when the payload cannot be read; a `perf script`
        // header's tid only at the end, once it is known whether it is a pid.
        if head.layout == Layout::Perf {
            // The latest name each tid showed (a name changes at exec).
            let comm = head.comm.trim_ws();
            match self.perf_header_tasks.get_mut(&head.pid) {
                Some(known) if known.as_str() == comm => {}
                Some(known) => *known = comm.to_string(),
                None => {
                    self.perf_header_tasks.insert(head.pid, comm.to_string());
                }
            }
        } else {
            self.note_task(head.pid, head.comm);
        }
        let name = head.name;
        let Some(kind) = EventKind::from_name(name) else {
            self.note_event_line(&head);
            if name == "tracing_mark_write" || name == "print" {
                self.skip(SkipReason::Marker);
            } else {
                let name: String = name.chars().take(64).collect();
                *self.report.other_events.entry(name).or_default() += 1;
                self.skip(SkipReason::OtherEvent);
            }
            return;
        };
        let parsed = match parse_payload(kind, head.payload, &self.tasks) {
            Payload::Bad => match without_reason(head.payload) {
                // `schedlab run --trace-out FILE --reasons` writes each decision's reason
                // after its fields, as `  # why`: read the fields before it.
                Some(fields) => parse_payload(kind, fields, &self.tasks),
                None => Payload::Bad,
            },
            read => read,
        };
        let (data, form) = match parsed {
            Payload::Event(data, form) => (data, form),
            Payload::Bad => {
                self.skip_unreadable(line_no, kind, || unreadable_payload(kind, head.payload));
                return;
            }
        };
        if let (Layout::Perf, EventData::Switch { prev_pid, .. }) = (head.layout, &data) {
            if head.pid != 0 && *prev_pid != 0 {
                let learnt = self.perf_tid_pid.entry(head.pid).or_insert(Some(*prev_pid));
                if *learnt != Some(*prev_pid) {
                    *learnt = None;
                }
            }
        }
        self.note_event_line(&head);
        if let Some(cpu) = referenced_cpu_out_of_range(&data) {
            self.warn(
                Some(line_no),
                format!(
                    "{} names CPU {cpu}, beyond any machine: line skipped",
                    kind.name()
                ),
            );
            self.skip(SkipReason::BadPayload);
            return;
        }
        // An index in LAYOUT_NAMES, or none for a flagless line counted apart.
        let layout = match head.layout {
            Layout::Ftrace => Some(0),
            Layout::FtraceTgid => Some(1),
            Layout::Perf => Some(2),
            Layout::Dump => Some(3),
            Layout::Flagless => match form {
                PayloadForm::RawState => {
                    self.trace_cmd_raw = true;
                    None
                }
                PayloadForm::Short => {
                    self.trace_cmd_hint = true;
                    Some(4)
                }
                PayloadForm::Short2631 => Some(0),
                PayloadForm::KeyValue => {
                    if head.pad >= 2 {
                        self.trace_cmd_hint = true;
                    }
                    None
                }
            },
        };
        match layout {
            Some(index) => self.layout_counts[index] += 1,
            None => self.flagless_lines += 1,
        }
        match &data {
            EventData::Switch {
                prev_comm,
                prev_pid,
                next_comm,
                next_pid,
                ..
            } => {
                self.note_task_name(*prev_pid, prev_comm);
                self.note_task_name(*next_pid, next_comm);
            }
            EventData::Wakeup {
                comm,
                pid,
                target_cpu,
                ..
            } => {
                self.note_task_name(*pid, comm);
                if let Some(cpu) = target_cpu {
                    self.note_cpu(*cpu);
                }
            }
            EventData::MigrateTask {
                comm,
                pid,
                orig_cpu,
                dest_cpu,
                ..
            } => {
                self.note_task_name(*pid, comm);
                self.note_cpu(*orig_cpu);
                self.note_cpu(*dest_cpu);
            }
            EventData::ProcessFork {
                comm,
                pid,
                child_comm,
                child_pid,
            } => {
                self.note_task_name(*pid, comm);
                self.note_task_name(*child_pid, child_comm);
            }
            EventData::ProcessExec { filename, pid, .. } => {
                let base = filename.rsplit('/').next().unwrap_or(filename);
                let comm: String = base.chars().take(15).collect();
                self.note_task(*pid, &comm);
            }
            EventData::ProcessExit { comm, pid, .. } | EventData::StatRuntime { comm, pid, .. } => {
                self.note_task_name(*pid, comm)
            }
            EventData::CpuFrequency { cpu_id, .. } | EventData::CpuIdle { cpu_id, .. } => {
                self.note_cpu(*cpu_id)
            }
        }
        self.event_counts[kind as usize] += 1;
        // (CPUs are below MAX_CPUS here: a larger number is refused as its line is read.)
        let cpu = head.cpu as usize;
        if self.cpu_last_ts.len() <= cpu {
            self.cpu_last_ts.resize(cpu + 1, (0, 0));
        }
        if head.ts_ns < self.max_ts {
            self.report.out_of_order += 1;
            self.first_out_of_order.get_or_insert(line_no);
            let (latest, latest_line) = self.cpu_last_ts[cpu];
            if head.ts_ns < latest {
                self.same_cpu_backwards += 1;
                self.first_same_cpu_backwards.get_or_insert((
                    line_no,
                    head.cpu,
                    latest_line,
                    latest,
                ));
            }
        }
        if head.ts_ns >= self.cpu_last_ts[cpu].0 {
            self.cpu_last_ts[cpu] = (head.ts_ns, line_no);
        }
        self.max_ts = self.max_ts.max(head.ts_ns);
        self.events.push(Event {
            ts_ns: head.ts_ns,
            cpu: head.cpu,
            ctx_pid: head.pid,
            line: line_no,
            data,
        });
    }
}

fn referenced_cpu_out_of_range(data: &EventData) -> Option<u32> {
    match data {
        EventData::Wakeup {
            target_cpu: Some(cpu),
            ..
        } if *cpu >= MAX_CPUS => Some(*cpu),
        EventData::MigrateTask {
            orig_cpu, dest_cpu, ..
        } => [*orig_cpu, *dest_cpu]
            .into_iter()
            .find(|cpu| *cpu >= MAX_CPUS),
        EventData::CpuFrequency { cpu_id, .. } | EventData::CpuIdle { cpu_id, .. }
            if *cpu_id >= MAX_CPUS =>
        {
            Some(*cpu_id)
        }
        _ => None,
    }
}

/// The text of a line that holds only `key=value` fields (after mail quoting): the
/// wrapped rest of the line before it.
fn continuation(raw: &str) -> Option<&str> {
    let mut text = raw.trim_start_ws();
    while let Some(rest) = text.strip_prefix('>') {
        text = rest.trim_start_ws();
    }
    if let Some(rest) = text.strip_prefix('|') {
        text = rest.trim_start_ws();
    }
    let text = text.trim_end_ws();
    if text.is_empty() || text.len() > 512 {
        return None;
    }
    // A quick no for most lines: the first token is neither `==>` nor `key=...`.
    let bytes = text.as_bytes();
    if bytes[0] != b'=' {
        if !bytes[0].is_ascii_alphabetic() {
            return None;
        }
        let key_end = bytes
            .iter()
            .position(|&b| !is_key_char(b))
            .unwrap_or(bytes.len());
        if key_end == bytes.len() || bytes[key_end] != b'=' {
            return None;
        }
    }
    let all_fields = text.split_whitespace().all(|token| {
        token == "==>"
            || token.split_once('=').is_some_and(|(key, _)| {
                !key.is_empty()
                    && key.as_bytes()[0].is_ascii_alphabetic()
                    && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            })
    });
    all_fields.then_some(text)
}

/// For a line that names a scheduler event (`... sched_switch: ...`) but whose
/// head could not be read: the event, and which part of the head is wrong.
fn unreadable_head(trimmed: &str) -> Option<(EventKind, String)> {
    // The event name is the word before the first `: ` that names one.
    let (before, kind) = trimmed.match_indices(": ").find_map(|(at, _)| {
        let head = &trimmed[..at];
        let name = head.rsplit(|c: char| c.is_whitespace()).next()?;
        EventKind::from_name(name).map(|kind| (head[..head.len() - name.len()].trim_end(), kind))
    })?;
    // `before` ends with the time, after `[CPU]` and the flags: `comm-pid [001] d..2. 12.345678:`.
    // Prose that mentions an event (no `[CPU]`, no digits before it) is not one.
    let cpu_token = before
        .split_whitespace()
        .find(|token| token.starts_with('[') && token.ends_with(']'));
    let last_has_digit = before
        .split_whitespace()
        .last()
        .is_some_and(|token| token.bytes().any(|b| b.is_ascii_digit()));
    if cpu_token.is_none() && !last_has_digit {
        return None;
    }
    let time = before
        .strip_suffix(':')
        .unwrap_or(before)
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    let why = if time.is_empty() {
        "no time before the event name".to_string()
    } else if time.starts_with('-') {
        format!("its time `{time}` is negative")
    } else if !time.bytes().all(|b| b.is_ascii_digit() || b == b'.') || !time.contains('.') {
        format!("`{time}` is not a time in seconds (as 1234.567890)")
    } else if time.split('.').next().is_some_and(|secs| secs.len() > 11) {
        format!("its time `{time}` is out of range (more than 11 digits of seconds)")
    } else if let Some(cpu) = cpu_token {
        let inner = &cpu[1..cpu.len() - 1];
        if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
            format!("`{cpu}` is not a CPU number")
        } else if inner
            .parse::<u64>()
            .map_or(true, |cpu| cpu >= u64::from(MAX_CPUS))
        {
            format!("CPU {inner} is beyond any machine (at most {MAX_CPUS} CPUs)")
        } else {
            format!(
                "its head (`task-pid [CPU] flags time:`) could not be read: `{}`",
                truncated(before, 80)
            )
        }
    } else {
        format!("its head has no `[CPU]`: `{}`", truncated(before, 80))
    };
    Some((kind, why))
}

fn truncated(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// What an unparsed line is, for the skip counts.
fn classify_other(trimmed: &str, dmesg: bool) -> SkipReason {
    // The head of a stack trace (`<idle>-0 [004] d..2 12.5: <stack trace>`): the
    // `stacktrace` option's entry, whose ` => frame` lines follow. A task named
    // `<idle>` must not make it HTML markup.
    if trimmed.ends_with("<stack trace>") || trimmed.ends_with("<user stack trace>") {
        return SkipReason::StackTrace;
    }
    if trimmed.contains(" <-") {
        return SkipReason::FunctionTracer;
    }
    if trimmed.bytes().all(|byte| {
        matches!(
            byte,
            b'*' | b'.' | b'-' | b'=' | b'~' | b'[' | b']' | b' ' | b'\t'
        )
    }) || trimmed.starts_with("...")
        || trimmed.starts_with("***")
        || trimmed.starts_with("[...]")
        || trimmed.starts_with("[snip")
    {
        return if dmesg {
            SkipReason::KernelLog
        } else {
            SkipReason::Annotation
        };
    }
    let bytes = trimmed.as_bytes();
    if bytes[0] == b'<'
        && bytes.len() > 1
        && (bytes[1] == b'!' || bytes[1] == b'/' || bytes[1].is_ascii_alphabetic())
        && trimmed.ends_with('>')
    {
        return SkipReason::Markup;
    }
    if dmesg {
        return SkipReason::KernelLog;
    }
    SkipReason::Unrecognised
}

/// `[  123.456789] rest` → `rest`.
fn strip_dmesg_prefix(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix('[')?;
    let close = rest.find(']')?;
    let inner = rest[..close].trim_ws();
    let (secs, frac) = inner.split_once('.')?;
    if secs.is_empty()
        || frac.is_empty()
        || !secs.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let rest = &rest[close + 1..];
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// `str::trim` and its halves, a byte at a time over ASCII (the usual case) and by
/// the standard library's Unicode rules from the first non-ASCII byte on: the same
/// results, faster.
trait TrimWs {
    fn trim_ws(&self) -> &str;
    fn trim_start_ws(&self) -> &str;
    fn trim_end_ws(&self) -> &str;
}

/// The ASCII characters `char::is_whitespace` takes.
fn is_ascii_ws(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Neither whitespace nor the start of a non-ASCII character.
fn is_ascii_visible(byte: u8) -> bool {
    byte > b' ' && byte < 0x80
}

impl TrimWs for str {
    #[inline]
    fn trim_ws(&self) -> &str {
        self.trim_start_ws().trim_end_ws()
    }

    #[inline]
    fn trim_start_ws(&self) -> &str {
        match self.as_bytes().first() {
            Some(&byte) if !is_ascii_visible(byte) => trim_start_slow(self),
            _ => self,
        }
    }

    #[inline]
    fn trim_end_ws(&self) -> &str {
        match self.as_bytes().last() {
            Some(&byte) if !is_ascii_visible(byte) => trim_end_slow(self),
            _ => self,
        }
    }
}

#[inline]
fn trim_start_slow(text: &str) -> &str {
    let bytes = text.as_bytes();
    // Headers are padded with runs of spaces: skip them 8 at a time.
    let mut at = spaces_after(bytes, 0);
    while at < bytes.len() {
        let byte = bytes[at];
        if byte >= 0x80 {
            return text[at..].trim_start();
        }
        if !is_ascii_ws(byte) {
            break;
        }
        at += 1;
    }
    &text[at..]
}

#[inline]
fn trim_end_slow(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    while end > 0 {
        let byte = bytes[end - 1];
        if byte >= 0x80 {
            return text[..end].trim_end();
        }
        if !is_ascii_ws(byte) {
            break;
        }
        end -= 1;
    }
    &text[..end]
}

/// Letters, digits and `_`: the characters of a `key=`.
fn is_key_char(byte: u8) -> bool {
    static TABLE: [bool; 256] = {
        let mut table = [false; 256];
        let mut byte = 0;
        while byte < 256 {
            let b = byte as u8;
            table[byte] = b.is_ascii_alphanumeric() || b == b'_';
            byte += 1;
        }
        table
    };
    TABLE[byte as usize]
}

fn is_space(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

/// Finds the `TIMESTAMP: EVENT:` boundary and reads the header before it.
fn split_event(line: &str) -> Option<Head<'_>> {
    let bytes = line.as_bytes();
    let limit = bytes.len().min(HEADER_SEARCH_BYTES);
    for at in memchr::memchr_iter(b':', &bytes[..limit]) {
        if at + 1 < bytes.len() && !is_space(bytes[at + 1]) {
            continue;
        }
        if let Some(head) = try_split_at(line, at) {
            return Some(head);
        }
    }
    None
}

/// `text` without the spaces and tabs it ends with.
fn trim_end_spaces(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut end = bytes.len();
    while end > 0 && is_space(bytes[end - 1]) {
        end -= 1;
    }
    &text[..end]
}

/// `text` without the spaces and tabs it starts with.
fn trim_start_spaces(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut start = 0;
    while start < bytes.len() && is_space(bytes[start]) {
        start += 1;
    }
    &text[start..]
}

/// Where the last word of `text` starts: after its last space or tab.
/// (Words are short: a loop beats a vector search.)
fn last_word_start(text: &str) -> usize {
    text.as_bytes()
        .iter()
        .rposition(|&b| is_space(b))
        .map_or(0, |space| space + 1)
}

fn try_split_at(line: &str, colon: usize) -> Option<Head<'_>> {
    quick::split_at(line, colon).or_else(|| split_at_any_form(line, colon))
}

/// [`try_split_at`] for every form the parser reads.
fn split_at_any_form(line: &str, colon: usize) -> Option<Head<'_>> {
    let before = trim_end_spaces(&line[..colon]);
    let token_start = last_word_start(before);
    let token = &before[token_start..];
    let (ts_ns, dump) = parse_timestamp(token)?;
    // The event name: `name:` or perf's `sched:name:`, then the payload.
    let after = &line[colon + 1..];
    let after_trim = trim_start_spaces(after);
    let name_end = after_trim
        .bytes()
        .position(is_space)
        .unwrap_or(after_trim.len());
    let name_token = after_trim[..name_end].strip_suffix(':')?;
    if name_token.is_empty() {
        return None;
    }
    // Letters, digits, `_` and `:`; the last `:` ends perf's `sched:` prefix.
    let mut last_colon = None;
    for (at, byte) in name_token.bytes().enumerate() {
        if byte == b':' {
            last_colon = Some(at);
        } else if !is_key_char(byte) {
            return None;
        }
    }
    let (prefixed, name) = match last_colon {
        Some(colon) => (true, &name_token[colon + 1..]),
        None => (false, name_token),
    };
    if name.is_empty() {
        return None;
    }
    let rest = &after_trim[name_end..];
    let payload_trim = trim_start_spaces(rest);
    let pad = rest.len() - payload_trim.len();
    let payload = payload_trim.trim_end_ws();

    let header = &before[..token_start];
    let (comm, pid, cpu, mut layout) = if dump {
        parse_dump_header(header)?
    } else {
        parse_header(header)?
    };
    if prefixed {
        layout = Layout::Perf;
    }
    Some(Head {
        comm,
        pid,
        cpu,
        ts_ns,
        layout,
        name,
        pad,
        payload,
    })
}

/// `123.456789` (seconds; any number of fraction digits) → (ns, false);
/// `1049us` (ftrace_dump, latency format) → (ns, true); a raw counter → ns.
fn parse_timestamp(token: &str) -> Option<(u64, bool)> {
    if let Some(micros) = token.strip_suffix("us") {
        if !micros.is_empty() && micros.bytes().all(|b| b.is_ascii_digit()) {
            let micros: u64 = micros.parse().ok()?;
            return Some((micros.checked_mul(1_000)?, true));
        }
        return None;
    }
    let (secs, frac) = match token.bytes().position(|b| b == b'.') {
        Some(dot) => (&token[..dot], &token[dot + 1..]),
        None => (token, ""),
    };
    if secs.is_empty() || !secs.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if frac.is_empty() {
        // A raw counter (another trace clock): taken as nanoseconds.
        if token.contains('.') {
            return None;
        }
        return Some((secs.parse().ok()?, false));
    }
    let secs: u64 = secs.parse().ok()?;
    let mut nanos: u64 = 0;
    for (idx, digit) in frac.bytes().enumerate() {
        if idx >= 9 {
            break;
        }
        nanos = nanos * 10 + u64::from(digit - b'0');
    }
    for _ in frac.len()..9 {
        nanos *= 10;
    }
    Some((secs.checked_mul(1_000_000_000)?.checked_add(nanos)?, false))
}

/// `TASK-PID [(TGID)] [CPU] [FLAGS]` or perf's `comm  tid [CPU]`.
fn parse_header(header: &str) -> Option<(&str, u32, u32, Layout)> {
    let mut rest = header.trim_end_ws();
    let mut flags = false;
    if !rest.ends_with(']') {
        let start = last_word_start(rest);
        let token = &rest[start..];
        if token.is_empty()
            || token.len() > 8
            || !token
                .bytes()
                .all(|b| b == b'.' || b.is_ascii_alphanumeric())
        {
            return None;
        }
        flags = true;
        rest = rest[..start].trim_end_ws();
    }
    let inner_start = rest.bytes().rposition(|b| b == b'[')?;
    let inner = rest[inner_start + 1..].strip_suffix(']')?.trim_ws();
    if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let cpu: u32 = inner.parse().ok()?;
    if cpu >= MAX_CPUS {
        return None;
    }
    rest = rest[..inner_start].trim_end_ws();
    let mut tgid = false;
    if rest.ends_with(')') {
        let open = rest.bytes().rposition(|b| b == b'(')?;
        let inner = rest[open + 1..rest.len() - 1].trim_ws();
        if !inner.is_empty()
            && (inner.bytes().all(|b| b.is_ascii_digit()) || inner.bytes().all(|b| b == b'-'))
        {
            tgid = true;
            rest = rest[..open].trim_end_ws();
        }
    }
    let (comm, pid, dash) = split_comm_pid(rest)?;
    let layout = if !dash {
        Layout::Perf
    } else if tgid {
        Layout::FtraceTgid
    } else if flags {
        Layout::Ftrace
    } else {
        Layout::Flagless
    };
    Some((comm, pid, cpu, layout))
}

/// `comm8-pid   <cpu><flags>` (ftrace_dump and the latency format).
fn parse_dump_header(header: &str) -> Option<(&str, u32, u32, Layout)> {
    let rest = header.trim_end_ws();
    let start = last_word_start(rest);
    let token = &rest[start..];
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 5 {
        return None;
    }
    let cpu: u32 = token[..digits].parse().ok()?;
    if cpu >= MAX_CPUS {
        return None;
    }
    let (comm, pid, dash) = split_comm_pid(rest[..start].trim_end_ws())?;
    if !dash {
        return None;
    }
    Some((comm, pid, cpu, Layout::Dump))
}

/// `TASK-PID` (split at the last `-` before the pid) → (comm, pid, true), or perf's
/// `comm  tid` → (comm, tid, false).
fn split_comm_pid(text: &str) -> Option<(&str, u32, bool)> {
    let text = text.trim_ws();
    let digits = text.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 10 {
        return None;
    }
    let pid: u32 = text[text.len() - digits..].parse().ok()?;
    let before = &text[..text.len() - digits];
    if let Some(comm) = before.strip_suffix('-') {
        return Some((comm.trim_start_ws(), pid, true));
    }
    if before.ends_with([' ', '\t']) {
        let comm = before.trim_ws();
        if comm.is_empty() {
            return None;
        }
        return Some((comm, pid, false));
    }
    None
}

fn leading_u64(text: &str) -> Option<(u64, &str)> {
    let text = text.trim_start_ws();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    Some((text[..digits].parse().ok()?, &text[digits..]))
}

fn leading_u32(text: &str) -> Option<(u32, &str)> {
    let (value, rest) = leading_u64(text)?;
    Some((u32::try_from(value).ok()?, rest))
}

/// A payload key with its `=`, packed to be compared in one load.
#[derive(Clone, Copy)]
struct Key {
    name: &'static str,
    packed: u128,
    mask: u128,
}

impl Key {
    /// `name` (at most 15 bytes) followed by `=`.
    const fn new(name: &'static str) -> Key {
        let bytes = name.as_bytes();
        assert!(bytes.len() < 16);
        let mut packed = 0u128;
        let mut at = 0;
        while at < bytes.len() {
            packed |= (bytes[at] as u128) << (8 * at);
            at += 1;
        }
        packed |= (b'=' as u128) << (8 * at);
        let mask = if at + 1 == 16 {
            u128::MAX
        } else {
            (1u128 << (8 * (at + 1))) - 1
        };
        Key { name, packed, mask }
    }

    /// Whether `bytes` holds this key and its `=` at `start`.
    #[inline]
    fn is_at(&self, bytes: &[u8], start: usize) -> bool {
        match bytes.get(start..start + 16) {
            Some(window) => {
                u128::from_le_bytes(window.try_into().expect("16 bytes")) & self.mask == self.packed
            }
            None => {
                let end = start + self.name.len();
                bytes.len() > end
                    && &bytes[start..end] == self.name.as_bytes()
                    && bytes[end] == b'='
            }
        }
    }
}

/// The position of the first space or tab in `bytes` from `at` (or its length).
#[inline]
fn next_space(bytes: &[u8], at: usize) -> usize {
    first_of(bytes, at, [b' ', b'\t'])
}

/// The position of the first of the `targets` bytes in `bytes` from `at` (or its
/// length), eight bytes at a time.
#[inline]
fn first_of<const N: usize>(bytes: &[u8], mut at: usize, targets: [u8; N]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while let Some(window) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(window.try_into().expect("8 bytes"));
        // High bits where a byte is a target: zero bytes of `word ^ target`. A borrow
        // can flag a byte above a real one, never below, so the lowest is exact.
        let found = targets.iter().fold(0, |found, &target| {
            let diff = word ^ (ONES * u64::from(target));
            found | diff.wrapping_sub(ONES) & !diff
        }) & HIGHS;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && !targets.contains(&bytes[at]) {
        at += 1;
    }
    at
}

/// Where the run of spaces that starts at `at` ends, eight bytes at a time (the
/// `trace` file pads its columns with runs of them).
#[inline]
fn spaces_after(bytes: &[u8], mut at: usize) -> usize {
    while let Some(window) = bytes.get(at..at + 8) {
        let other = u64::from_le_bytes(window.try_into().expect("8 bytes")) ^ SPACES;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && bytes[at] == b' ' {
        at += 1;
    }
    at
}

/// Eight spaces, as one word.
const SPACES: u64 = 0x2020_2020_2020_2020;

/// The values of `keys` among `key=value` pairs. A value runs to the next ` key=`
/// (so comms may hold spaces) and the first of a repeated key counts. A key starts
/// the payload or follows a space or tab, and is a letter or `_` then letters, digits
/// and `_`, up to its `=`.
fn key_values<'a, const N: usize>(payload: &'a str, keys: &[Key; N]) -> [Option<&'a str>; N] {
    let bytes = payload.as_bytes();
    let mut values = [None; N];
    // The key whose value is being read (its index in `keys`, N for another key) and
    // where its value starts.
    let mut open: Option<(usize, usize)> = None;
    #[inline(always)]
    fn close<'a, const N: usize>(
        payload: &'a str,
        values: &mut [Option<&'a str>; N],
        open: Option<(usize, usize)>,
        mut value_end: usize,
    ) {
        let bytes = payload.as_bytes();
        if let Some((index, value_start)) = open {
            if index < N && values[index].is_none() {
                // The spaces before the next key first (the same trim, quicker).
                while value_end > value_start && is_space(bytes[value_end - 1]) {
                    value_end -= 1;
                }
                let value = payload[value_start..value_end].trim_ws();
                values[index] = Some(value.strip_suffix("==>").unwrap_or(value).trim_end_ws());
            }
        }
    }
    // The key looked for first: the kernel prints them in `keys`' order.
    let mut expected = 0;
    // Each word's start: the payload's, then after each space or tab.
    let mut start = 0;
    while start < bytes.len() {
        let mut at = start;
        if expected < N && keys[expected].is_at(bytes, start) {
            close(payload, &mut values, open, start);
            at = start + keys[expected].name.len() + 1;
            open = Some((expected, at));
            expected += 1;
        } else if bytes[at].is_ascii_alphabetic() || bytes[at] == b'_' {
            while at < bytes.len() && is_key_char(bytes[at]) {
                at += 1;
            }
            if at < bytes.len() && bytes[at] == b'=' {
                close(payload, &mut values, open, start);
                let key = &payload[start..at];
                let index = keys.iter().position(|known| known.name == key).unwrap_or(N);
                open = Some((index, at + 1));
                if index < N {
                    expected = index + 1;
                }
            }
        }
        start = next_space(bytes, at) + 1;
    }
    close(payload, &mut values, open, bytes.len());
    values
}

const MIGRATE_KEYS: [Key; 5] = [
    Key::new("comm"),
    Key::new("pid"),
    Key::new("prio"),
    Key::new("orig_cpu"),
    Key::new("dest_cpu"),
];
const FORK_KEYS: [Key; 4] = [
    Key::new("comm"),
    Key::new("pid"),
    Key::new("child_comm"),
    Key::new("child_pid"),
];
const EXEC_KEYS: [Key; 3] = [Key::new("filename"), Key::new("pid"), Key::new("old_pid")];
const EXIT_KEYS: [Key; 3] = [Key::new("comm"), Key::new("pid"), Key::new("prio")];
const STAT_RUNTIME_KEYS: [Key; 4] = [
    Key::new("comm"),
    Key::new("pid"),
    Key::new("runtime"),
    Key::new("vruntime"),
];
const POWER_KEYS: [Key; 2] = [Key::new("state"), Key::new("cpu_id")];
const SWITCH_KEYS: [Key; 7] = [
    Key::new("prev_comm"),
    Key::new("prev_pid"),
    Key::new("prev_prio"),
    Key::new("prev_state"),
    Key::new("next_comm"),
    Key::new("next_pid"),
    Key::new("next_prio"),
];
const WAKEUP_KEYS: [Key; 6] = [
    Key::new("comm"),
    Key::new("pid"),
    Key::new("prio"),
    Key::new("target_cpu"),
    Key::new("cpu"),
    Key::new("success"),
];

fn parse_u32(value: Option<&str>) -> Option<u32> {
    value?.parse().ok()
}

fn parse_i32(value: Option<&str>) -> Option<i32> {
    value?.parse().ok()
}

/// `text.contains(key + "=")`, by looking before each `=` (the key is usually one of
/// the first: a loop beats a vector search).
fn contains_key(text: &str, key: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|eq| bytes[eq] == b'=' && bytes[..eq].ends_with(key.as_bytes()))
}

/// The fields of a payload that ends in a reason comment, `  # why` (as
/// `schedlab run --reasons` writes them), or None when it has none.
fn without_reason(payload: &str) -> Option<&str> {
    payload.find("  # ").map(|at| payload[..at].trim_end())
}

/// Why a scheduler event's payload could not be read, in words: the first field
/// whose number is not one, a missing `==>` in a switch, or else a cut line.
fn unreadable_payload(kind: EventKind, payload: &str) -> String {
    const NUMBERS: [&str; 12] = [
        "pid",
        "prio",
        "prev_pid",
        "prev_prio",
        "next_pid",
        "next_prio",
        "target_cpu",
        "orig_cpu",
        "dest_cpu",
        "child_pid",
        "success",
        "cpu",
    ];
    for token in payload.split_whitespace() {
        let Some((key, value)) = token.split_once('=') else {
            continue;
        };
        if NUMBERS.contains(&key) && value.parse::<i64>().is_err() {
            let value: String = value.chars().take(24).collect();
            return if value.is_empty() {
                format!("{key}= has no value")
            } else {
                format!("{key}={value} is not a number")
            };
        }
    }
    for token in payload.split_whitespace() {
        if let Some((key, value)) = token.split_once('=') {
            if matches!(key, "target_cpu" | "orig_cpu" | "dest_cpu" | "cpu")
                && value.starts_with('-')
            {
                return format!("{key}={value} is not a CPU");
            }
        }
    }
    if kind == EventKind::SchedSwitch && !payload.contains("==>") {
        return "no `==>` between the task switched out and the one switched in (a cut line?)"
            .to_string();
    }
    // The long `key=value` form with a field the event cannot do without: name it.
    let required: &[&str] = match kind {
        EventKind::SchedSwitch => &["prev_comm", "prev_pid", "next_comm", "next_pid"],
        EventKind::SchedWakeup | EventKind::SchedWakeupNew | EventKind::SchedWaking => {
            &["comm", "pid"]
        }
        EventKind::SchedMigrateTask => &["comm", "pid", "orig_cpu", "dest_cpu"],
        _ => &[],
    };
    if payload.contains("pid=") {
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|key| {
                !payload
                    .split_whitespace()
                    .any(|token| token.split_once('=').is_some_and(|(name, _)| name == *key))
            })
            .collect();
        if !missing.is_empty() {
            let fields: Vec<String> = missing.iter().map(|key| format!("`{key}=`")).collect();
            return format!(
                "{} {} missing (a cut line, or a format with other fields?)",
                fields.join(", "),
                if missing.len() == 1 { "is" } else { "are" }
            );
        }
    }
    let shown: String = payload.chars().take(60).collect();
    let more = if payload.chars().count() > 60 {
        "..."
    } else {
        ""
    };
    format!("its fields could not be read (a cut or wrapped line?): `{shown}{more}`")
}

fn parse_payload(kind: EventKind, payload: &str, names: &Names) -> Payload {
    let result = match kind {
        EventKind::SchedSwitch => parse_switch(payload, names),
        EventKind::SchedWakeup | EventKind::SchedWakeupNew | EventKind::SchedWaking => {
            parse_wakeup(kind, payload, names)
        }
        EventKind::SchedMigrateTask => {
            let [comm, pid, prio, orig_cpu, dest_cpu] = key_values(payload, &MIGRATE_KEYS);
            (|| {
                Some((
                    EventData::MigrateTask {
                        pid: parse_u32(pid)?,
                        comm: name_of(names, parse_u32(pid)?, comm.unwrap_or("")),
                        prio: parse_i32(prio),
                        orig_cpu: parse_u32(orig_cpu)?,
                        dest_cpu: parse_u32(dest_cpu)?,
                    },
                    PayloadForm::KeyValue,
                ))
            })()
        }
        EventKind::SchedProcessFork => {
            let [comm, pid, child_comm, child_pid] = key_values(payload, &FORK_KEYS);
            (|| {
                Some((
                    EventData::ProcessFork {
                        comm: name_of(names, parse_u32(pid)?, comm.unwrap_or("")),
                        pid: parse_u32(pid)?,
                        child_comm: Comm::from(child_comm.unwrap_or("")),
                        child_pid: parse_u32(child_pid)?,
                    },
                    PayloadForm::KeyValue,
                ))
            })()
        }
        EventKind::SchedProcessExec => {
            let [filename, pid, old_pid] = key_values(payload, &EXEC_KEYS);
            (|| {
                Some((
                    EventData::ProcessExec {
                        filename: Comm::from(filename.unwrap_or("")),
                        pid: parse_u32(pid)?,
                        old_pid: parse_u32(old_pid),
                    },
                    PayloadForm::KeyValue,
                ))
            })()
        }
        EventKind::SchedStatRuntime | EventKind::CpuFrequency | EventKind::CpuIdle => {
            parse_counter(kind, payload, names).map(|data| (data, PayloadForm::KeyValue))
        }
        EventKind::SchedProcessExit => {
            let [comm, pid, prio] = key_values(payload, &EXIT_KEYS);
            (|| {
                Some((
                    EventData::ProcessExit {
                        comm: name_of(names, parse_u32(pid)?, comm.unwrap_or("")),
                        pid: parse_u32(pid)?,
                        prio: parse_i32(prio),
                    },
                    PayloadForm::KeyValue,
                ))
            })()
        }
    };
    match result {
        Some((data, form)) => Payload::Event(data, form),
        None => Payload::Bad,
    }
}

/// `sched_stat_runtime`, `cpu_frequency` and `cpu_idle` (only `key=value` forms).
fn parse_counter(kind: EventKind, payload: &str, names: &Names) -> Option<EventData> {
    // A number at the start of a value: `runtime=40000 [ns]`.
    let number = |value: Option<&str>| leading_u64(value?).map(|(number, _)| number);
    match kind {
        EventKind::SchedStatRuntime => {
            let [comm, pid, runtime, vruntime] = key_values(payload, &STAT_RUNTIME_KEYS);
            let pid = parse_u32(pid)?;
            Some(EventData::StatRuntime {
                comm: name_of(names, pid, comm.unwrap_or("")),
                pid,
                runtime_ns: number(runtime)?,
                vruntime_ns: number(vruntime),
            })
        }
        EventKind::CpuFrequency => {
            let [state, cpu_id] = key_values(payload, &POWER_KEYS);
            Some(EventData::CpuFrequency {
                khz: state?.parse().ok()?,
                cpu_id: parse_u32(cpu_id)?,
            })
        }
        EventKind::CpuIdle => {
            let [state, cpu_id] = key_values(payload, &POWER_KEYS);
            let state = match state?.parse::<i64>().ok()? {
                -1 | 4_294_967_295 => None,
                index => Some(u32::try_from(index).ok()?),
            };
            Some(EventData::CpuIdle {
                state,
                cpu_id: parse_u32(cpu_id)?,
            })
        }
        _ => None,
    }
}

fn parse_switch(payload: &str, names: &Names) -> Option<(EventData, PayloadForm)> {
    quick::switch(payload, names).or_else(|| switch_any_form(payload, names))
}

/// [`parse_switch`] for every form the parser reads.
fn switch_any_form(payload: &str, names: &Names) -> Option<(EventData, PayloadForm)> {
    // The kernel's own text starts with the first key: no need to look further.
    if payload.starts_with("prev_comm=") || contains_key(payload, "prev_pid") {
        let [prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio] =
            key_values(payload, &SWITCH_KEYS);
        let state_text = prev_state.unwrap_or("");
        let raw = !state_text.is_empty() && state_text.bytes().all(|b| b.is_ascii_digit());
        let prev_pid = parse_u32(prev_pid)?;
        let next_pid = parse_u32(next_pid)?;
        let data = EventData::Switch {
            prev_comm: name_of(names, prev_pid, prev_comm.unwrap_or("")),
            prev_pid,
            prev_prio: parse_i32(prev_prio),
            prev_state: PrevState::parse(state_text),
            next_comm: name_of(names, next_pid, next_comm.unwrap_or("")),
            next_pid,
            next_prio: parse_i32(next_prio),
        };
        let form = if raw {
            PayloadForm::RawState
        } else {
            PayloadForm::KeyValue
        };
        return Some((data, form));
    }
    // Short forms: `[task ]prev:pid [prio] S ==> next:pid [prio]`.
    let (left, right) = payload.split_once(" ==> ")?;
    let (left, form) = match left.strip_prefix("task ") {
        Some(left) => (left, PayloadForm::Short2631),
        None => (left, PayloadForm::Short),
    };
    let (prev_comm, prev_pid, prev_prio, state) = comm_pid_prio(left)?;
    let (next_comm, next_pid, next_prio, _) = comm_pid_prio(right.trim_ws())?;
    Some((
        EventData::Switch {
            prev_comm: name_of(names, prev_pid, prev_comm),
            prev_pid,
            prev_prio: Some(prev_prio),
            prev_state: PrevState::parse(state),
            next_comm: name_of(names, next_pid, next_comm),
            next_pid,
            next_prio: Some(next_prio),
        },
        form,
    ))
}

fn parse_wakeup(kind: EventKind, payload: &str, names: &Names) -> Option<(EventData, PayloadForm)> {
    quick::wakeup(kind, payload, names).or_else(|| wakeup_any_form(kind, payload, names))
}

/// [`parse_wakeup`] for every form the parser reads.
fn wakeup_any_form(
    kind: EventKind,
    payload: &str,
    names: &Names,
) -> Option<(EventData, PayloadForm)> {
    if payload.starts_with("comm=") || contains_key(payload, "pid") {
        let [comm, pid, prio, target_cpu, cpu, success] = key_values(payload, &WAKEUP_KEYS);
        let target = target_cpu.or(cpu);
        let target_cpu = match target {
            Some(text) => Some(text.parse().ok()?),
            None => None,
        };
        let success = match success {
            Some(text) => Some(text.parse::<u32>().ok()? != 0),
            None => None,
        };
        let pid = parse_u32(pid)?;
        return Some((
            EventData::Wakeup {
                kind,
                comm: name_of(names, pid, comm.unwrap_or("")),
                pid,
                prio: parse_i32(prio),
                target_cpu,
                success,
            },
            PayloadForm::KeyValue,
        ));
    }
    // Short forms: `comm:pid [prio] success=1 CPU:005`, 2.6.31 `task comm:pid [prio] success=1 [5]`.
    let (text, form) = match payload.strip_prefix("task ") {
        Some(text) => (text, PayloadForm::Short2631),
        None => (payload, PayloadForm::Short),
    };
    let (comm, pid, prio, rest) = comm_pid_prio(text)?;
    let mut success = None;
    let mut target_cpu = None;
    for token in rest.split_whitespace() {
        if let Some(value) = token.strip_prefix("success=") {
            success = Some(value.parse::<u32>().ok()? != 0);
        } else if let Some(value) = token.strip_prefix("CPU:") {
            target_cpu = Some(value.parse().ok()?);
        } else if let Some(value) = token.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            target_cpu = Some(value.parse().ok()?);
        }
    }
    Some((
        EventData::Wakeup {
            kind,
            comm: name_of(names, pid, comm),
            pid,
            prio: Some(prio),
            target_cpu,
            success,
        },
        form,
    ))
}

/// `comm:pid [prio]rest` → (comm, pid, prio, rest); the comm may hold `:` and spaces.
fn comm_pid_prio(text: &str) -> Option<(&str, u32, i32, &str)> {
    let bytes = text.as_bytes();
    let mut search = 0;
    while let Some(found) = text[search..].find(" [") {
        let open = search + found;
        search = open + 2;
        // Before: `:digits`.
        let digits = bytes[..open]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || digits > 10 || open < digits + 1 || bytes[open - digits - 1] != b':' {
            continue;
        }
        // After: `-?digits]`.
        let after = &text[open + 2..];
        let Some(close) = after.find(']') else {
            continue;
        };
        let Ok(prio) = after[..close].trim_ws().parse::<i32>() else {
            continue;
        };
        let Ok(pid) = text[open - digits..open].parse::<u32>() else {
            continue;
        };
        let comm = text[..open - digits - 1].trim_ws();
        return Some((comm, pid, prio, after[close + 1..].trim_ws()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parse's warnings as (line, message) pairs.
    fn line_warnings(parsed: &ParsedTrace) -> Vec<(Option<u64>, &str)> {
        parsed
            .report
            .warnings
            .iter()
            .map(|warning| (warning.line, warning.message.as_str()))
            .collect()
    }

    #[test]
    fn a_reason_comment_after_the_fields_is_read_past() {
        // As `schedlab run --trace-out FILE --reasons` writes them.
        let annotated = "          <idle>-0       [000] d..2.     0.000000: sched_wakeup_new: comm=schbench \
                         pid=1000 prio=120 target_cpu=000  # find_idlest_cpu: new task pid 1000 to idle CPU 0\n\
                         schbench-1000    [002] d..2.     0.000010: sched_migrate_task: comm=w pid=1001 \
                         prio=120 orig_cpu=2 dest_cpu=3  # CPU 3 went idle and in newidle_balance pulled pid 1001\n";
        let parsed = parse(annotated);
        assert_eq!(parsed.events.len(), 2, "{:?}", parsed.report.warnings);
        assert!(
            parsed.report.warnings.is_empty(),
            "{:?}",
            parsed.report.warnings
        );
        assert!(matches!(
            parsed.events[1].data,
            EventData::MigrateTask {
                pid: 1001,
                dest_cpu: 3,
                ..
            }
        ));
        // A comm with `  # ` in it is still a comm: the whole payload is read first.
        let odd = parse(
            "  x-5  [001] d..2.   1.000000: sched_wakeup: comm=a  # b pid=7 prio=120 target_cpu=001\n",
        );
        assert!(matches!(
            &odd.events[0].data,
            EventData::Wakeup { comm, pid: 7, .. } if &**comm == "a  # b"
        ));
    }

    #[test]
    fn an_unreadable_event_line_says_which_field_is_wrong() {
        let good =
            "  bash-1234  [001] d..2.   100.000200: sched_switch: prev_comm=bash prev_pid=1234 \
                    prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
        let bad_pid =
            "  <idle>-0  [000] d..2.   100.000100: sched_switch: prev_comm=swapper/0 prev_pid=0 \
                       prev_prio=120 prev_state=R ==> next_comm=foo next_pid=abc next_prio=120\n";
        let cut =
            "  bash-1234  [001] d..2.   100.000300: sched_switch: prev_comm=bash prev_pid=1234\n";
        let parsed = parse(&format!("{good}{bad_pid}{cut}junk\n"));
        let warnings = line_warnings(&parsed);
        assert_eq!(
            warnings,
            vec![
                (
                    Some(2),
                    "sched_switch line skipped: next_pid=abc is not a number"
                ),
                (
                    Some(3),
                    "sched_switch line skipped: no `==>` between the task switched out and the \
                     one switched in (a cut line?)"
                ),
            ]
        );
        assert_eq!(parsed.report.skipped[&SkipReason::BadPayload].count, 2);
        // The skipped lines' times (100.0001 s and 100.0003 s) are not the log's range.
        assert_eq!(parsed.report.min_ts_ns, Some(100_000_200_000));
        assert_eq!(parsed.report.max_ts_ns, Some(100_000_200_000));
        // A log with nothing else says that its event lines could not be read, and why.
        let none = parse(&format!("{bad_pid}junk\n"))
            .report
            .nothing_to_replay("pasted log")
            .expect("nothing to replay");
        assert_eq!(
            none,
            "pasted log: none of its 2 lines is a scheduler event that could be read, so there \
             is nothing to replay. Line 1 is a scheduler event whose fields could not be read: \
             sched_switch line skipped: next_pid=abc is not a number. The others: 1 line that \
             is not a trace event (line 2). The text of an ftrace buffer \
             (/sys/kernel/tracing/trace or trace_pipe, or the output of trace-cmd report) is \
             what replays."
        );
        // Two unreadable lines: counted, and the first one's reason given.
        let two = parse(&format!("{bad_pid}{bad_pid}"))
            .report
            .nothing_to_replay("pasted log")
            .expect("nothing to replay");
        assert!(
            two.contains(
                "2 lines are scheduler events whose fields could not be read; the first, line \
                 1: sched_switch line skipped: next_pid=abc is not a number. The text"
            ),
            "{two}"
        );
    }

    #[test]
    fn an_event_line_whose_head_cannot_be_read_says_which_part() {
        let line = |cpu: &str, time: &str| {
            format!(
                "  bash-42  [{cpu}] d..3.  {time}: sched_wakeup: comm=foo pid=43 prio=120 \
                 target_cpu=002\n"
            )
        };
        let text = [
            line("001", "-1234.567900"),
            line("-02", "1234.567900"),
            line("99999", "1234.567900"),
            line("001", "99999999999999999999.5"),
            line("001", "1234.5679xx"),
            "some text mentioning sched_switch: in passing\n".to_string(),
        ]
        .concat();
        let parsed = parse(&text);
        let warnings = line_warnings(&parsed);
        assert_eq!(
            warnings,
            vec![
                (Some(1), "sched_wakeup line skipped: its time `-1234.567900` is negative"),
                (Some(2), "sched_wakeup line skipped: `[-02]` is not a CPU number"),
                (
                    Some(3),
                    "sched_wakeup line skipped: CPU 99999 is beyond any machine (at most 8192 CPUs)"
                ),
                (
                    Some(4),
                    "sched_wakeup line skipped: its time `99999999999999999999.5` is out of range \
                     (more than 11 digits of seconds)"
                ),
                (
                    Some(5),
                    "sched_wakeup line skipped: `1234.5679xx` is not a time in seconds (as \
                     1234.567890)"
                ),
            ]
        );
        assert_eq!(parsed.report.skipped[&SkipReason::BadPayload].count, 5);
        // Prose that mentions an event is not taken for one.
        assert_eq!(parsed.report.skipped[&SkipReason::Unrecognised].count, 1);
    }

    #[test]
    fn timestamps() {
        assert_eq!(
            parse_timestamp("230.784046"),
            Some((230_784_046_000, false))
        );
        assert_eq!(parse_timestamp("1.5"), Some((1_500_000_000, false)));
        assert_eq!(parse_timestamp("1049us"), Some((1_049_000, true)));
        assert_eq!(parse_timestamp("abc"), None);
        assert_eq!(parse_timestamp("99999999999999999999.1"), None);
    }

    #[test]
    fn comm_split_at_last_dash() {
        assert_eq!(
            split_comm_pid("  kworker/u8:2-ev-1234"),
            Some(("kworker/u8:2-ev", 1234, true))
        );
        assert_eq!(split_comm_pid("perf  4321"), Some(("perf", 4321, false)));
        assert_eq!(split_comm_pid("<...>-77"), Some(("<...>", 77, true)));
    }

    #[test]
    fn short_form_comm_with_colons() {
        assert_eq!(
            comm_pid_prio("kworker/0:1:42 [120] S"),
            Some(("kworker/0:1", 42, 120, "S"))
        );
    }

    #[test]
    fn same_text_matches_equality() {
        let texts = [
            "",
            "a",
            "abc",
            "abcd",
            "abce",
            "abcdefg",
            "abcdefh",
            "abcdefgh",
            "abcdefgi",
            "kworker/u8:3",
            "kworker/u8:4",
            "xkworker/u8:3",
            "kworker/u16:12ab",
            "kworker/u16:12ac",
            "kworker/u16:12abc",
            "kworker/u16:12abd",
            "hackbench",
            "hackbencH",
            "Hackbench",
            "é",
            "e",
        ];
        for a in texts {
            for b in texts {
                assert_eq!(same_text(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn a_log_without_a_scheduler_event_says_why_it_cannot_be_replayed() {
        let parsed = parse("hello world\n\nthis is not a trace\n");
        let why = parsed
            .report
            .nothing_to_replay("pasted log")
            .expect("nothing to replay");
        assert!(why.starts_with("pasted log: none of its 3 lines"), "{why}");
        assert!(
            why.contains(
                "so there is nothing to replay. Its lines: 2 lines that are not trace events \
                 (lines 1, 3). The text"
            ),
            "{why}"
        );
        assert!(why.ends_with("is what replays."), "{why}");
        assert_eq!(
            parse("").report.nothing_to_replay("x"),
            Some("x is empty: there is no ftrace line to replay".into())
        );
        let one = parse("  <idle>-0  [001] d..2.  100.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120\n");
        assert_eq!(one.report.nothing_to_replay("x"), None, "{:?}", one.report);
    }

    #[test]
    fn names_of_small_and_large_pids_are_kept_and_shared() {
        // 812 is kept in the table's vector, 4,000,000 (near the kernel's
        // PID_MAX_LIMIT) in its hash map: both are named and shared the same way.
        let text = "  worker-4000000 [002] d..2. 2.000001: sched_wakeup: comm=hackbench pid=812 prio=120 target_cpu=001
  hackbench-812  [001] d..2. 2.000002: sched_switch: prev_comm=hackbench prev_pid=812 prev_prio=120 prev_state=S ==> next_comm=worker next_pid=4000000 next_prio=120
  worker-4000000 [001] d..2. 2.000003: sched_switch: prev_comm=worker prev_pid=4000000 prev_prio=120 prev_state=R+ ==> next_comm=hackbench next_pid=812 next_prio=120
";
        let parsed = parse(text);
        assert_eq!(parsed.events.len(), 3);
        assert_eq!(&*parsed.report.tasks[&812], "hackbench");
        assert_eq!(&*parsed.report.tasks[&4_000_000], "worker");
        let (
            EventData::Switch {
                next_comm: first, ..
            },
            EventData::Switch {
                prev_comm: second, ..
            },
        ) = (&parsed.events[1].data, &parsed.events[2].data)
        else {
            panic!("two switches");
        };
        assert!(
            Arc::ptr_eq(first, second),
            "pid 4,000,000's name is one shared copy"
        );
    }

    #[test]
    fn a_repeated_name_is_one_shared_copy() {
        let line = |ts: &str| {
            format!(
                "  hackbench-812  [001] d..2. {ts}: sched_switch: prev_comm=hackbench prev_pid=812 prev_prio=120 prev_state=S ==> next_comm=hackbench next_pid=813 next_prio=120\n"
            )
        };
        let text = format!(
            "{}{}{}",
            line("1.000001"),
            line("1.000002"),
            line("1.000003")
        );
        let parsed = parse(&text);
        let names: Vec<&Comm> = parsed
            .events
            .iter()
            .filter_map(|event| match &event.data {
                EventData::Switch { prev_comm, .. } => Some(prev_comm),
                _ => None,
            })
            .collect();
        assert_eq!(names.len(), 3);
        // The header named pid 812 first: every event after shares its copy.
        assert!(names.windows(2).all(|pair| Arc::ptr_eq(pair[0], pair[1])));
        assert_eq!(&*parsed.report.tasks[&812], "hackbench");
    }

    #[test]
    fn quick_trims_match_the_standard_ones() {
        let texts = [
            "",
            " ",
            "\t \r\n",
            "abc",
            "  abc  ",
            "\u{3000} abc \u{a0}",
            " \u{85}x\u{2029} ",
            "         <idle>-0       [000]",
            "\u{e9}t\u{e9} \u{2003}",
            "\u{b}\u{c}x\u{1c}",
        ];
        for text in texts {
            assert_eq!(text.trim_ws(), text.trim(), "{text:?}");
            assert_eq!(text.trim_start_ws(), text.trim_start(), "{text:?}");
            assert_eq!(text.trim_end_ws(), text.trim_end(), "{text:?}");
        }
    }

    #[test]
    fn payload_scans_match_plain_loops() {
        let texts = [
            "",
            "a",
            "prev_comm=a b prev_pid=1",
            "x\ty z",
            "0123456789abcdef 0123456789\tabcdef",
            "\u{e9}\u{e9}\u{e9}\u{e9} \u{e9}",
        ];
        for text in texts {
            let bytes = text.as_bytes();
            for at in 0..=bytes.len() {
                let plain = (at..bytes.len())
                    .find(|&i| is_space(bytes[i]))
                    .unwrap_or(bytes.len());
                assert_eq!(next_space(bytes, at), plain, "{text:?} from {at}");
                let key = Key::new("prev_pid");
                assert_eq!(
                    key.is_at(bytes, at),
                    bytes[at..].starts_with(b"prev_pid="),
                    "{text:?} at {at}"
                );
            }
            for key in ["prev_pid", "pid", "b"] {
                assert_eq!(
                    contains_key(text, key),
                    text.contains(&format!("{key}=")),
                    "{text:?} {key}"
                );
            }
        }
    }

    #[test]
    fn payload_keys_in_any_order() {
        let keys = [Key::new("comm"), Key::new("pid"), Key::new("prio")];
        assert_eq!(
            key_values("prio=120 comm=a b ==> pid=7 pid=8 x=1", &keys),
            [Some("a b"), Some("7"), Some("120")]
        );
        assert_eq!(
            key_values("comm=  spaced  \tpid=", &keys),
            [Some("spaced"), Some(""), None]
        );
        assert_eq!(key_values("xcomm=1 _=2", &keys), [None, None, None]);
    }

    #[test]
    fn prev_states() {
        assert_eq!(PrevState::parse("R+"), PrevState::Preempted);
        assert_eq!(PrevState::parse("D|K"), PrevState::Blocked);
        assert_eq!(PrevState::parse("4096"), PrevState::Preempted);
        assert_eq!(PrevState::parse("64"), PrevState::Dead);
        assert_eq!(PrevState::parse("(S)"), PrevState::Blocked);
    }
}
