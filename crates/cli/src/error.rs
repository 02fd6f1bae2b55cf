//! Errors with exit codes, reported as one line on stderr.

use std::io::Write;
use std::process::ExitCode;

/// Exit code of usage and input errors (bad arguments, unreadable files,
/// rejected parameters).
pub const EXIT_INPUT: u8 = 2;
/// Exit code of every other failure (a row with a bad status, I/O, bugs).
pub const EXIT_FAILURE: u8 = 1;

/// A failure and the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    code: u8,
    error: anyhow::Error,
}

impl CliError {
    /// A usage or input error (exit 2).
    pub fn input(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: EXIT_INPUT,
            error: error.into(),
        }
    }

    /// Any other failure (exit 1).
    pub fn failure(error: impl Into<anyhow::Error>) -> Self {
        CliError {
            code: EXIT_FAILURE,
            error: error.into(),
        }
    }

    /// Prints `error: ...` (one line, the whole context chain) and gives the exit code.
    pub fn report(&self) -> ExitCode {
        let _ = writeln!(
            std::io::stderr(),
            "error: {}",
            one_line(&format!("{:#}", self.error))
        );
        ExitCode::from(self.code)
    }
}

/// Shorthand: a usage/input error from a message.
pub fn input_msg(msg: impl std::fmt::Display) -> CliError {
    CliError::input(anyhow::anyhow!("{msg}"))
}

/// Shorthand: a failure from a message.
pub fn failure_msg(msg: impl std::fmt::Display) -> CliError {
    CliError::failure(anyhow::anyhow!("{msg}"))
}

/// Maps a `Result` to a [`CliError`] of a given kind.
pub trait ResultExt<T> {
    /// Errors become usage/input errors (exit 2).
    fn or_input(self) -> Result<T, CliError>;
    /// Errors become failures (exit 1).
    fn or_failure(self) -> Result<T, CliError>;
}

impl<T, E: Into<anyhow::Error>> ResultExt<T> for Result<T, E> {
    fn or_input(self) -> Result<T, CliError> {
        self.map_err(CliError::input)
    }
    fn or_failure(self) -> Result<T, CliError> {
        self.map_err(CliError::failure)
    }
}

/// Collapses a message onto one line.
pub fn one_line(s: &str) -> String {
    s.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reports a clap error: help and version go to stdout as clap prints them;
/// real errors become one line (usage text dropped, a pointer to `--help` kept).
pub fn report_clap(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = writeln!(
            std::io::stderr(),
            "error: no command given: use one of noise, sample, bench-cpu, replay, audit-draws (try 'tailrace --help')"
        );
        return ExitCode::from(EXIT_INPUT);
    }
    let text = e.to_string();
    let mut parts: Vec<String> = Vec::new();
    let mut hint = None;
    let mut in_usage = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            in_usage = false;
            continue;
        }
        if let Some(rest) = line.strip_prefix("For more information, try ") {
            hint = Some(rest.trim_end_matches('.').to_owned());
            continue;
        }
        if line.starts_with("Usage:") {
            in_usage = true;
            continue;
        }
        if in_usage {
            continue;
        }
        parts.push(line.strip_prefix("error: ").unwrap_or(line).to_owned());
    }
    let mut msg = parts.join(" ");
    if msg.is_empty() {
        msg = "invalid command line".to_owned();
    }
    if let Some(h) = hint {
        msg.push_str(&format!(" (try {h})"));
    }
    let _ = writeln!(std::io::stderr(), "error: {msg}");
    ExitCode::from(EXIT_INPUT)
}
