//! The error of every command, and so the process exit status.

use std::io;

/// Why the command failed, and so its exit status.
#[derive(Debug)]
pub enum Failure {
    /// The command line is wrong: exit status 2.
    Usage(String),
    /// The input, output or environment failed: exit status 1.
    Runtime(anyhow::Error),
    /// The command ended with this status and has said why already (a
    /// damaged input, `--strict`), or must end without a word (a closed
    /// standard output: 141, as a program killed by SIGPIPE).
    Status(i32),
}

/// Exit status when the input capture is damaged: everything before the
/// damage was processed and written.
pub const EXIT_DAMAGED: i32 = 3;
/// Exit status of `--strict` when nothing was decrypted or a frame failed
/// its integrity check.
pub const EXIT_STRICT: i32 = 4;
/// Exit status when standard output was closed by its reader.
pub const EXIT_BROKEN_PIPE: i32 = 141;

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        if is_broken_pipe(&e) {
            return Failure::Status(EXIT_BROKEN_PIPE);
        }
        Failure::Runtime(e)
    }
}

pub(crate) fn usage(msg: impl Into<String>) -> Failure {
    Failure::Usage(msg.into())
}

/// True when an error comes from writing to a pipe whose reader is gone.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Writes a report to standard output (or standard error with
/// `to_stderr`). A reader that went away (`| head`) is not an error: the
/// rest of the report is dropped quietly.
pub fn report(text: &str, to_stderr: bool) {
    use std::io::Write;
    if to_stderr {
        // A failure to print to standard error cannot be reported either.
        let _ = io::stderr().lock().write_all(text.as_bytes());
    } else {
        write_stdout(format_args!("{text}"));
    }
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes to standard output as `print!` does, except that a reader that
/// went away (`| head`) is no panic: the output is dropped from then on,
/// the command finishes its work (removing what it must, as on any end),
/// and [`crate::cli::main`] exits with status 141 without a word.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut o = io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
    }
}

/// True once standard output was found closed by its reader.
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

/// `println!` that survives a closed standard output (see
/// [`write_stdout`]).
#[macro_export]
macro_rules! outln {
    () => { $crate::error::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => {
        $crate::error::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that survives a closed standard output.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::error::write_stdout(format_args!($($arg)*)) };
}
