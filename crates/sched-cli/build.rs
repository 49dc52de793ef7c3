//! Builds the shipped scenarios into the binary, so `schedlab run NAME` finds them
//! from any directory (`scenarios/*.json`, the schema excepted).
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"))
        .join("../../scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("the scenarios folder")
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".json") && !name.ends_with(".schema.json"))
        .collect();
    names.sort();
    let mut out = String::from("/// The shipped scenarios, by name, as their files read at build time.\npub(crate) const SHIPPED: &[(&str, &str)] = &[\n");
    for name in &names {
        let path = dir.join(name).canonicalize().expect("a scenario file");
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    ({:?}, include_str!({:?})),",
            name.trim_end_matches(".json"),
            path.display().to_string()
        )
        .expect("write");
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var("OUT_DIR").expect("out dir")).join("shipped.rs");
    std::fs::write(target, out).expect("write shipped.rs");
}
