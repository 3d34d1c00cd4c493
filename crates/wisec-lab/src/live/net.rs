//! A live run's network: one network namespace per node, TAP devices,
//! veth pairs, bridges and addresses inside them, and the programs that
//! run there — all named with the run's tag and all removed when the run
//! ends, however it ends.
//!
//! Namespaces are created with iproute2's `ip netns` (bind mounts under
//! `/run/netns`) and called `wisec-TAG-NODE`, where the tag is the process
//! id, the low bits of the process's start time and a counter
//! (`wisec-48213-9f3a-0-sta1`). Every link is created inside the
//! namespaces (`ip -n NS …`); nothing is added to, changed in or removed
//! from the host's own namespace. A new run first looks for namespaces
//! whose tag names a process that no longer runs (a crashed or killed
//! run), stops what still runs in them and deletes them, and says so.
//!
//! Cleanup happens in [`LiveNet::cleanup`], which [`Drop`] calls: child
//! processes get SIGTERM, then SIGKILL after a grace period; whatever else
//! still runs in the run's namespaces is killed; the namespaces are
//! deleted (which destroys their interfaces); the temporary run directory,
//! if the run made one, is removed. [`emergency_cleanup`] does the same
//! for every run of the process from a signal handler's thread, for a
//! second Ctrl-C that must not wait for the run to unwind.

use super::sys::{self, LiveError, Result};
use nix::sched::CloneFlags;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wisec_wire::MacAddr;

/// The prefix of every namespace a live run creates.
pub const PREFIX: &str = "wisec-";
/// Where `ip netns` keeps its namespaces.
const NETNS_DIR: &str = "/run/netns";
/// Longest interface name (IFNAMSIZ - 1).
pub const IFNAME_MAX: usize = 15;
/// How long a child process has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_millis(1500);

/// Per run tag: its namespaces and its children's process groups.
type Registry = BTreeMap<String, (Vec<String>, Vec<i32>)>;

/// Every run of this process that has not been cleaned up yet, for
/// [`emergency_cleanup`].
static ACTIVE: Mutex<Registry> = Mutex::new(BTreeMap::new());
static COUNTER: AtomicU32 = AtomicU32::new(0);

fn with_active(f: impl FnOnce(&mut Registry)) {
    let mut g = ACTIVE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(&mut g);
}

/// A namespace of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Netns {
    /// Its name (`wisec-TAG-NODE`).
    pub name: String,
    /// The node it belongs to.
    pub node: String,
}

impl Netns {
    /// The bind mount that names it.
    pub fn path(&self) -> PathBuf {
        Path::new(NETNS_DIR).join(&self.name)
    }
}

/// A program started in a namespace.
#[derive(Debug)]
struct Proc {
    name: String,
    child: Child,
    log: PathBuf,
    /// Its command line, for messages.
    line: String,
    /// Where its standard output goes, if to a file of its own.
    out: Option<PathBuf>,
}

/// A process id handed out by [`LiveNet::spawn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcId(usize);

/// What [`LiveNet::cleanup`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CleanupReport {
    /// Namespaces deleted.
    pub namespaces: usize,
    /// Child processes stopped.
    pub processes: usize,
    /// What could not be removed (each with the reason).
    pub failures: Vec<String>,
}

/// Checks that `node` can name a node of a live run: 1 to 15 characters
/// (it also names the node's veth end on a bridge, and an interface name
/// has at most 15), letters, digits, `-` and `_`, starting with a letter.
pub fn check_node_name(node: &str) -> Result<()> {
    let ok_chars = node
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let starts = node.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if node.is_empty() || node.len() > IFNAME_MAX {
        return Err(LiveError::Config(format!(
            "node name '{node}' is {} characters long; a live node's name also names a network \
interface, which has at most {IFNAME_MAX}",
            node.len()
        )));
    }
    if !ok_chars || !starts {
        return Err(LiveError::Config(format!(
            "node name '{node}': use letters, digits, '-' and '_', starting with a letter"
        )));
    }
    Ok(())
}

/// A live run's network.
#[derive(Debug)]
pub struct LiveNet {
    tag: String,
    namespaces: Vec<Netns>,
    procs: Vec<Proc>,
    run_dir: PathBuf,
    temp_dir: Option<PathBuf>,
    leftovers: Vec<String>,
    interrupt: Arc<AtomicBool>,
    cleaned: bool,
}

impl LiveNet {
    /// A new run: checks privileges and `ip`, removes leftovers of crashed
    /// runs, and makes the run directory (`run_dir`, or a temporary one
    /// that cleanup removes). Logs of the programs go there.
    pub fn new(run_dir: Option<&Path>) -> Result<LiveNet> {
        sys::require_privileges()?;
        sys::find_program("ip")?;
        let pid = std::process::id();
        let start = sys::process_start(pid).unwrap_or(0) & 0xffff;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tag = format!("{pid}-{start:04x}-{n}");
        let leftovers = remove_leftovers()?;
        let (run_dir, temp_dir) = match run_dir {
            Some(d) => {
                std::fs::create_dir_all(d)
                    .map_err(|e| LiveError::io(format!("creating {}", d.display()), e))?;
                // Absolute: the programs started in it run with other
                // working directories and read the paths it gives them.
                let d = std::path::absolute(d)
                    .map_err(|e| LiveError::io(format!("resolving {}", d.display()), e))?;
                (d, None)
            }
            None => {
                let d = std::env::temp_dir().join(format!("{PREFIX}{tag}"));
                std::fs::create_dir_all(&d)
                    .map_err(|e| LiveError::io(format!("creating {}", d.display()), e))?;
                (d.clone(), Some(d))
            }
        };
        with_active(|a| {
            a.insert(tag.clone(), (Vec::new(), Vec::new()));
        });
        Ok(LiveNet {
            tag,
            namespaces: Vec::new(),
            procs: Vec::new(),
            run_dir,
            temp_dir,
            leftovers,
            interrupt: Arc::new(AtomicBool::new(false)),
            cleaned: false,
        })
    }

    /// The run's tag.
    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// Where logs and generated configurations go.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// Namespaces of crashed runs that [`LiveNet::new`] removed.
    pub fn leftovers_removed(&self) -> &[String] {
        &self.leftovers
    }

    /// The run's namespaces, in creation order.
    pub fn namespaces(&self) -> &[Netns] {
        &self.namespaces
    }

    /// Makes waits ([`LiveNet::exec`]) end early when `flag` is set.
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = flag;
    }

    /// Whether the run was asked to stop.
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::SeqCst)
    }

    /// The namespace of `node`, if it was created.
    pub fn netns(&self, node: &str) -> Option<&Netns> {
        self.namespaces.iter().find(|n| n.node == node)
    }

    /// Creates the namespace of `node` with its loopback up and IPv6 off
    /// (the lab's traffic is IPv4; router solicitations and MLD reports
    /// would only add frames to the channel).
    pub fn add_namespace(&mut self, node: &str) -> Result<Netns> {
        check_node_name(node)?;
        if self.netns(node).is_some() {
            return Err(LiveError::Config(format!("two nodes are called '{node}'")));
        }
        let ns = Netns {
            name: format!("{PREFIX}{}-{node}", self.tag),
            node: node.to_string(),
        };
        // Registered before it exists, so that a failure halfway is still
        // cleaned up.
        with_active(|a| {
            if let Some(e) = a.get_mut(&self.tag) {
                e.0.push(ns.name.clone());
            }
        });
        self.namespaces.push(ns.clone());
        sys::ip(["netns", "add", &ns.name])?;
        self.ip_in(&ns, &["link", "set", "lo", "up"])?;
        self.sysctl(&ns, "net/ipv6/conf/all/disable_ipv6", "1")?;
        self.sysctl(&ns, "net/ipv6/conf/default/disable_ipv6", "1")?;
        Ok(ns)
    }

    /// Runs `ip -n NS ARGS…`.
    pub fn ip_in(&self, ns: &Netns, args: &[&str]) -> Result<Output> {
        let mut v = vec!["-n", ns.name.as_str()];
        v.extend_from_slice(args);
        sys::ip(v)
    }

    /// Writes `value` to `/proc/sys/KEY` inside `ns`.
    pub fn sysctl(&self, ns: &Netns, key: &str, value: &str) -> Result<()> {
        let path = Path::new("/proc/sys").join(key);
        in_netns(ns, move || {
            std::fs::write(&path, value)
                .map_err(|e| LiveError::io(format!("writing {}", path.display()), e))
        })?
    }

    /// A veth pair: `a_dev` in `a`, `b_dev` in `b`, both up.
    pub fn veth(&self, a: &Netns, a_dev: &str, b: &Netns, b_dev: &str) -> Result<()> {
        for d in [a_dev, b_dev] {
            check_ifname(d)?;
        }
        self.ip_in(
            a,
            &[
                "link", "add", a_dev, "type", "veth", "peer", "name", b_dev, "netns", &b.name,
            ],
        )?;
        self.ip_in(a, &["link", "set", a_dev, "up"])?;
        self.ip_in(b, &["link", "set", b_dev, "up"])?;
        Ok(())
    }

    /// A bridge `name` in `ns` with `ports` (already in `ns`) as its ports,
    /// up.
    pub fn bridge(&self, ns: &Netns, name: &str, ports: &[&str]) -> Result<()> {
        check_ifname(name)?;
        self.ip_in(ns, &["link", "add", name, "type", "bridge"])?;
        for p in ports {
            self.ip_in(ns, &["link", "set", p, "master", name])?;
        }
        self.ip_in(ns, &["link", "set", name, "up"])?;
        Ok(())
    }

    /// Adds the address `cidr` (`10.99.0.1/24`) to `dev` in `ns`.
    pub fn add_addr(&self, ns: &Netns, dev: &str, cidr: &str) -> Result<()> {
        self.ip_in(ns, &["addr", "add", cidr, "dev", dev]).map(drop)
    }

    /// Creates a TAP device `dev` inside `ns` with the hardware address
    /// `mac`, and brings it up. The returned device is this process's
    /// handle on it: closing it (dropping) destroys the interface.
    pub fn tap(&self, ns: &Netns, dev: &str, mac: MacAddr) -> Result<tappers::linux::Tap> {
        check_ifname(dev)?;
        let name = dev.to_string();
        let tap = in_netns(ns, move || {
            let ifname = tappers::Interface::new(&name)
                .map_err(|e| LiveError::io(format!("interface name {name}"), e))?;
            let tap = tappers::linux::Tap::create_named(ifname)
                .map_err(|e| LiveError::io(format!("creating the TAP device {name}"), e))?;
            tap.set_nonblocking(true)
                .map_err(|e| LiveError::io("making the TAP non-blocking", e))?;
            Ok::<_, LiveError>(tap)
        })??;
        self.ip_in(ns, &["link", "set", dev, "address", &mac.to_string()])?;
        self.ip_in(ns, &["link", "set", dev, "up"])?;
        Ok(tap)
    }

    /// Starts `program` with `args` in `ns` (through `ip netns exec`), its
    /// standard output and error in `RUN_DIR/LOG.log`, in a process group
    /// of its own so that cleanup stops it with everything it started.
    pub fn spawn(
        &mut self,
        ns: &Netns,
        program: &str,
        args: &[String],
        log: &str,
    ) -> Result<ProcId> {
        let (cmd, log_path) = self.command(ns, program, args, log)?;
        self.spawn_command(cmd, program, log_path)
    }

    /// Starts a prepared command (from [`LiveNet::command`]).
    pub fn spawn_command(&mut self, mut cmd: Command, name: &str, log: PathBuf) -> Result<ProcId> {
        let line = sys::command_line(&cmd);
        let child = cmd
            .spawn()
            .map_err(|e| LiveError::io(format!("starting {line}"), e))?;
        let pgid = child.id() as i32;
        with_active(|a| {
            if let Some(e) = a.get_mut(&self.tag) {
                e.1.push(pgid);
            }
        });
        self.procs.push(Proc {
            name: name.to_string(),
            child,
            log,
            line,
            out: None,
        });
        Ok(ProcId(self.procs.len() - 1))
    }

    /// The command that runs `program ARGS` in `ns`, with output to
    /// `RUN_DIR/LOG.log`, in its own process group; and the log's path.
    pub fn command(
        &self,
        ns: &Netns,
        program: &str,
        args: &[String],
        log: &str,
    ) -> Result<(Command, PathBuf)> {
        let ip = sys::find_program("ip")?;
        let prog = sys::find_program(program)?;
        let log_path = self.run_dir.join(format!("{log}.log"));
        let f = File::create(&log_path)
            .map_err(|e| LiveError::io(format!("creating {}", log_path.display()), e))?;
        let f2 = f
            .try_clone()
            .map_err(|e| LiveError::io("duplicating a log file", e))?;
        let mut cmd = Command::new(ip);
        cmd.args(["netns", "exec", &ns.name])
            .arg(prog)
            .args(args)
            .stdin(Stdio::null())
            .stdout(f)
            .stderr(f2)
            .process_group(0);
        Ok((cmd, log_path))
    }

    /// Whether the process `id` still runs.
    pub fn running(&mut self, id: ProcId) -> bool {
        self.procs
            .get_mut(id.0)
            .is_some_and(|p| matches!(p.child.try_wait(), Ok(None)))
    }

    /// The process id of process `id` (`ip netns exec` execs the program,
    /// so it is the program's own, and that of every program it execs).
    pub fn pid(&self, id: ProcId) -> Option<u32> {
        self.procs.get(id.0).map(|p| p.child.id())
    }

    /// The log file of process `id`.
    pub fn log_path(&self, id: ProcId) -> Option<&Path> {
        self.procs.get(id.0).map(|p| p.log.as_path())
    }

    /// Waits up to `timeout` for process `id` to end; its exit status, or
    /// `None` if it still runs (or the run was interrupted).
    pub fn wait(
        &mut self,
        id: ProcId,
        timeout: Duration,
    ) -> Result<Option<std::process::ExitStatus>> {
        let deadline = Instant::now() + timeout;
        loop {
            let Some(p) = self.procs.get_mut(id.0) else {
                return Ok(None);
            };
            if let Some(st) = p
                .child
                .try_wait()
                .map_err(|e| LiveError::io(format!("waiting for {}", p.name), e))?
            {
                return Ok(Some(st));
            }
            if Instant::now() >= deadline || self.interrupted() {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Runs `program ARGS` in `ns` to completion (or `timeout`, after which
    /// it is stopped and the run fails); its standard output, with
    /// standard error in `RUN_DIR/LOG.log`.
    pub fn exec(
        &mut self,
        ns: &Netns,
        program: &str,
        args: &[String],
        log: &str,
        timeout: Duration,
    ) -> Result<String> {
        let id = self.start(ns, program, args, log)?;
        self.finish(id, timeout)
    }

    /// Starts `program ARGS` in `ns` with its standard output in
    /// `RUN_DIR/LOG.out` and its standard error in `RUN_DIR/LOG.log`; see
    /// [`LiveNet::finish`].
    pub fn start(
        &mut self,
        ns: &Netns,
        program: &str,
        args: &[String],
        log: &str,
    ) -> Result<ProcId> {
        let out_path = self.run_dir.join(format!("{log}.out"));
        let (mut cmd, log_path) = self.command(ns, program, args, log)?;
        let out = File::create(&out_path)
            .map_err(|e| LiveError::io(format!("creating {}", out_path.display()), e))?;
        cmd.stdout(out);
        let line = sys::command_line(&cmd);
        let id = self.spawn_command(cmd, program, log_path)?;
        if let Some(p) = self.procs.get_mut(id.0) {
            p.line = line;
            p.out = Some(out_path);
        }
        Ok(id)
    }

    /// Waits for a program started with [`LiveNet::start`] to end (or
    /// `timeout`, after which it is stopped and this is an error); its
    /// standard output.
    pub fn finish(&mut self, id: ProcId, timeout: Duration) -> Result<String> {
        let (line, out_path, log_path) = match self.procs.get(id.0) {
            Some(p) => (p.line.clone(), p.out.clone(), p.log.clone()),
            None => return Err(LiveError::Config("no such process".into())),
        };
        let status = self.wait(id, timeout)?;
        let text = out_path
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default();
        match status {
            Some(st) if st.success() => Ok(text),
            Some(st) => {
                let err = std::fs::read_to_string(&log_path).unwrap_or_default();
                let err = err.trim();
                Err(LiveError::Command {
                    command: line,
                    message: if err.is_empty() {
                        format!("exited with {st}")
                    } else {
                        format!("exited with {st}: {}", last_lines(err, 5))
                    },
                })
            }
            None => {
                self.stop(id);
                if self.interrupted() {
                    Err(LiveError::Interrupted)
                } else {
                    Err(LiveError::Command {
                        command: line,
                        message: format!("did not finish within {} s", timeout.as_secs_f64()),
                    })
                }
            }
        }
    }

    /// Stops process `id` (SIGTERM to its group, SIGKILL after a grace
    /// period).
    pub fn stop(&mut self, id: ProcId) {
        if let Some(p) = self.procs.get_mut(id.0) {
            stop_child(&mut p.child);
        }
    }

    /// Stops every process, deletes every namespace (and with them every
    /// interface), and removes the temporary run directory. Safe to call
    /// more than once.
    pub fn cleanup(&mut self) -> CleanupReport {
        let mut r = CleanupReport::default();
        if self.cleaned {
            return r;
        }
        self.cleaned = true;
        for p in &mut self.procs {
            if matches!(p.child.try_wait(), Ok(None)) {
                r.processes += 1;
            }
            stop_child(&mut p.child);
        }
        for ns in self.namespaces.iter().rev() {
            kill_namespace_pids(&ns.name);
            match delete_namespace(&ns.name) {
                Ok(true) => r.namespaces += 1,
                Ok(false) => {}
                Err(e) => r.failures.push(format!("{}: {e}", ns.name)),
            }
        }
        if let Some(d) = self.temp_dir.take() {
            if let Err(e) = std::fs::remove_dir_all(&d) {
                r.failures.push(format!("{}: {e}", d.display()));
            }
        }
        with_active(|a| {
            a.remove(&self.tag);
        });
        r
    }
}

impl Drop for LiveNet {
    fn drop(&mut self) {
        let r = self.cleanup();
        for f in r.failures {
            eprintln!("wisec: live lab cleanup: {f}");
        }
    }
}

fn last_lines(s: &str, n: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(n)..].join(" | ")
}

/// Checks an interface name.
pub fn check_ifname(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > IFNAME_MAX || name.contains(['/', ' ', ':']) {
        return Err(LiveError::Config(format!(
            "'{name}' cannot name a network interface (1 to {IFNAME_MAX} characters, no '/', ':' or spaces)"
        )));
    }
    Ok(())
}

/// SIGTERM to the child's process group, then SIGKILL after the grace
/// period; reaps it.
fn stop_child(child: &mut Child) {
    if !matches!(child.try_wait(), Ok(None)) {
        return;
    }
    let pg = Pid::from_raw(child.id() as i32);
    let _ = killpg(pg, Signal::SIGTERM);
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            // The leader is gone; anything left in its group goes too.
            let _ = killpg(pg, Signal::SIGKILL);
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = killpg(pg, Signal::SIGKILL);
    let _ = child.wait();
}

/// Runs `f` on a thread that has entered `ns`'s network namespace (the
/// calling thread's namespace never changes). Sockets and devices created
/// there stay in `ns`.
pub fn in_netns<R: Send>(ns: &Netns, f: impl FnOnce() -> R + Send) -> Result<R> {
    let path = ns.path();
    let file =
        File::open(&path).map_err(|e| LiveError::io(format!("opening {}", path.display()), e))?;
    std::thread::scope(|s| {
        s.spawn(move || {
            nix::sched::setns(&file, CloneFlags::CLONE_NEWNET).map_err(|e| {
                LiveError::io(
                    format!("entering the namespace {}", path.display()),
                    std::io::Error::from(e),
                )
            })?;
            Ok(f())
        })
        .join()
        .unwrap_or_else(|_| {
            Err(LiveError::Config(
                "a thread inside a namespace panicked".into(),
            ))
        })
    })
}

/// Runs `f` on a new thread that has entered `ns`'s network namespace,
/// without waiting for it (see [`in_netns`]).
pub fn spawn_in_netns<R: Send + 'static>(
    ns: &Netns,
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<std::thread::JoinHandle<Result<R>>> {
    let path = ns.path();
    let file =
        File::open(&path).map_err(|e| LiveError::io(format!("opening {}", path.display()), e))?;
    std::thread::Builder::new()
        .name(format!("in-{}", ns.node))
        .spawn(move || {
            nix::sched::setns(&file, CloneFlags::CLONE_NEWNET).map_err(|e| {
                LiveError::io(
                    format!("entering the namespace {}", path.display()),
                    std::io::Error::from(e),
                )
            })?;
            Ok(f())
        })
        .map_err(|e| LiveError::io("starting a thread", e))
}

/// Kills every process still in namespace `name` (`ip netns pids`).
fn kill_namespace_pids(name: &str) {
    let Ok(out) = sys::ip(["netns", "pids", name]) else {
        return;
    };
    for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
        if let Ok(p) = pid.parse::<i32>() {
            let _ = nix::sys::signal::kill(Pid::from_raw(p), Signal::SIGKILL);
        }
    }
}

/// Deletes namespace `name`; false if it did not exist.
fn delete_namespace(name: &str) -> Result<bool> {
    if !Path::new(NETNS_DIR).join(name).exists() {
        return Ok(false);
    }
    // A namespace whose last process is being killed may still be busy for
    // a moment.
    let mut last = None;
    for _ in 0..20 {
        match sys::ip(["netns", "del", name]) {
            Ok(_) => return Ok(true),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Err(last.unwrap_or(LiveError::Config("cannot delete".into())))
}

/// The namespaces of live runs that exist now (any run, this one too).
pub fn lab_namespaces() -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(NETNS_DIR) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(PREFIX))
        .collect();
    v.sort();
    v
}

/// Whether the run that made `name` (a namespace, or anything else named
/// `wisec-TAG-…`) still runs.
pub fn tag_alive(name: &str) -> bool {
    owner_alive(name)
}

/// Whether the run that made namespace `name` still runs: its tag's
/// process exists and started when the tag says.
fn owner_alive(name: &str) -> bool {
    let mut parts = name.trim_start_matches(PREFIX).split('-');
    let (Some(pid), Some(start)) = (parts.next(), parts.next()) else {
        return false;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), u64::from_str_radix(start, 16)) else {
        return false;
    };
    sys::process_start(pid).is_some_and(|s| s & 0xffff == start)
}

/// Removes the namespaces of runs that no longer run; their names.
pub fn remove_leftovers() -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for name in lab_namespaces() {
        if owner_alive(&name) {
            continue;
        }
        kill_namespace_pids(&name);
        if delete_namespace(&name)? {
            removed.push(name);
        }
    }
    if !removed.is_empty() {
        eprintln!(
            "wisec: removed {} namespace(s) left by a live run that ended without cleaning up: {}",
            removed.len(),
            removed.join(", ")
        );
    }
    let dirs = remove_leftover_dirs(&std::env::temp_dir());
    if dirs > 0 {
        eprintln!(
            "wisec: removed {dirs} temporary run directory(ies) left by a live run that ended \
             without cleaning up"
        );
    }
    Ok(removed)
}

/// Whether `name` is a run tag's own name, `wisec-PID-START-N` (PID and N
/// decimal, START four hex digits), and nothing else.
fn is_run_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(PREFIX) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('-').collect();
    let dec = |p: &str| !p.is_empty() && p.len() <= 10 && p.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 3
        && dec(parts[0])
        && parts[1].len() == 4
        && parts[1].bytes().all(|b| b.is_ascii_hexdigit())
        && dec(parts[2])
}

/// Removes the temporary run directories in `tmp` (named exactly as
/// [`LiveNet::new`] names them) of runs that no longer run: what a run
/// killed with SIGKILL could not remove. The number removed.
fn remove_leftover_dirs(tmp: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(tmp) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let Ok(name) = e.file_name().into_string() else {
            continue;
        };
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir
            && is_run_name(&name)
            && !owner_alive(&name)
            && std::fs::remove_dir_all(e.path()).is_ok()
        {
            n += 1;
        }
    }
    n
}

/// Stops every process and deletes every namespace of every live run of
/// this process, at once: for a second Ctrl-C, from the signal handler's
/// thread, before the process exits.
pub fn emergency_cleanup() {
    let runs = {
        let mut g = ACTIVE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::mem::take(&mut *g)
    };
    for (tag, (namespaces, groups)) in runs {
        for pg in groups {
            let _ = killpg(Pid::from_raw(pg), Signal::SIGKILL);
        }
        for ns in namespaces.iter().rev() {
            kill_namespace_pids(ns);
            let _ = delete_namespace(ns);
        }
        // The temporary run directory, when the run made one.
        let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("{PREFIX}{tag}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dead_runs_temporary_directories_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        let start = sys::process_start(pid).unwrap() & 0xffff;
        // 4194305 is above the largest pid_max Linux allows: no process.
        let dead = "wisec-4194305-abcd-0";
        let alive = format!("wisec-{pid}-{start:04x}-7");
        for d in [
            dead,
            &alive,
            "wisec-base",
            "wisec-tour-x1",
            "wisec-4194305-abcd-0x",
        ] {
            std::fs::create_dir(tmp.path().join(d)).unwrap();
        }
        std::fs::write(tmp.path().join(dead).join("hostapd.conf"), "x").unwrap();
        std::fs::write(tmp.path().join("wisec-4194305-abcd-1"), "a file").unwrap();
        assert_eq!(remove_leftover_dirs(tmp.path()), 1);
        let mut left: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut want = vec![
            alive,
            "wisec-4194305-abcd-0x".to_string(),
            "wisec-4194305-abcd-1".to_string(),
            "wisec-base".to_string(),
            "wisec-tour-x1".to_string(),
        ];
        want.sort();
        assert_eq!(left, want);
    }

    #[test]
    fn node_names_must_fit_an_interface_name() {
        assert!(check_node_name("sta1").is_ok());
        assert!(check_node_name("radius-server_2").is_ok());
        let e = check_node_name("a-very-long-node-name")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 15"), "{e}");
        assert!(check_node_name("").is_err());
        assert!(check_node_name("1sta").is_err());
        assert!(check_node_name("sta 1").is_err());
        assert!(check_node_name("sta/1").is_err());
        assert!(check_ifname("wlan0").is_ok());
        assert!(check_ifname("0123456789abcdef").is_err());
    }

    #[test]
    fn a_namespace_of_a_process_that_is_gone_is_a_leftover() {
        // This process is alive with its own start time.
        let pid = std::process::id();
        let start = sys::process_start(pid).unwrap() & 0xffff;
        assert!(owner_alive(&format!("{PREFIX}{pid}-{start:04x}-0-sta1")));
        // The same pid with another start time is a process that reused it.
        let other = (start + 1) & 0xffff;
        assert!(!owner_alive(&format!("{PREFIX}{pid}-{other:04x}-0-sta1")));
        assert!(!owner_alive(&format!("{PREFIX}notapid-00-0-x")));
    }
}
