//! Puts the git commit of the checkout into `xiangqi --version` (`XIANGQI_VERSION`);
//! nothing when the source is not a git checkout or git is missing.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env!("CARGO_PKG_VERSION");
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) => println!("cargo:rustc-env=XIANGQI_VERSION={version} (commit {commit})"),
        None => println!("cargo:rustc-env=XIANGQI_VERSION={version}"),
    }
    // Rebuild when HEAD moves: HEAD itself, the branch it names and packed refs.
    for p in ["HEAD", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", p]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(&["rev-parse", "--git-path", &r]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
