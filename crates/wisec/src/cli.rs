//! Command-line interface.

/// Runs the command line, returning the process exit code.
pub fn main() -> i32 {
    0
}
