//! CPU placement and priority of the programs of a live run, and what the
//! scheduler did with them.
//!
//! Seed 004's nodes were single-core laptops: a node's IKE daemon, routing
//! daemon and streaming load competed for one CPU, under nice levels. Here
//! the nodes share one kernel and a few CPUs, so a node's programs are
//! pinned to one CPU (`taskset -c`) and started under `nice -n`; pins can
//! be moved later ([`pin_process`]). What the scheduler gave a process is
//! read from `/proc/PID/task/*/schedstat`: time on a CPU and time spent
//! runnable but waiting for one, summed over its threads.

use super::sys::{find_program, LiveError, Result};
use std::path::Path;

/// The nice levels Linux has (setpriority(2)).
pub const NICE_RANGE: std::ops::RangeInclusive<i32> = -20..=19;

/// The command prefix that runs a program on CPU `cpu` (if given) at nice
/// level `nice` (if given): `taskset -c CPU nice -n N`.
pub fn wrap(cpu: Option<usize>, nice: Option<i32>) -> Result<Vec<String>> {
    let mut v = Vec::new();
    if let Some(c) = cpu {
        v.push(find_program("taskset")?.display().to_string());
        v.extend(["-c".to_string(), c.to_string()]);
    }
    if let Some(n) = nice {
        if !NICE_RANGE.contains(&n) {
            return Err(LiveError::Config(format!(
                "nice level {n}: Linux has -20 (highest priority) to 19"
            )));
        }
        v.push(find_program("nice")?.display().to_string());
        v.extend(["-n".to_string(), n.to_string()]);
    }
    Ok(v)
}

/// The program and arguments that run `program ARGS` behind `prefix`
/// (from [`wrap`]): the prefix's first word is the program then.
pub fn command(
    prefix: &[String],
    program: &Path,
    args: &[String],
) -> Result<(String, Vec<String>)> {
    let program = program.display().to_string();
    match prefix.split_first() {
        None => Ok((program, args.to_vec())),
        Some((first, rest)) => {
            let mut v = rest.to_vec();
            v.push(program);
            v.extend_from_slice(args);
            Ok((first.clone(), v))
        }
    }
}

/// The thread ids of process `pid`.
fn tasks(pid: u32) -> Vec<i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Pins every thread of process `pid` to CPU `cpu`.
pub fn pin_process(pid: u32, cpu: usize) -> Result<()> {
    let mut set = nix::sched::CpuSet::new();
    set.set(cpu)
        .map_err(|e| LiveError::io(format!("CPU {cpu}"), std::io::Error::from(e)))?;
    for t in tasks(pid) {
        // A thread that ended meanwhile is no error.
        let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(t), &set);
    }
    Ok(())
}

/// What the scheduler gave a process so far (its live threads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchedStat {
    /// Time on a CPU, ns.
    pub run_ns: u64,
    /// Time runnable but waiting for a CPU, ns.
    pub wait_ns: u64,
}

impl SchedStat {
    /// The sums over the threads of `pid`; zero if it does not exist.
    pub fn of(pid: u32) -> SchedStat {
        let mut s = SchedStat::default();
        for t in tasks(pid) {
            let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/task/{t}/schedstat"))
            else {
                continue;
            };
            let mut f = text
                .split_whitespace()
                .map(|x| x.parse::<u64>().unwrap_or(0));
            s.run_ns += f.next().unwrap_or(0);
            s.wait_ns += f.next().unwrap_or(0);
        }
        s
    }

    /// What happened between `earlier` and this reading.
    pub fn since(self, earlier: SchedStat) -> SchedStat {
        SchedStat {
            run_ns: self.run_ns.saturating_sub(earlier.run_ns),
            wait_ns: self.wait_ns.saturating_sub(earlier.wait_ns),
        }
    }
}

/// The CPUs this process may run on.
pub fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_go_before_the_program() {
        let p = wrap(Some(1), Some(-20)).unwrap();
        assert!(p[0].ends_with("taskset"), "{p:?}");
        assert_eq!(&p[1..3], ["-c", "1"]);
        assert!(p[3].ends_with("nice"));
        assert_eq!(&p[4..], ["-n", "-20"]);
        let (prog, args) = command(&p, Path::new("/bin/true"), &["x".into()]).unwrap();
        assert!(prog.ends_with("taskset"));
        assert_eq!(args.last().map(String::as_str), Some("x"));
        assert_eq!(args[args.len() - 2], "/bin/true");
        let (prog, args) = command(&[], Path::new("/bin/true"), &["x".into()]).unwrap();
        assert_eq!((prog.as_str(), args), ("/bin/true", vec!["x".to_string()]));
        let e = wrap(None, Some(20)).unwrap_err().to_string();
        assert!(e.contains("-20") && e.contains("19"), "{e}");
        assert!(wrap(None, Some(-21)).is_err());
    }

    #[test]
    fn the_scheduler_statistics_of_a_busy_process_grow() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let a = SchedStat::of(child.id());
        std::thread::sleep(std::time::Duration::from_millis(100));
        let b = SchedStat::of(child.id());
        let _ = child.kill();
        let _ = child.wait();
        assert!(a.run_ns > 0, "{a:?}");
        assert!(b.since(a).run_ns > 0, "{a:?} {b:?}");
        assert_eq!(SchedStat::of(u32::MAX), SchedStat::default());
    }
}
