//! The error of every command, and so the process exit status.

/// Why the command failed, and so its exit status.
#[derive(Debug)]
pub enum Failure {
    /// The command line is wrong: exit status 2.
    Usage(String),
    /// The input, output or environment failed: exit status 1.
    Runtime(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Runtime(e)
    }
}

pub(crate) fn usage(msg: impl Into<String>) -> Failure {
    Failure::Usage(msg.into())
}
