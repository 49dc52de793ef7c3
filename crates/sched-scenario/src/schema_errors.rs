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

/// Every field name the scenario schema knows, anywhere (in alphabetical order).
fn field_names() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| field_places().keys().cloned().collect())
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

/// Where in a scenario each field name is known: the paths of the objects whose
/// schema lists it (`[]` the top level, `["policy", "shared_runq"]`; an array's items
/// are `N`). A `$ref` already being expanded is not entered again (programs nest).
fn field_places() -> &'static std::collections::BTreeMap<String, Vec<Vec<String>>> {
    type Places = std::collections::BTreeMap<String, Vec<Vec<String>>>;
    static PLACES: std::sync::OnceLock<Places> = std::sync::OnceLock::new();
    PLACES.get_or_init(|| {
        fn visit<'a>(
            root: &'a Value,
            node: &'a Value,
            path: &mut Vec<String>,
            refs: &mut Vec<&'a str>,
            places: &mut Places,
        ) {
            let Some(map) = node.as_object() else { return };
            if let Some(Value::String(target)) = map.get("$ref") {
                let pointer = target.trim_start_matches('#');
                if let (false, Some(resolved)) =
                    (refs.contains(&target.as_str()), root.pointer(pointer))
                {
                    refs.push(target);
                    visit(root, resolved, path, refs, places);
                    refs.pop();
                }
            }
            if let Some(Value::Object(properties)) = map.get("properties") {
                for (name, child) in properties {
                    let here = places.entry(name.clone()).or_default();
                    if !here.contains(path) {
                        here.push(path.clone());
                    }
                    path.push(name.clone());
                    visit(root, child, path, refs, places);
                    path.pop();
                }
            }
            if let Some(items) = map.get("items") {
                path.push("N".into());
                visit(root, items, path, refs, places);
                path.pop();
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(branches)) = map.get(key) {
                    for branch in branches {
                        visit(root, branch, path, refs, places);
                    }
                }
            }
        }
        let schema = crate::schema_value();
        let mut places = Places::new();
        visit(
            &schema,
            &schema,
            &mut Vec::new(),
            &mut Vec::new(),
            &mut places,
        );
        places
    })
}

/// Where a field put in the wrong object belongs: of the places the schema knows
/// `field` (other than `object`, the dotted path of the object it is in), the one
/// sharing the most leading steps with `object`, then the shortest. An array index
/// stands for `N`, and `N` in the answer takes the index of `object` where they
/// share the step. "at the top level", "in policy.shared_runq"; none if the field
/// is known nowhere. The web app's check says the same.
pub fn field_belongs(field: &str, object: &str) -> Option<String> {
    let steps: Vec<&str> = object.split('.').filter(|step| !step.is_empty()).collect();
    let pattern: Vec<&str> = steps
        .iter()
        .map(|step| {
            if step.bytes().all(|b| b.is_ascii_digit()) {
                "N"
            } else {
                step
            }
        })
        .collect();
    let shared = |place: &[String]| {
        place
            .iter()
            .zip(&pattern)
            .take_while(|(a, b)| a.as_str() == **b)
            .count()
    };
    let best = field_places()
        .get(field)?
        .iter()
        .filter(|place| place.iter().map(String::as_str).ne(pattern.iter().copied()))
        .min_by_key(|place| {
            (
                std::cmp::Reverse(shared(place)),
                place.len(),
                place.join("."),
            )
        })?;
    if best.is_empty() {
        return Some("at the top level".into());
    }
    let kept = shared(best);
    let named: Vec<&str> = best
        .iter()
        .enumerate()
        .map(|(at, step)| if at < kept { steps[at] } else { step.as_str() })
        .collect();
    Some(format!("in {}", named.join(".")))
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
                let guess = match field_belongs(name, &path) {
                    Some(place) => format!(" (\"{name}\" belongs {place})"),
                    None => closest_field(name, siblings.as_deref())
                        .map(|guess| format!(" (did you mean \"{guess}\"?)"))
                        .unwrap_or_default(),
                };
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
