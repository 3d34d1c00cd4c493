//! The time-stamp counter, to express timings in cycles.
//!
//! On x86_64 with an invariant TSC (`constant_tsc`, `nonstop_tsc`) the
//! counter ticks at a fixed reference rate whatever the core clock does, so
//! cycles derived from it are reference cycles, not core cycles under
//! turbo.

/// Reads the time-stamp counter, or `None` where there is none.
#[cfg(target_arch = "x86_64")]
pub fn read() -> Option<u64> {
    // SAFETY: RDTSC exists on every x86_64 CPU, reads a counter and has no
    // memory effects; `_rdtsc` is `unsafe` only as an intrinsic.
    Some(unsafe { core::arch::x86_64::_rdtsc() })
}

/// Reads the time-stamp counter, or `None` where there is none.
#[cfg(not(target_arch = "x86_64"))]
pub fn read() -> Option<u64> {
    None
}

/// True when `/proc/cpuinfo` lists both `constant_tsc` and `nonstop_tsc`,
/// i.e. the counter runs at one rate in every power state.
pub fn invariant() -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .map(|s| {
            s.lines()
                .find(|l| l.starts_with("flags"))
                .map(|l| {
                    let words: Vec<&str> = l.split_whitespace().collect();
                    words.contains(&"constant_tsc") && words.contains(&"nonstop_tsc")
                })
                .unwrap_or(false)
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn counter_advances() {
        let a = super::read().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = super::read().unwrap();
        assert!(b > a);
    }
}
