//! The bundled scenarios, mutated field by field: the input's first byte picks one of
//! `scenarios/*.json`, the rest is a list of edits (replace a value with a number, a
//! string, null, ...; remove it; duplicate a list entry; a CLI `--set PATH=VALUE`).
//! The result goes through the loader and a bounded run, so that the fuzzer spends
//! its time on scenarios that nearly load rather than on JSON syntax.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};
use std::sync::OnceLock;

/// The bundled scenarios (not the schema), by file name.
fn seeds() -> &'static [Value] {
    static SEEDS: OnceLock<Vec<Value>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .expect("the scenarios folder")
            .map(|entry| entry.expect("a folder entry").path())
            .filter(|path| {
                let name = path.to_string_lossy();
                name.ends_with(".json") && !name.ends_with(".schema.json")
            })
            .collect();
        paths.sort();
        let seeds: Vec<Value> = paths
            .iter()
            .map(|path| {
                let text = std::fs::read_to_string(path).expect("a scenario file");
                serde_json::from_str(&text).expect("a bundled scenario is JSON")
            })
            .collect();
        assert!(!seeds.is_empty(), "no scenarios in {dir}");
        seeds
    })
}

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(sched_scenario::schema_value)
}

/// Reads the input a byte at a time; zeros once it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&first, rest)) => {
                self.0 = rest;
                first
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    fn text(&mut self) -> String {
        let len = usize::from(self.byte() % 48).min(self.0.len());
        let (text, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8_lossy(text).into_owned()
    }
}

/// Numbers near the edges the model checks or computes with.
const INTEGERS: [i64; 16] = [
    0,
    1,
    -1,
    2,
    3,
    7,
    64,
    255,
    4096,
    8192,
    100_000,
    i32::MAX as i64,
    u32::MAX as i64,
    i64::MAX,
    i64::MIN,
    1 << 40,
];
const FLOATS: [f64; 8] = [0.0, -0.0, 0.5, 1e-9, -1.0, 1e300, 99.99, 1e-300];

/// JSON pointers of every node, the root first.
fn pointers(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                pointers(child, format!("{here}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (idx, child) in items.iter().enumerate() {
                pointers(child, format!("{here}/{idx}"), out);
            }
        }
        _ => {}
    }
    out.push(here);
}

/// Removes the node at `pointer` from its parent (the root stays).
fn remove(root: &mut Value, pointer: &str) {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match root.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.remove(&key);
        }
        Some(Value::Array(items)) => {
            if let Ok(idx) = key.parse::<usize>() {
                if idx < items.len() {
                    items.remove(idx);
                }
            }
        }
        _ => {}
    }
}

fn edit(root: &mut Value, input: &mut Bytes<'_>) {
    let op = input.byte();
    let mut nodes = Vec::new();
    pointers(root, String::new(), &mut nodes);
    let pointer = nodes[usize::from(input.u16()) % nodes.len()].clone();
    let replacement = match op % 10 {
        0 => Value::from(INTEGERS[usize::from(input.byte()) % INTEGERS.len()]),
        1 => Number::from_f64(FLOATS[usize::from(input.byte()) % FLOATS.len()])
            .map_or(Value::Null, Value::Number),
        2 => Value::Bool(input.byte() & 1 == 1),
        3 => Value::Null,
        4 => Value::String(input.text()),
        5 => {
            remove(root, &pointer);
            return;
        }
        6 => {
            // Duplicate a list entry (or the node itself into its own list).
            if let Some((parent, _)) = pointer.rsplit_once('/') {
                let node = root.pointer(&pointer).cloned();
                if let (Some(Value::Array(items)), Some(node)) = (root.pointer_mut(parent), node) {
                    if items.len() < 64 {
                        items.push(node);
                    }
                }
            }
            return;
        }
        7 => {
            if input.byte() & 1 == 1 {
                Value::Array(Vec::new())
            } else {
                Value::Object(Map::new())
            }
        }
        8 => {
            // A number nudged: doubled, halved, plus or minus one.
            let Some(number) = root.pointer(&pointer).and_then(Value::as_f64) else {
                return;
            };
            let nudged = match input.byte() % 4 {
                0 => number * 2.0,
                1 => number / 2.0,
                2 => number + 1.0,
                _ => number - 1.0,
            };
            if nudged.fract() == 0.0 && nudged.abs() < 9e15 {
                Value::from(nudged as i64)
            } else {
                Number::from_f64(nudged).map_or(Value::Null, Value::Number)
            }
        }
        _ => {
            // The CLI's `--set PATH=VALUE`.
            let assignment = input.text();
            let _ = sched_scenario::apply_override(root, schema(), &assignment);
            return;
        }
    };
    if let Some(node) = root.pointer_mut(&pointer) {
        *node = replacement;
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Bytes(data);
    let seeds = seeds();
    let mut scenario = seeds[usize::from(input.byte()) % seeds.len()].clone();
    for _ in 0..16 {
        if input.0.is_empty() {
            break;
        }
        edit(&mut scenario, &mut input);
    }
    common::load_and_run(&scenario);
});
