//! `--set PATH=VALUE`: override one field of a scenario by its dotted path.
//!
//! The path is checked against the schema, not only the file, so a field the file
//! leaves to its default can still be set; an unknown segment is an error that lists
//! the valid fields at that point. The value is read by the type the schema gives
//! the field, so `--set title=4.6` sets the text "4.6", and `--set knobs.hz=abc` is
//! refused on the spot with the path and the type the field wants.

use serde_json::{Map, Value};

/// Applies `path=value` to a scenario held as JSON.
///
/// The value is read by the type the schema gives the field:
/// - a string (or an enum of strings) takes the text as it is, `4.6` and `true`
///   included; a quoted JSON string (`"a,b"`) is unquoted;
/// - an integer, number, boolean, array or object must be JSON of that type, else
///   the error names the path and the expected type;
/// - a field that may also be null takes `null` as null;
/// - when the schema allows several types, or says nothing, the value is read as
///   JSON when it parses (`3`, `true`, `"x"`, `[1,2]`), else taken as a string.
pub fn apply_override(
    scenario: &mut Value,
    schema: &Value,
    assignment: &str,
) -> Result<(), String> {
    apply_at_path(scenario, schema, assignment).map_err(|message| {
        // A setting named as the Policy panel shows it (`shared_runq.mode`) lives
        // under `policy`: say so when that path would take the value.
        let root_unknown =
            message.starts_with("unknown field") && message.contains(" in the scenario;");
        if root_unknown && !assignment.trim_start().starts_with("policy.") {
            let mut trial = scenario.clone();
            let policy = format!("policy.{}", assignment.trim_start());
            let known = match apply_at_path(&mut trial, schema, &policy) {
                Ok(()) => true,
                // The path is a field there; only the value is wrong.
                Err(other) => !other.contains("unknown field") && !other.contains("has no field"),
            };
            if known {
                let path = policy
                    .split_once('=')
                    .map_or(policy.as_str(), |(path, _)| path);
                return format!("{message}; did you mean `{}`?", path.trim());
            }
        }
        #[cfg(feature = "schema-validation")]
        if let Some(place) = belongs_elsewhere(&message) {
            return format!(
                "{message}; `{}` belongs {place}",
                unknown_name(&message).unwrap_or_default()
            );
        }
        message
    })
}

/// The field of an "unknown field `X` in `P`" message.
#[cfg(feature = "schema-validation")]
fn unknown_name(message: &str) -> Option<&str> {
    message.strip_prefix("unknown field `")?.split('`').next()
}

/// Where the unknown field of such a message belongs, as a file's check says it
/// (`in policy.shared_runq`), when the schema knows it elsewhere.
#[cfg(feature = "schema-validation")]
fn belongs_elsewhere(message: &str) -> Option<String> {
    let field = unknown_name(message)?;
    let rest = message.strip_prefix(&format!("unknown field `{field}` in "))?;
    let object = match rest.strip_prefix('`') {
        Some(quoted) => quoted.split('`').next()?,
        None if rest.starts_with("the scenario") => "",
        None => return None,
    };
    crate::field_belongs(field, object)
}

fn apply_at_path(scenario: &mut Value, schema: &Value, assignment: &str) -> Result<(), String> {
    let (path, raw) = assignment
        .split_once('=')
        .ok_or_else(|| format!("`{assignment}` is not PATH=VALUE"))?;
    let path = path.trim();
    if path.is_empty() {
        return Err(format!("`{assignment}`: the path is empty"));
    }
    let segments: Vec<&str> = path.split('.').collect();
    let mut node = scenario;
    let mut node_schema = Some(resolve(schema, schema));
    let mut walked = Vec::new();
    for (idx, segment) in segments.iter().enumerate() {
        let last = idx + 1 == segments.len();
        let here = if walked.is_empty() {
            "the scenario".to_string()
        } else {
            format!("`{}`", walked.join("."))
        };
        match node {
            Value::Array(items) => {
                let position: usize = segment.parse().map_err(|_| {
                    format!(
                        "{here} is a list: use an index 0-{} instead of `{segment}`",
                        items.len().saturating_sub(1)
                    )
                })?;
                let len = items.len();
                let item = items.get_mut(position).ok_or_else(|| {
                    format!("{here} has {len} entries: index {position} is out of range")
                })?;
                // Kept unresolved for the value's type: resolving drops the `null`
                // alternative of an optional item.
                let item_schema = node_schema.and_then(|s| s.get("items"));
                if last {
                    let expected = item_schema.and_then(|s| field_type(schema, s));
                    *item = typed_value(path, raw, expected)?;
                    return Ok(());
                }
                node_schema = item_schema.map(|s| resolve(schema, s));
                node = item;
            }
            Value::Object(map) => {
                let allowed = allowed_fields(schema, node_schema, map);
                if !allowed.iter().any(|name| name == segment) {
                    return Err(format!(
                        "unknown field `{segment}` in {here}; valid fields are: {}",
                        allowed.join(", ")
                    ));
                }
                let candidates = node_schema
                    .map(|s| property_schemas(schema, s, map, segment))
                    .unwrap_or_default();
                if last {
                    let value = typed_value(path, raw, agreed_type(schema, &candidates))?;
                    map.insert(segment.to_string(), value);
                    return Ok(());
                }
                node = map
                    .entry(segment.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                node_schema = candidates.first().map(|s| resolve(schema, s));
            }
            _ => {
                return Err(format!(
                    "{here} is a single value, so it has no field `{segment}`"
                ))
            }
        }
        walked.push(*segment);
    }
    Ok(())
}

/// The one JSON type a field's schema asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JsonType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl JsonType {
    fn from_schema_name(name: &str) -> Option<JsonType> {
        match name {
            "string" => Some(JsonType::String),
            "integer" => Some(JsonType::Integer),
            "number" => Some(JsonType::Number),
            "boolean" => Some(JsonType::Boolean),
            "array" => Some(JsonType::Array),
            "object" => Some(JsonType::Object),
            _ => None,
        }
    }

    fn of_value(value: &Value) -> Option<JsonType> {
        match value {
            Value::String(_) => Some(JsonType::String),
            Value::Number(number) if number.is_f64() => Some(JsonType::Number),
            Value::Number(_) => Some(JsonType::Integer),
            Value::Bool(_) => Some(JsonType::Boolean),
            Value::Array(_) => Some(JsonType::Array),
            Value::Object(_) => Some(JsonType::Object),
            Value::Null => None,
        }
    }

    fn accepts(self, value: &Value) -> bool {
        match self {
            JsonType::String => value.is_string(),
            // `4.0` is refused too: the fields behind "integer" deserialise into Rust
            // integers, which take no JSON float.
            JsonType::Integer => value.is_i64() || value.is_u64(),
            JsonType::Number => value.is_number(),
            JsonType::Boolean => value.is_boolean(),
            JsonType::Array => value.is_array(),
            JsonType::Object => value.is_object(),
        }
    }

    fn described(self) -> &'static str {
        match self {
            JsonType::String => "a string",
            JsonType::Integer => "an integer",
            JsonType::Number => "a number",
            JsonType::Boolean => "true or false",
            JsonType::Array => "a JSON list such as [1, 2]",
            JsonType::Object => "a JSON object such as {\"key\": 1}",
        }
    }
}

/// What a field's schema says its value is: one type, possibly also `null`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FieldType {
    json_type: JsonType,
    nullable: bool,
}

/// The field's type when its schema names exactly one (besides `null`); `None` when
/// it allows several or says nothing, which keeps the untyped reading.
fn field_type(root: &Value, schema: &Value) -> Option<FieldType> {
    let mut types = Vec::new();
    let mut nullable = false;
    if !collect_types(root, schema, &mut types, &mut nullable, 0) {
        return None;
    }
    match types.as_slice() {
        [json_type] => Some(FieldType {
            json_type: *json_type,
            nullable,
        }),
        _ => None,
    }
}

/// The type a field has in every alternative that defines it (a tagged `oneOf`
/// whose tag is not set yet offers several); `None` when they disagree.
fn agreed_type(root: &Value, candidates: &[&Value]) -> Option<FieldType> {
    let mut types = candidates
        .iter()
        .map(|candidate| field_type(root, candidate));
    let first = types.next()??;
    types.all(|other| other == Some(first)).then_some(first)
}

/// Adds the types `schema` allows to `types` (and `null` to `nullable`), following
/// `$ref`, `anyOf`, `oneOf`, `type` (one name or a list), `const` and `enum`.
/// Returns false when some part says nothing about its type.
fn collect_types(
    root: &Value,
    schema: &Value,
    types: &mut Vec<JsonType>,
    nullable: &mut bool,
    depth: usize,
) -> bool {
    // The generated schema has no cycles through a field's own value, but a bound
    // keeps a hand-edited one from recursing forever.
    if depth > 16 {
        return false;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return match root.pointer(reference.trim_start_matches('#')) {
            Some(target) => collect_types(root, target, types, nullable, depth + 1),
            None => false,
        };
    }
    for combinator in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(combinator).and_then(Value::as_array) {
            return options
                .iter()
                .all(|option| collect_types(root, option, types, nullable, depth + 1));
        }
    }
    match schema.get("type") {
        Some(Value::String(name)) => add_type_name(name, types, nullable),
        Some(Value::Array(names)) => names.iter().all(|name| {
            name.as_str()
                .is_some_and(|name| add_type_name(name, types, nullable))
        }),
        _ => {
            let listed: Vec<&Value> = match (schema.get("const"), schema.get("enum")) {
                (Some(constant), _) => vec![constant],
                (None, Some(Value::Array(values))) => values.iter().collect(),
                _ => return false,
            };
            for value in listed {
                match JsonType::of_value(value) {
                    Some(json_type) => add_type(json_type, types),
                    None => *nullable = true,
                }
            }
            true
        }
    }
}

/// Adds a schema type name (`"integer"`, `"null"`, ...); false for a name this
/// reader does not know.
fn add_type_name(name: &str, types: &mut Vec<JsonType>, nullable: &mut bool) -> bool {
    if name == "null" {
        *nullable = true;
        return true;
    }
    match JsonType::from_schema_name(name) {
        Some(json_type) => {
            add_type(json_type, types);
            true
        }
        None => false,
    }
}

fn add_type(json_type: JsonType, types: &mut Vec<JsonType>) {
    if !types.contains(&json_type) {
        types.push(json_type);
    }
}

/// Reads the raw text of `path=raw` as the value the field's type asks for.
fn typed_value(path: &str, raw: &str, expected: Option<FieldType>) -> Result<Value, String> {
    let parsed: Option<Value> = serde_json::from_str(raw).ok();
    let Some(field) = expected else {
        return Ok(parsed.unwrap_or_else(|| Value::String(raw.to_string())));
    };
    if field.nullable && parsed == Some(Value::Null) {
        return Ok(Value::Null);
    }
    match field.json_type {
        JsonType::String => Ok(match parsed {
            // Quoting is how a string keeps commas (in a `sweep --vary` list) or
            // leading spaces; the quotes are not part of the value.
            Some(Value::String(text)) => Value::String(text),
            _ => Value::String(raw.to_string()),
        }),
        json_type => match parsed {
            Some(value) if json_type.accepts(&value) => Ok(value),
            _ => Err(format!(
                "`{path}`: expected {}, got {}",
                json_type.described(),
                if raw.is_empty() {
                    "an empty value".to_string()
                } else {
                    format!("`{raw}`")
                }
            )),
        },
    }
}

/// Follows `$ref` (local `#/$defs/...` only) and unwraps a one-entry `allOf`/`anyOf`
/// with null (how optional fields are written).
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..16 {
        if let Some(reference) = current.get("$ref").and_then(Value::as_str) {
            let pointer = reference.trim_start_matches('#');
            match root.pointer(pointer) {
                Some(target) => {
                    current = target;
                    continue;
                }
                None => return current,
            }
        }
        if let Some(options) = current.get("anyOf").and_then(Value::as_array) {
            let non_null: Vec<&Value> = options
                .iter()
                .filter(|option| option.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if non_null.len() == 1 {
                current = non_null[0];
                continue;
            }
        }
        break;
    }
    current
}

/// The alternatives of a tagged `oneOf` that match the object's tag (or all of them).
fn branches<'a>(root: &'a Value, schema: &'a Value, object: &Map<String, Value>) -> Vec<&'a Value> {
    let Some(options) = schema.get("oneOf").and_then(Value::as_array) else {
        return vec![schema];
    };
    let resolved: Vec<&Value> = options.iter().map(|option| resolve(root, option)).collect();
    let matching: Vec<&Value> = resolved
        .iter()
        .copied()
        .filter(|option| {
            option
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|props| {
                    props.iter().all(|(name, prop)| match prop.get("const") {
                        Some(expected) => object.get(name) == Some(expected),
                        None => true,
                    })
                })
        })
        .collect();
    if matching.is_empty() {
        resolved
    } else {
        matching
    }
}

fn allowed_fields(
    root: &Value,
    schema: Option<&Value>,
    object: &Map<String, Value>,
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if let Some(schema) = schema {
        for branch in branches(root, schema, object) {
            if let Some(props) = branch.get("properties").and_then(Value::as_object) {
                for name in props.keys() {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
            }
        }
    }
    if names.is_empty() {
        names = object.keys().cloned().collect();
    }
    names.retain(|name| name != "$schema");
    names
}

/// The schema of field `name` in every alternative of `schema` that defines it,
/// unresolved so an optional field keeps its `null` alternative.
fn property_schemas<'a>(
    root: &'a Value,
    schema: &'a Value,
    object: &Map<String, Value>,
    name: &str,
) -> Vec<&'a Value> {
    branches(root, schema, object)
        .into_iter()
        .filter_map(|branch| branch.get("properties").and_then(|props| props.get(name)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::apply_override;
    use crate::schema_value;
    use serde_json::{json, Value};

    fn scenario() -> Value {
        json!({
            "title": "t",
            "duration_ms": 10,
            "topology": { "preset": "teaching-small", "cpu_ids": [0, 1] },
            "workloads": [ { "kind": "schbench", "message_threads": 1, "worker_threads": 2,
                             "cputime_us": 100, "sleeptime_us": 100 } ]
        })
    }

    /// Applies one assignment to the test scenario and returns the value at `path`.
    fn set(assignment: &str) -> Result<Value, String> {
        let mut value = scenario();
        apply_override(&mut value, &schema_value(), assignment)?;
        let path = assignment.split_once('=').map_or("", |(path, _)| path);
        let pointer = format!("/{}", path.replace('.', "/"));
        Ok(value.pointer(&pointer).cloned().unwrap_or(Value::Null))
    }

    #[test]
    fn a_policy_setting_named_without_policy_is_pointed_to_it() {
        let message = set("turbo_pack.busy_threshold_pct=50").unwrap_err();
        assert!(
            message.starts_with("unknown field `turbo_pack` in the scenario; valid fields are: "),
            "{message}"
        );
        assert!(
            message.ends_with("; did you mean `policy.turbo_pack.busy_threshold_pct`?"),
            "{message}"
        );
        // The path is right there even when the value is not.
        assert!(set("turbo_pack.busy_threshold_pct=abc")
            .unwrap_err()
            .ends_with("did you mean `policy.turbo_pack.busy_threshold_pct`?"));
        // Not when it is no field under `policy` either.
        assert!(!set("no_such.field=1").unwrap_err().contains("did you mean"));
        assert!(!set("shared_runq.no_such=1")
            .unwrap_err()
            .contains("did you mean"));
    }

    #[test]
    fn a_string_field_keeps_text_that_looks_like_a_number() {
        assert_eq!(set("title=4.6"), Ok(json!("4.6")));
        assert_eq!(set("topology.preset=4.6"), Ok(json!("4.6")));
        assert_eq!(set("title=true"), Ok(json!("true")));
        assert_eq!(set("title=[1]"), Ok(json!("[1]")));
        // An enum of strings (`oneOf` of consts behind a `$ref`) is a string too.
        assert_eq!(set("knobs.preset=1"), Ok(json!("1")));
        assert_eq!(set("workloads.0.kind=7"), Ok(json!("7")));
    }

    #[test]
    fn a_quoted_string_is_unquoted() {
        assert_eq!(set(r#"title="a, b""#), Ok(json!("a, b")));
        assert_eq!(set(r#"title="4.6""#), Ok(json!("4.6")));
        // Only a whole JSON string literal is unquoted.
        assert_eq!(set(r#"title="a" and "b""#), Ok(json!(r#""a" and "b""#)));
    }

    #[test]
    fn a_numeric_field_refuses_what_is_not_a_number() {
        assert_eq!(
            set("knobs.hz=abc"),
            Err("`knobs.hz`: expected an integer, got `abc`".to_string())
        );
        assert_eq!(
            set("duration_ms=2.5"),
            Err("`duration_ms`: expected an integer, got `2.5`".to_string())
        );
        assert_eq!(
            set(r#"workloads.0.worker_threads="3""#),
            Err(r#"`workloads.0.worker_threads`: expected an integer, got `"3"`"#.to_string())
        );
        assert_eq!(
            set("duration_ms="),
            Err("`duration_ms`: expected an integer, got an empty value".to_string())
        );
        assert_eq!(set("knobs.hz=250"), Ok(json!(250)));
        assert_eq!(set("workloads.0.worker_threads= 3"), Ok(json!(3)));
    }

    #[test]
    fn booleans_lists_and_objects_must_parse_as_such() {
        assert_eq!(set("policy.wake_affine.enabled=false"), Ok(json!(false)));
        assert_eq!(
            set("policy.wake_affine.enabled=no"),
            Err("`policy.wake_affine.enabled`: expected true or false, got `no`".to_string())
        );
        assert_eq!(set("topology.cpu_ids=[3,2]"), Ok(json!([3, 2])));
        assert!(set("topology.cpu_ids=3")
            .unwrap_err()
            .starts_with("`topology.cpu_ids`: expected a JSON list"));
        // A list item takes the items' type.
        assert_eq!(set("topology.cpu_ids.1=5"), Ok(json!(5)));
        assert_eq!(
            set("topology.cpu_ids.1=five"),
            Err("`topology.cpu_ids.1`: expected an integer, got `five`".to_string())
        );
        assert!(set("policy.wake_affine=on")
            .unwrap_err()
            .starts_with("`policy.wake_affine`: expected a JSON object"));
    }

    #[test]
    fn an_optional_field_takes_null() {
        // `type: ["integer", "null"]`
        assert_eq!(set("knobs.hz=null"), Ok(Value::Null));
        // `anyOf: [{$ref: Numbering}, {type: null}]`, Numbering a `oneOf` of strings.
        assert_eq!(set("topology.numbering=null"), Ok(Value::Null));
        assert_eq!(set("topology.numbering=split"), Ok(json!("split")));
        // A string field that is not optional keeps `null` as text.
        assert_eq!(set("title=null"), Ok(json!("null")));
    }

    #[test]
    fn an_ambiguous_or_unknown_schema_reads_json_else_text() {
        let schema = json!({
            "type": "object",
            "properties": {
                "either": { "anyOf": [ { "type": "string" }, { "type": "integer" } ] },
                "anything": {}
            }
        });
        // `anything` holds an object the schema does not describe, so its fields
        // have no schema at all.
        let mut value = json!({"anything": {"inner": 0}});
        for (assignment, pointer, expected) in [
            ("either=4.6", "/either", json!(4.6)),
            ("either=abc", "/either", json!("abc")),
            ("anything.inner=[1]", "/anything/inner", json!([1])),
            ("anything.inner=x y", "/anything/inner", json!("x y")),
        ] {
            apply_override(&mut value, &schema, assignment).unwrap();
            assert_eq!(value.pointer(pointer), Some(&expected), "{assignment}");
        }
    }
}
