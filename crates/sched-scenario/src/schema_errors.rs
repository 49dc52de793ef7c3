//! Turns JSON Schema validation errors into `path: message` lines a person can act on.
//!
//! Errors inside a `oneOf` (the workload kinds) are narrowed to the branch whose
//! `kind` matched, so a typo in a schbench field is reported as that field, not as
//! "matches none of the alternatives".

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use sched_core::ScenarioError;
use serde_json::Value;

pub fn validate(schema: &Value, instance: &Value) -> Vec<ScenarioError> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(validator) => validator,
        Err(err) => {
            return vec![ScenarioError {
                path: String::new(),
                message: format!("internal error: the scenario schema does not compile: {err}"),
            }]
        }
    };
    let mut out = Vec::new();
    for err in validator.iter_errors(instance) {
        describe(&err, &mut out);
    }
    out
}

/// Every field name the scenario schema knows, anywhere.
fn field_names() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        fn visit(node: &Value, names: &mut std::collections::BTreeSet<String>) {
            match node {
                Value::Object(map) => {
                    for (key, child) in map {
                        if let (true, Value::Object(properties)) = (key == "properties", child) {
                            names.extend(properties.keys().cloned());
                        }
                        visit(child, names);
                    }
                }
                Value::Array(items) => items.iter().for_each(|item| visit(item, names)),
                _ => {}
            }
        }
        let mut names = std::collections::BTreeSet::new();
        visit(&crate::schema_value(), &mut names);
        names.into_iter().collect()
    })
}

/// The fields of the object whose `additionalProperties` refused a field: the
/// error's schema location, less its last step, names that object's schema.
fn sibling_fields(schema_path: &str) -> Option<Vec<String>> {
    let object = schema_path.strip_suffix("/additionalProperties")?;
    let schema = crate::schema_value();
    let properties = schema.pointer(object)?.get("properties")?.as_object()?;
    let mut names: Vec<String> = properties.keys().cloned().collect();
    names.sort();
    Some(names)
}

/// The field name a mistyped one most likely meant, among `siblings` (the fields
/// its object may have) or, when those are not known, every field of the schema:
/// within two edits (insertions, deletions, replacements, neighbours swapped; one
/// for names of four letters or fewer), else none. The web app's check says the same.
pub fn closest_field(field: &str, siblings: Option<&[String]>) -> Option<String> {
    let limit = if field.chars().count() <= 4 { 1 } else { 2 };
    let lower = field.to_lowercase();
    siblings
        .unwrap_or(field_names())
        .iter()
        .filter(|name| name.as_str() != field)
        .map(|name| (strsim::osa_distance(&lower, &name.to_lowercase()), name))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name.clone())
}

/// `/workloads/0/kind` → `workloads.0.kind`.
pub fn dotted(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

fn show(value: &Value) -> String {
    match value {
        Value::String(text) => format!("\"{text}\""),
        other => other.to_string(),
    }
}

fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn describe(err: &ValidationError<'_>, out: &mut Vec<ScenarioError>) {
    let path = dotted(err.instance_path().as_str());
    let instance = err.instance();
    let mut push = |path: String, message: String| out.push(ScenarioError { path, message });
    match err.kind() {
        ValidationErrorKind::Minimum { limit } => push(
            path,
            format!("must be at least {limit}, got {}", show(instance)),
        ),
        ValidationErrorKind::Maximum { limit } => push(
            path,
            format!("must be at most {limit}, got {}", show(instance)),
        ),
        ValidationErrorKind::MinLength { limit } => push(
            path,
            format!(
                "must be at least {limit} characters long, got {}",
                show(instance)
            ),
        ),
        ValidationErrorKind::MaxLength { limit } => push(
            path,
            format!(
                "must be at most {limit} characters long, got {}",
                show(instance)
            ),
        ),
        ValidationErrorKind::MinItems { limit } => {
            push(path, format!("must have at least {limit} entries"))
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            push(join(&path, name), "is required".to_string())
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let siblings = sibling_fields(err.schema_path().as_str());
            for name in unexpected {
                let guess = closest_field(name, siblings.as_deref())
                    .map(|guess| format!(" (did you mean \"{guess}\"?)"))
                    .unwrap_or_default();
                push(join(&path, name), format!("is not a known field{guess}"));
            }
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(single) => single.to_string(),
                TypeKind::Multiple(set) => format!("{set:?}"),
            };
            push(
                path,
                format!(
                    "must be {}, got {}",
                    article(&expected),
                    json_type_name(instance)
                ),
            )
        }
        ValidationErrorKind::Enum { options } => push(
            path,
            format!(
                "must be one of {}, got {}",
                list_options(options),
                show(instance)
            ),
        ),
        ValidationErrorKind::Constant { expected_value } => push(
            path,
            format!("must be {}, got {}", show(expected_value), show(instance)),
        ),
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            describe_alternatives(&path, context, out)
        }
        _ => push(path, err.to_string()),
    }
}

fn article(type_name: &str) -> String {
    match type_name {
        "integer" | "object" | "array" => format!("an {type_name}"),
        "null" => "null".to_string(),
        other => format!("a {other}"),
    }
}

fn list_options(options: &Value) -> String {
    match options {
        Value::Array(items) => items.iter().map(show).collect::<Vec<_>>().join(", "),
        other => show(other),
    }
}

/// Reports the errors of the alternative whose tag matched, or the valid tags.
fn describe_alternatives(
    path: &str,
    context: &[Vec<ValidationError<'static>>],
    out: &mut Vec<ScenarioError>,
) {
    let is_tag_mismatch = |err: &ValidationError<'_>| {
        let at = dotted(err.instance_path().as_str());
        let tag_field = at.rsplit('.').next().unwrap_or_default();
        let tagged = (tag_field == "kind" || tag_field == "op" || tag_field == "dist")
            && at.len() > path.len()
            && !at[path.len()..].trim_start_matches('.').contains('.');
        // A string enum whose choices are documented one by one (`oneOf` of consts):
        // the value itself is the tag.
        let plain_choice = at == path;
        // An alternative of another JSON type (a name where an object is allowed too).
        let other_type = plain_choice && matches!(err.kind(), ValidationErrorKind::Type { .. });
        other_type
            || matches!(
                err.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            ) && (tagged || plain_choice)
    };
    let matching: Vec<&Vec<ValidationError<'static>>> = context
        .iter()
        .filter(|branch| !branch.iter().any(is_tag_mismatch))
        .collect();
    if matching.len() == 1 {
        for err in matching[0] {
            describe(err, out);
        }
        return;
    }
    let mut tag_field = String::new();
    let mut tags = Vec::new();
    let mut got = None;
    for branch in context {
        for err in branch {
            if is_tag_mismatch(err) {
                if let ValidationErrorKind::Constant { expected_value } = err.kind() {
                    tags.push(show(expected_value));
                }
                if let ValidationErrorKind::Enum { options } = err.kind() {
                    tags.push(list_options(options));
                }
                tag_field = dotted(err.instance_path().as_str());
                got = Some(show(err.instance()));
            }
        }
    }
    if !tags.is_empty() {
        tags.dedup();
        out.push(ScenarioError {
            path: tag_field,
            message: format!(
                "must be one of {}, got {}",
                tags.join(", "),
                got.unwrap_or_default()
            ),
        });
    } else {
        out.push(ScenarioError {
            path: path.to_string(),
            message: "does not match any of the allowed forms".to_string(),
        });
    }
}
