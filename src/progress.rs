//! Progress bars (indicatif) on stderr for long work: drawn only when stderr is a terminal,
//! so that piped or redirected output carries none.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether bars are drawn at all: stderr is a terminal.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal()
}

fn bar(total: u64, template: &str) -> ProgressBar {
    if !enabled() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    b
}

/// A bar over `total` bytes, labelled `what`.
pub fn bytes(total: u64, what: &str) -> ProgressBar {
    let b = bar(
        total,
        "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left)",
    );
    b.set_message(what.to_string());
    b
}

/// A bar over `total` items (`unit`: "games"), labelled `what`.
pub fn items(total: u64, what: &str, unit: &str) -> ProgressBar {
    let b = bar(
        total,
        &format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit} ({{eta}} left)"),
    );
    b.set_message(what.to_string());
    b
}

/// A spinner for work of unknown length, labelled `what`; its message says how far it is.
pub fn spinner(what: &str) -> ProgressBar {
    if !enabled() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(&format!("{{spinner}} {what}: {{msg}} ({{elapsed}})"))
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    b.enable_steady_tick(std::time::Duration::from_millis(200));
    b
}
