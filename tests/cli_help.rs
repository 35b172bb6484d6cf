//! The command line's help, version, errors, completions and man page, and the README's
//! command-line section against the usage lines the commands print.

use std::process::{Command, Output, Stdio};

/// Every subcommand, in the README's order.
const COMMANDS: [&str; 16] = [
    "serve",
    "perft",
    "moves",
    "judge",
    "convert",
    "analyze",
    "explorer",
    "tb",
    "uci",
    "bench",
    "match",
    "bot",
    "play",
    "show",
    "completions",
    "man",
];

fn xiangqi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xiangqi"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run xiangqi")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The `Usage:` line of a help text, without `Usage: `.
fn usage(help: &str) -> String {
    help.lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .unwrap_or_else(|| panic!("no usage line in {help}"))
        .to_string()
}

/// The options a help text lists, each as the forms it may be written in (`["-o",
/// "--output"]`, `["--fen"]`), less --help and --version.
fn options(help: &str) -> Vec<Vec<String>> {
    let mut v = Vec::new();
    for l in help.lines() {
        let t = l.trim_start();
        let mut forms = Vec::new();
        let mut t = t;
        if t.len() > 4 && t.starts_with('-') && &t[2..4] == ", " {
            forms.push(t[..2].to_string());
            t = &t[4..];
        }
        if let Some(rest) = t.strip_prefix("--") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if name != "help" && name != "version" {
                forms.push(format!("--{name}"));
                v.push(forms);
            }
        }
    }
    v
}

#[test]
fn every_command_has_help_with_options_defaults_and_an_example() {
    for c in COMMANDS {
        let o = xiangqi(&[c, "--help"]);
        assert!(o.status.success(), "{c} --help: {}", stderr(&o));
        let help = stdout(&o);
        assert!(usage(&help).starts_with("xiangqi "), "{c}: {help}");
        assert!(
            help.contains("Example"),
            "{c} --help has no example: {help}"
        );
        assert!(help.contains("-h, --help"), "{c}: {help}");
        // `xiangqi help COMMAND` is the same text.
        let h = xiangqi(&["help", c]);
        assert!(h.status.success(), "help {c}");
        assert_eq!(stdout(&h), help, "xiangqi help {c}");
        // -h is the short form: the same usage.
        let short = stdout(&xiangqi(&[c, "-h"]));
        assert_eq!(usage(&short), usage(&help), "{c} -h");
        // Every long option listed is in the usage line (the README shows those).
        for forms in options(&help) {
            assert!(
                forms.iter().any(|f| usage(&help).contains(&format!("{f} "))
                    || usage(&help).contains(&format!("{f}]"))),
                "{c}: {forms:?} is not in the usage line"
            );
        }
    }
    // Defaults are shown.
    let judge = stdout(&xiangqi(&["judge", "--help"]));
    assert!(judge.contains("[default: 3]"), "{judge}");
    let play = stdout(&xiangqi(&["play", "--help"]));
    for d in [
        "[default: red]",
        "[default: 10]",
        "[default: 1000]",
        "[default: en]",
    ] {
        assert!(play.contains(d), "{d}: {play}");
    }
    let serve = stdout(&xiangqi(&["serve", "--help"]));
    assert!(serve.contains("[default: 8080]") && serve.contains("--no-fallback"));
    // The match runner's own options are in its help.
    let m = stdout(&xiangqi(&["match", "--help"]));
    assert!(
        m.contains("-engine name=NAME cmd=PATH") || m.contains("name=NAME cmd=PATH"),
        "{m}"
    );
    // The top-level help lists every command.
    let top = xiangqi(&["--help"]);
    assert!(top.status.success());
    let top = stdout(&top);
    for c in COMMANDS {
        assert!(top.contains(&format!("  {c} ")), "{c} not in --help: {top}");
    }
}

#[test]
fn version_names_the_commit_when_built_from_a_checkout() {
    let o = xiangqi(&["--version"]);
    assert!(o.status.success());
    let v = stdout(&o);
    assert!(
        v.starts_with(&format!("xiangqi {}", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let checkout = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(c) = checkout {
        let commit = String::from_utf8(c.stdout).unwrap();
        // Built from this checkout (a rebuild follows HEAD).
        assert!(
            v.contains(&format!("(commit {})", commit.trim())),
            "{v} vs {commit}"
        );
    }
    assert_eq!(stdout(&xiangqi(&["-V"])), v);
}

#[test]
fn bad_options_and_values_get_clap_messages_and_status_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["--bogus"], "unexpected argument '--bogus'"),
        (
            &["nosuchcommand"],
            "unrecognized subcommand 'nosuchcommand'",
        ),
        (&["serve", "--bogus"], "unexpected argument '--bogus'"),
        (
            &["serve", "--port", "abc"],
            "'abc' is not a port number (0-65535)",
        ),
        (&["perft"], "required"),
        (&["perft", "x"], "invalid value 'x' for '<DEPTH>'"),
        (&["perft", "--bogus", "2"], "unexpected argument '--bogus'"),
        (&["moves", "--fen"], "a value is required for '--fen <FEN>'"),
        (
            &["judge", "--repetitions", "1"],
            "invalid value '1' for '--repetitions <N>'",
        ),
        (&["judge", "--lang", "zh"], "--explain"),
        (
            &["judge", "--explain", "--lang", "fr"],
            "'fr' is not a language (en, zh-Hans or zh, zh-Hant, vi)",
        ),
        (&["convert"], "required"),
        (
            &["convert", "x.pgn", "--notation", "san"],
            "invalid value 'san' for '--notation",
        ),
        (
            &["convert", "x.pgn", "--to", "epd"],
            "invalid value 'epd' for '--to",
        ),
        (
            &["convert", "x.pgn", "--encoding", "latin1"],
            "invalid value 'latin1'",
        ),
        (&["uci", "--bogus"], "unexpected argument '--bogus'"),
        (&["bench", "99"], "invalid value '99' for '[DEPTH]'"),
        (
            &["play", "--level", "21"],
            "invalid value '21' for '--level <N>'",
        ),
        (
            &["play", "--side", "green"],
            "invalid value 'green' for '--side",
        ),
        (
            &["play", "--movetime", "0"],
            "invalid value '0' for '--movetime <MS>'",
        ),
        (&["show"], "required"),
        (
            &["show", "x", "--game", "0"],
            "invalid value '0' for '--game <N>'",
        ),
        (&["show", "x", "--ply", "2", "--all"], "cannot be used with"),
        (&["completions", "tcsh"], "invalid value 'tcsh'"),
        (&["man", "--bogus"], "unexpected argument '--bogus'"),
        (&["bot", "--server", "http://h"], "required"),
        (
            &[
                "bot",
                "--server",
                "http://h",
                "--token",
                "t",
                "--engine",
                "e",
                "--accept-tc",
                "blitz,hyper",
            ],
            "'hyper' is not a speed (bullet, blitz, rapid, classical, correspondence)",
        ),
        (
            &[
                "bot", "--server", "http://h", "--token", "t", "--engine", "e", "--option", "Hash",
            ],
            "'Hash' is not NAME=VALUE",
        ),
        (
            &[
                "bot", "--server", "http://h", "--token", "t", "--engine", "e", "--rated",
                "--casual",
            ],
            "cannot be used with",
        ),
        (
            &[
                "bot",
                "--server",
                "http://h",
                "--token",
                "t",
                "--engine",
                "e",
                "--max-games",
                "0",
            ],
            "invalid value '0' for '--max-games <N>'",
        ),
    ];
    for (args, msg) in cases {
        let o = xiangqi(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.starts_with("error: "), "{args:?}: {e}");
        assert!(e.contains(msg), "{args:?}: {e}");
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
    // The match runner reads its own options: its message, status 2.
    let o = xiangqi(&["match", "-bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("xiangqi match: unknown option '-bogus'"),
        "{}",
        stderr(&o)
    );
    // Bad input (not options) is one line naming it, status 2.
    for (args, msg) in [
        (
            &["show", "no-such-file"][..],
            "xiangqi: no-such-file: no such file, and not a FEN\n",
        ),
        (
            &["play", "--fen", "9/9 w"][..],
            "xiangqi: bad FEN '9/9 w': ",
        ),
        (&["show", "9/9 w"][..], "xiangqi: bad FEN '9/9 w': "),
        (
            &["convert", "no-such-file"][..],
            "xiangqi: cannot read no-such-file: ",
        ),
        (
            &[
                "bot",
                "--server",
                "localhost:8080",
                "--token",
                "t",
                "--engine",
                "e",
            ][..],
            "xiangqi: --server 'localhost:8080' is not an http:// or https:// URL\n",
        ),
        (
            &[
                "bot",
                "--server",
                "http://127.0.0.1:9",
                "--token",
                "t",
                "--engine",
                "/no/such/engine",
            ][..],
            "xiangqi: --engine: the engine could not be started: '/no/such/engine': ",
        ),
    ] {
        let o = xiangqi(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.starts_with(msg), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
    }
}

#[test]
fn completions_and_man_pages() {
    for (shell, mark) in [
        ("bash", "complete -F _xiangqi"),
        ("zsh", "#compdef xiangqi"),
        ("fish", "complete -c xiangqi"),
    ] {
        let o = xiangqi(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = stdout(&o);
        assert!(s.contains(mark), "{shell}: {s}");
        for c in ["perft", "judge", "play", "show"] {
            assert!(s.contains(c), "{shell} completion lacks {c}");
        }
    }
    // The bash script is valid bash.
    let bash = stdout(&xiangqi(&["completions", "bash"]));
    let dir = std::env::temp_dir().join(format!("xiangqi-cli-help-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("xiangqi.bash");
    std::fs::write(&script, bash).unwrap();
    if let Ok(o) = Command::new("bash").arg("-n").arg(&script).output() {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    let o = xiangqi(&["man"]);
    assert!(o.status.success());
    let man = stdout(&o);
    assert!(
        man.starts_with(".ie \\n(.g") || man.contains(".TH xiangqi 1"),
        "{man}"
    );
    assert!(man.contains(".TH xiangqi 1"), "{man}");
    assert!(man.contains("play"), "{man}");
    let mandir = dir.join("man");
    let o = xiangqi(&["man", "--dir", mandir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for c in COMMANDS {
        let page = std::fs::read_to_string(mandir.join(format!("xiangqi-{c}.1")))
            .unwrap_or_else(|e| panic!("xiangqi-{c}.1: {e}"));
        assert!(page.contains(&format!(".TH xiangqi-{c} 1")), "{c}: {page}");
    }
    assert!(mandir.join("xiangqi.1").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn readme_command_line_section_matches_the_usage_lines() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = readme
        .split("\n## Command line\n")
        .nth(1)
        .expect("README has a '## Command line' section");
    let block = section
        .split("```\n")
        .nth(1)
        .expect("a code block in the command-line section");
    let documented: Vec<&str> = block.lines().collect();
    let printed: Vec<String> = COMMANDS
        .iter()
        .map(|c| usage(&stdout(&xiangqi(&[c, "--help"]))))
        .collect();
    assert_eq!(
        documented, printed,
        "README.md's command-line block is not what `xiangqi COMMAND --help` prints"
    );
    // Every command is described below the block.
    for c in COMMANDS {
        assert!(
            section.contains(&format!("- `{c}`")),
            "README does not describe {c}"
        );
    }
}
