//! The server's modules are layers, and no import runs upward: each module of `src/` may
//! use only the modules of a lower layer (see the crate's documentation in `src/lib.rs`).
//! Reads every source file and names the file and line of any `crate::` path that breaks it.

use std::path::Path;

/// The layers, lowest first; a module may use the modules of the layers below its own only
/// (so `games` and `accounts`, side by side, use neither the other).
const LAYERS: &[&[&str]] = &[
    &["rating", "client"],
    &["store"],
    &["lines", "engine"],
    &["games", "accounts"],
    &["online"],
    &["api"],
    &["app"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The modules a line names with `crate::NAME` or `crate::{NAME, ...}`.
fn named(line: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                v.push(name);
            }
        } else {
            v.push(
                after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            );
        }
        rest = after;
    }
    v
}

#[test]
fn no_import_runs_upward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for f in &all {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs");
        // The binaries and the crate root sit above every layer.
        let Some(own) = layer(module) else {
            assert!(
                ["lib", "bin"].contains(&module),
                "{}: a module in no layer: add it to LAYERS",
                rel.display()
            );
            continue;
        };
        checked += 1;
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for m in named(line) {
                if m == module {
                    continue;
                }
                match layer(&m) {
                    Some(l) if l < own => {}
                    Some(_) => wrong.push(format!(
                        "{}:{}: {module} uses {m}: {}",
                        rel.display(),
                        n + 1,
                        line.trim()
                    )),
                    None => {}
                }
            }
        }
    }
    assert!(checked > 30, "only {checked} files read");
    assert!(
        wrong.is_empty(),
        "imports running upward:\n{}",
        wrong.join("\n")
    );
}
