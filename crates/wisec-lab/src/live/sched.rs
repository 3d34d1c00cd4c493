//! CPU placement and priority of the programs of a live run, and what the
//! scheduler did with them.
//!
//! Seed 004's nodes were single-core laptops: a node's IKE daemon, routing
//! daemon and streaming load competed for one CPU, under nice levels. Here
//! the nodes share one kernel and a few CPUs, so a node's programs are
//! pinned to one CPU (`taskset -c`), started under `nice -n`, and put in a
//! CPU control group of their own node ([`CpuGroups`]); pins can be moved
//! later ([`pin_process`]).
//!
//! The control group matters on a machine that other programs use too.
//! Linux schedules the processes of the root group by session
//! ("autogroup"): the wisec process's session holds the medium's thread
//! and, without node groups, every node's programs. A session's share of
//! the machine is split over the CPUs by the weight of what runs on each,
//! so a nice −20 load on one CPU would draw nearly all of it there and
//! leave the medium and the other nodes on the other CPU a sliver against
//! other sessions. In a group of its own, each node is one more competitor
//! of equal standing, like one more machine, and nice levels compare
//! within the node, as on the seed's laptops.
//!
//! What the scheduler gave a process is read from
//! `/proc/PID/task/*/schedstat`: time on a CPU and time spent runnable but
//! waiting for one, summed over its threads.

use super::sys::{find_program, LiveError, Result};
use std::path::{Path, PathBuf};

/// The CPU control groups of a run's nodes: `wisec-TAG-NODE` in the cpu
/// hierarchy (cgroup v1's `cpu` controller, or cgroup v2 with `cpu`
/// enabled), removed when dropped.
#[derive(Debug, Default)]
pub struct CpuGroups {
    root: Option<PathBuf>,
    made: Vec<PathBuf>,
}

/// Where the machine's cpu controller is, if this process may use it.
fn cpu_hierarchy() -> Option<PathBuf> {
    let v1 = Path::new("/sys/fs/cgroup/cpu");
    if v1.join("cgroup.procs").exists() && v1.join("cpu.shares").exists() {
        return Some(v1.to_path_buf());
    }
    let v2 = Path::new("/sys/fs/cgroup");
    let ctl = std::fs::read_to_string(v2.join("cgroup.subtree_control")).ok()?;
    ctl.split_whitespace()
        .any(|c| c == "cpu")
        .then(|| v2.to_path_buf())
}

impl CpuGroups {
    /// The groups of a run, in the machine's cpu hierarchy if there is one
    /// this process may use (else none: the nodes' programs stay in the
    /// session's group, see the module's note).
    pub fn new() -> CpuGroups {
        CpuGroups {
            root: cpu_hierarchy(),
            made: Vec::new(),
        }
    }

    /// Whether node groups can be made.
    pub fn available(&self) -> bool {
        self.root.is_some()
    }

    /// Creates group `name` (`wisec-TAG-NODE`); the path of its
    /// `cgroup.procs`, or `None` without a cpu hierarchy this process may
    /// write to (a read-only one turns node groups off for the run).
    pub fn create(&mut self, name: &str) -> Result<Option<PathBuf>> {
        let Some(root) = &self.root else {
            return Ok(None);
        };
        let dir = root.join(name);
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e)
                if self.made.is_empty()
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::PermissionDenied
                            | std::io::ErrorKind::ReadOnlyFilesystem
                    ) =>
            {
                self.root = None;
                return Ok(None);
            }
            Err(e) => {
                return Err(LiveError::io(
                    format!("creating the control group {}", dir.display()),
                    e,
                ))
            }
        }
        self.made.push(dir.clone());
        Ok(Some(dir.join("cgroup.procs")))
    }

    /// Moves process group `pgid` (a program just started, its leader,
    /// and whatever it started meanwhile) into the group whose
    /// `cgroup.procs` is `procs`. The leader goes first: a child it forks
    /// after that is born in the group, one forked before is found and
    /// moved next.
    pub fn adopt(procs: &Path, pgid: u32) -> Result<()> {
        let write = |pid: u32| {
            std::fs::write(procs, pid.to_string())
                .map_err(|e| LiveError::io(format!("moving {pid} into {}", procs.display()), e))
        };
        write(pgid)?;
        for pid in processes() {
            if pid != pgid
                && stat_fields(pid).and_then(|f| f.get(2).copied()) == Some(u64::from(pgid))
            {
                // A process that ended meanwhile is no error.
                let _ = write(pid);
            }
        }
        Ok(())
    }

    /// Removes every group made (their processes must have ended); what
    /// could not be removed.
    pub fn remove_all(&mut self) -> Vec<String> {
        let mut failed = Vec::new();
        for d in self.made.drain(..).rev() {
            if let Err(e) = remove_group(&d) {
                failed.push(format!("{}: {e}", d.display()));
            }
        }
        failed
    }
}

impl Drop for CpuGroups {
    fn drop(&mut self) {
        for f in self.remove_all() {
            eprintln!("wisec: live lab cleanup: {f}");
        }
    }
}

/// Removes an empty control group, waiting a moment for processes that
/// are being killed to leave it.
fn remove_group(dir: &Path) -> std::io::Result<()> {
    let mut last = None;
    for _ in 0..40 {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("cannot remove")))
}

/// Removes the control groups of runs that no longer run (empty by then:
/// their processes were killed with their namespaces); their names.
pub fn remove_leftover_groups() -> Vec<String> {
    let Some(root) = cpu_hierarchy() else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in rd.flatten() {
        let Ok(name) = e.file_name().into_string() else {
            continue;
        };
        if !name.starts_with(super::net::PREFIX) || super::net::tag_alive(&name) {
            continue;
        }
        let procs = std::fs::read_to_string(e.path().join("cgroup.procs")).unwrap_or_default();
        if procs.trim().is_empty() && remove_group(&e.path()).is_ok() {
            removed.push(name);
        }
    }
    if !removed.is_empty() {
        eprintln!(
            "wisec: removed {} control group(s) left by a live run that ended without cleaning up: {}",
            removed.len(),
            removed.join(", ")
        );
    }
    removed
}

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

/// The process ids of the machine (this pid namespace).
fn processes() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Fields 3 onwards of /proc/PID/stat (after the command name, which is
/// in parentheses and may hold spaces).
fn stat_fields(pid: u32) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(
        rest.split_whitespace()
            .map(|f| f.parse::<i64>().map_or(0, |x| x.max(0) as u64))
            .collect(),
    )
}

/// The CPU seconds of process group `pgid`: user and system time of its
/// live processes, and of the children its leader has waited for (fields
/// 14 to 17 of /proc/PID/stat), at the kernel's clock-tick resolution.
pub fn group_cpu_s(pgid: u32) -> f64 {
    // /proc counts in USER_HZ, 100 per second on every Linux ABI
    // (sysconf(_SC_CLK_TCK)).
    let tck = 100.0;
    let mut ticks = 0u64;
    for pid in processes() {
        let Some(f) = stat_fields(pid) else { continue };
        if f.get(2).copied() != Some(u64::from(pgid)) {
            continue;
        }
        // utime, stime (fields 14, 15); cutime, cstime (16, 17) for the
        // leader, whose waited-for children are the group's ended ones.
        ticks += f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
        if pid == pgid {
            ticks += f.get(13).copied().unwrap_or(0) + f.get(14).copied().unwrap_or(0);
        }
    }
    ticks as f64 / tck
}

/// The CPUs this process may run on.
pub fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

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

    /// A group whose leader runs a child that does a fixed amount of work
    /// and waits for it: the child's CPU time still counts after it ended.
    #[test]
    fn a_process_groups_cpu_time_includes_its_ended_children() {
        let mut leader = std::process::Command::new("sh")
            .args([
                "-c",
                "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; exec sleep 30",
            ])
            .process_group(0)
            .spawn()
            .unwrap();
        // Wait until the leader has become `sleep`: its child has ended.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let comm = format!("/proc/{}/comm", leader.id());
        while std::fs::read_to_string(&comm).unwrap_or_default().trim() != "sleep" {
            assert!(std::time::Instant::now() < deadline, "the work did not end");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let s = group_cpu_s(leader.id());
        let _ = leader.kill();
        let _ = leader.wait();
        // 300000 rounds of a shell loop take tenths of a second of CPU.
        assert!(s >= 0.05, "{s}");
        assert_eq!(group_cpu_s(u32::MAX), 0.0);
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
