//! `--set PATH=VALUE`: override one field of a scenario by its dotted path.
//!
//! The path is checked against the schema, not only the file, so a field the file
//! leaves to its default can still be set; an unknown segment is an error that lists
//! the valid fields at that point.

use serde_json::{Map, Value};

/// Applies `path=value` to a scenario held as JSON. The value is read as JSON when it
/// parses (`3`, `true`, `"x"`, `[1,2]`), else taken as a string (`all`).
pub fn apply_override(
    scenario: &mut Value,
    schema: &Value,
    assignment: &str,
) -> Result<(), String> {
    let (path, raw) = assignment
        .split_once('=')
        .ok_or_else(|| format!("`{assignment}` is not PATH=VALUE"))?;
    let path = path.trim();
    if path.is_empty() {
        return Err(format!("`{assignment}`: the path is empty"));
    }
    let value: Value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()));
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
                node_schema = node_schema
                    .and_then(|s| s.get("items"))
                    .map(|items_schema| resolve(schema, items_schema));
                if last {
                    *item = value;
                    return Ok(());
                }
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
                let child_schema =
                    node_schema.and_then(|s| property_schema(schema, s, map, segment));
                if last {
                    map.insert(segment.to_string(), value);
                    return Ok(());
                }
                node = map
                    .entry(segment.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                node_schema = child_schema;
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

fn property_schema<'a>(
    root: &'a Value,
    schema: &'a Value,
    object: &Map<String, Value>,
    name: &str,
) -> Option<&'a Value> {
    branches(root, schema, object)
        .into_iter()
        .find_map(|branch| branch.get("properties").and_then(|props| props.get(name)))
        .map(|prop| resolve(root, prop))
}
