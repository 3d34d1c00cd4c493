//! Output files that never clobber, never leak and never stay half
//! written: the rules every command that writes a file follows.
//!
//! - A target is never one of the inputs, and an existing file is replaced
//!   only with `--force` ([`check_target`]).
//! - An existing character device or named pipe (`/dev/null`, a FIFO) is
//!   written in place, with no temporary file and no rename, which would
//!   replace the device node or the pipe itself ([`is_stream`]). A
//!   directory, block device or socket is refused before any work.
//! - A symbolic link is written through: the file it names is replaced,
//!   the link stays ([`rename_target`]).
//! - Data goes to a hidden temporary file beside the target, created
//!   readable by its owner only (mode 0600: it may hold decrypted traffic
//!   or keys), and is renamed onto the target only when everything
//!   succeeded ([`Pending::commit`]). On an error the temporary file is
//!   removed when the [`Pending`] is dropped.
//! - On SIGINT, SIGTERM or SIGHUP every temporary file and directory still
//!   pending is removed before the process ends with status 128 + the
//!   signal number ([`remove_on_signals`]).
//! - Before a large write, the free space of the target's file system is
//!   checked against an estimate ([`check_space`]).
//! - A large output is sent to disk while it is written ([`Syncing`]), so
//!   that the sync before the rename waits only for its last part.

use anyhow::{anyhow, bail, Context, Result};
use flate2::write::GzEncoder;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;

/// The name that stands for standard input or standard output.
pub const STDIO: &str = "-";

/// True when `p` is `-` (standard input or output).
pub fn is_stdio(p: &Path) -> bool {
    p.as_os_str() == STDIO
}

/// How messages name the file `p`: `stdio` (`"standard input"` or
/// `"standard output"`) for `-`, else the path.
pub fn shown(p: &Path, stdio: &str) -> String {
    if is_stdio(p) {
        stdio.to_string()
    } else {
        p.display().to_string()
    }
}

/// Temporary paths to remove if a signal ends the process: files and
/// directories, by registration number.
static PENDING: Mutex<Vec<(u64, PathBuf)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(1);

fn register(path: &Path) -> u64 {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut v) = PENDING.lock() {
        v.push((id, path.to_path_buf()));
    }
    id
}

fn unregister(id: u64) {
    if let Ok(mut v) = PENDING.lock() {
        v.retain(|(i, _)| *i != id);
    }
}

/// Removes every pending temporary path; returns those removed.
fn remove_pending() -> Vec<PathBuf> {
    let list = match PENDING.lock() {
        Ok(mut v) => std::mem::take(&mut *v),
        Err(_) => Vec::new(),
    };
    let mut removed = Vec::new();
    for (_, p) in list {
        let gone = if p.is_dir() {
            std::fs::remove_dir_all(&p).is_ok()
        } else {
            std::fs::remove_file(&p).is_ok()
        };
        if gone {
            removed.push(p);
        }
    }
    removed
}

/// Installs (once) a thread that, on SIGINT, SIGTERM or SIGHUP, removes
/// every pending temporary output, says so on standard error, and ends
/// the process with status 128 + the signal number.
pub fn remove_on_signals() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let removed = remove_pending();
                let name = match sig {
                    SIGINT => "interrupted",
                    SIGTERM => "terminated",
                    _ => "hung up",
                };
                if removed.is_empty() {
                    eprintln!("\nwisec: {name}");
                } else {
                    let list: Vec<String> =
                        removed.iter().map(|p| p.display().to_string()).collect();
                    eprintln!(
                        "\nwisec: {name}; removed the unfinished output {}",
                        list.join(", ")
                    );
                }
                std::process::exit(128 + sig);
            }
        });
    });
}

/// True when `a` and `b` name the same existing file.
#[cfg(unix)]
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// True when `a` and `b` name the same existing file.
#[cfg(not(unix))]
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// `p` made absolute with its directory resolved (the file itself need
/// not exist), for comparing two targets that may not exist yet.
fn resolved(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?;
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = std::fs::canonicalize(dir).ok()?;
    Some(dir.join(name))
}

/// True when `a` and `b` are the same file, existing or to be created.
pub fn same_target(a: &Path, b: &Path) -> bool {
    if same_file(a, b) {
        return true;
    }
    if a.components().any(|c| c == Component::ParentDir) || a.file_name().is_none() {
        return a == b;
    }
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// Why a target cannot be written.
#[derive(Debug)]
pub enum TargetError {
    /// It is one of the inputs or another output, or it cannot be a file
    /// (a directory, a block device, a socket): a usage error.
    Clash(String),
    /// It exists and `--force` was not given (a runtime error).
    Exists(String),
}

impl TargetError {
    /// The message, whichever kind of error it is.
    pub fn into_message(self) -> String {
        match self {
            TargetError::Clash(m) | TargetError::Exists(m) => m,
        }
    }
}

impl From<TargetError> for crate::error::Failure {
    fn from(e: TargetError) -> Self {
        match e {
            TargetError::Clash(m) => crate::error::Failure::Usage(m),
            TargetError::Exists(m) => crate::error::Failure::Runtime(anyhow!(m)),
        }
    }
}

/// Checks the output `target` (described as `what`, e.g. `OUT` or
/// `--keys-out`) against the files the command reads (`inputs`) and the
/// other outputs it writes (`others`): never one of them, and an existing
/// file only with `force`. `-` (standard output) always passes.
pub fn check_target(
    what: &str,
    target: &Path,
    inputs: &[&Path],
    others: &[(&str, &Path)],
    force: bool,
) -> Result<(), TargetError> {
    if is_stdio(target) {
        return Ok(());
    }
    for i in inputs {
        if !is_stdio(i) && same_target(i, target) {
            return Err(TargetError::Clash(format!(
                "{what} '{}' is the input file; write to another file",
                target.display()
            )));
        }
    }
    for (name, o) in others {
        if !is_stdio(o) && same_target(o, target) {
            return Err(TargetError::Clash(format!(
                "{what} '{}' is also {name}; give them different files",
                target.display()
            )));
        }
    }
    if let Some(kind) = unwritable(target) {
        return Err(TargetError::Clash(format!(
            "{what} '{}' is {kind}; give a file, a character device or a named pipe",
            target.display()
        )));
    }
    if is_stream(target) {
        // Writing to it replaces nothing.
        return Ok(());
    }
    if !force && std::fs::symlink_metadata(target).is_ok() {
        return Err(TargetError::Exists(format!(
            "{}: already exists (use --force to overwrite it)",
            target.display()
        )));
    }
    Ok(())
}

/// True when `target` names an existing character device or named pipe
/// (`/dev/null`, `/dev/stdout`, a FIFO), following symbolic links. Such a
/// target is written in place: a temporary file renamed onto it would
/// replace the device node or the pipe with a regular file.
#[cfg(unix)]
pub fn is_stream(target: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(target).is_ok_and(|m| {
        let t = m.file_type();
        t.is_char_device() || t.is_fifo()
    })
}

/// True when `target` names an existing character device or named pipe.
#[cfg(not(unix))]
pub fn is_stream(_target: &Path) -> bool {
    false
}

/// The path a finished output is renamed onto: `target`, or the file it
/// names when it is a symbolic link. A link is written through, the link
/// staying: a rename onto the link would replace the link itself
/// (`/dev/stdout` with a regular file when standard output is one). A
/// link that names nothing is replaced.
pub fn rename_target(target: &Path) -> PathBuf {
    match std::fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf())
        }
        _ => target.to_path_buf(),
    }
}

/// What an existing `target` is when it can be neither replaced by a file
/// nor written in place: a directory, a block device or a socket.
fn unwritable(target: &Path) -> Option<&'static str> {
    let t = std::fs::metadata(target).ok()?.file_type();
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    None
}

/// Where a [`Pending`] output is written.
enum Place {
    /// A temporary file beside the target (the file a symbolic link
    /// names), renamed onto it at the end.
    Temp(tempfile::NamedTempFile, PathBuf),
    /// The target itself, a character device or named pipe.
    Stream(File),
}

/// A file being written: a hidden temporary file beside its target, mode
/// 0600, removed on drop (and on a signal) unless committed. A target
/// that is a character device or named pipe ([`is_stream`]) is written
/// directly instead.
pub struct Pending {
    /// Taken by [`Pending::commit`].
    place: Option<Place>,
    target: PathBuf,
    force: bool,
    /// The temporary file's registration for removal on a signal (0: none).
    id: u64,
}

impl Pending {
    /// Creates the temporary file beside `target`, or opens `target`
    /// itself when it is a character device or named pipe.
    pub fn create(target: &Path, force: bool) -> Result<Pending> {
        if let Some(kind) = unwritable(target) {
            bail!(
                "{}: is {kind}; give a file, a character device or a named pipe",
                target.display()
            );
        }
        if is_stream(target) {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(target)
                .map_err(|e| anyhow!("{}: cannot write: {e}", target.display()))?;
            return Ok(Pending {
                place: Some(Place::Stream(f)),
                target: target.to_path_buf(),
                force,
                id: 0,
            });
        }
        remove_on_signals();
        let dest = rename_target(target);
        let dir = dir_of(&dest);
        // tempfile creates the file with mode 0600 on Unix.
        let tmp = tempfile::Builder::new()
            .prefix(".wisec-")
            .suffix(".part")
            .tempfile_in(&dir)
            .map_err(|e| anyhow!("{}: cannot create a file there: {e}", dir.display()))?;
        let id = register(tmp.path());
        Ok(Pending {
            place: Some(Place::Temp(tmp, dest)),
            target: target.to_path_buf(),
            force,
            id,
        })
    }

    fn place(&self) -> Result<&Place> {
        self.place
            .as_ref()
            .ok_or_else(|| anyhow!("{}: already written", self.target.display()))
    }

    /// The file written: the temporary file, or the device or pipe.
    pub fn file(&self) -> Result<&File> {
        Ok(match self.place()? {
            Place::Temp(t, _) => t.as_file(),
            Place::Stream(f) => f,
        })
    }

    /// A second handle on the file written, to write through.
    pub fn handle(&self) -> Result<File> {
        self.file()?
            .try_clone()
            .map_err(|e| anyhow!("{}: {e}", self.target.display()))
    }

    /// A handle to write through, sent to disk in the background every
    /// `every` bytes ([`Syncing`]); never for a device or pipe, which has
    /// no disk to send to.
    pub fn syncing(&self, every: u64) -> Result<Syncing> {
        let every = match self.place()? {
            Place::Temp(..) => every,
            Place::Stream(_) => u64::MAX,
        };
        Ok(Syncing::new(self.handle()?, every))
    }

    /// The target.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes the file to disk and renames it onto the target (without
    /// `force`, only if the target still does not exist). A device or pipe
    /// has had everything already.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        let (tmp, dest) = match self.place.take() {
            Some(Place::Temp(t, dest)) => (t, dest),
            Some(Place::Stream(_)) => return Ok(()),
            None => bail!("{}: already written", target.display()),
        };
        tmp.as_file()
            .sync_all()
            .map_err(|e| anyhow!("{}: cannot write: {e}", target.display()))?;
        let persisted = if self.force {
            tmp.persist(&dest).map(|_| ())
        } else {
            tmp.persist_noclobber(&dest).map(|_| ())
        };
        unregister(self.id);
        persisted.map_err(|e| anyhow!("{}: cannot create: {}", target.display(), e.error))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // The temporary file removes itself (tempfile); after a commit the
        // path is gone already.
        unregister(self.id);
    }
}

/// A file written with its data sent to disk in the background: each time
/// another `every` bytes have been written, a thread of its own calls
/// `sync_data` (fdatasync) on a second handle of the file. The write-back
/// of a large output then overlaps the work that produces it, and the
/// final sync of [`Pending::commit`] waits only for what was written
/// since the last mark.
///
/// The writer never waits for that thread: it only leaves a notice, and
/// the marks passed while a sync runs are coalesced into one more sync.
/// The thread starts at the first mark (a small output has none) and ends
/// when the `Syncing` is finished or dropped; it never keeps the process
/// alive. A failed background sync fails the next write after it was
/// seen and [`Syncing::finish`]: it must not be lost, and the final sync
/// would not report it again (Linux reports a write-back error once per
/// open file description, and a cloned handle shares the writer's).
pub struct Syncing {
    file: File,
    every: u64,
    since: u64,
    syncer: Option<Syncer>,
    /// Background syncs completed.
    syncs: Arc<AtomicU64>,
    /// The error of a background sync, once seen.
    failed: Option<(io::ErrorKind, String)>,
}

/// The background thread of a [`Syncing`] and the way to wake it.
struct Syncer {
    notice: SyncSender<()>,
    thread: JoinHandle<io::Result<()>>,
}

impl Syncer {
    fn start(file: &File, syncs: Arc<AtomicU64>) -> io::Result<Syncer> {
        let handle = file.try_clone()?;
        // One notice waits at most: more marks while a sync runs add
        // nothing to the next sync, which takes everything written so far.
        let (notice, wake) = sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("wisec-sync".into())
            .spawn(move || {
                while wake.recv().is_ok() {
                    handle.sync_data()?;
                    syncs.fetch_add(1, Ordering::Relaxed);
                }
                Ok(())
            })?;
        Ok(Syncer { notice, thread })
    }

    /// Waits for the thread to end (after its sync in progress and the
    /// one noticed, if any) and returns its result.
    fn join(self) -> io::Result<()> {
        drop(self.notice);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the background sync failed")))
    }
}

impl Syncing {
    /// Writes into `file`, sending it to disk in the background every
    /// `every` bytes (`u64::MAX`: never).
    pub fn new(file: File, every: u64) -> Syncing {
        Syncing {
            file,
            every: every.max(1),
            since: 0,
            syncer: None,
            syncs: Arc::new(AtomicU64::new(0)),
            failed: None,
        }
    }

    /// How many background syncs have been completed so far.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    /// Wakes the syncer (started at the first mark).
    fn mark(&mut self) {
        if self.syncer.is_none() {
            match Syncer::start(&self.file, Arc::clone(&self.syncs)) {
                Ok(s) => self.syncer = Some(s),
                // No second handle or thread to be had: the final sync
                // does it all, as without marks.
                Err(_) => {
                    self.every = u64::MAX;
                    return;
                }
            }
        }
        let Some(s) = &self.syncer else { return };
        if let Err(TrySendError::Disconnected(())) = s.notice.try_send(()) {
            // The thread ended, which it does only on an error.
            if let Some(s) = self.syncer.take() {
                self.fail(s.join());
            }
        }
    }

    fn fail(&mut self, r: io::Result<()>) {
        if let Err(e) = r {
            self.failed
                .get_or_insert((e.kind(), format!("cannot send the data to disk: {e}")));
        }
    }

    fn check(&self) -> io::Result<()> {
        match &self.failed {
            Some((kind, m)) => Err(io::Error::new(*kind, m.clone())),
            None => Ok(()),
        }
    }

    /// Ends the background syncs, waiting for the one in progress, and
    /// returns how many were made, or the error of one that failed.
    pub fn finish(mut self) -> io::Result<u64> {
        if let Some(s) = self.syncer.take() {
            let r = s.join();
            self.fail(r);
        }
        self.check()?;
        Ok(self.syncs())
    }
}

impl io::Write for Syncing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        let n = self.file.write(buf)?;
        self.since += n as u64;
        if self.since >= self.every {
            self.since = 0;
            self.mark();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        self.file.flush()
    }
}

/// Where an output's bytes go: its temporary file (sent to disk in the
/// background as it grows), or standard output.
pub enum Dest {
    File(Syncing),
    Stdout(io::Stdout),
}

impl Dest {
    /// Ends the background syncs of a file, returning how many were made.
    pub fn finish(self) -> io::Result<u64> {
        match self {
            Dest::File(f) => f.finish(),
            Dest::Stdout(mut o) => o.flush().map(|()| 0),
        }
    }
}

/// An output's temporary file is sent to disk in the background each time
/// this many more bytes have been written (see [`Syncing`]). Measured on
/// the 116 MB output of `wisec bench decrypt`: the final sync waited 36 to
/// 47 ms without marks, 3 to 4 ms with 8 MiB, 7 with 16 and 18 with 64,
/// while 4 MiB made twice the background syncs (each commits the file's
/// size) for no shorter run.
pub const SYNC_EVERY: u64 = 8 << 20;

impl Write for Dest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Dest::File(f) => f.write(buf),
            Dest::Stdout(o) => o.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Dest::File(f) => f.flush(),
            Dest::Stdout(o) => o.flush(),
        }
    }
}

/// An output stream, gzip-compressed or not.
pub enum Sink {
    Plain(BufWriter<Dest>),
    Gzip(GzEncoder<BufWriter<Dest>>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Gzip(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
        }
    }
}

impl Sink {
    /// The stream into `dest`, buffered, and gzip-compressed at `gzip`'s
    /// level when there is one.
    pub fn new(dest: Dest, gzip: Option<flate2::Compression>) -> Sink {
        let buffered = BufWriter::with_capacity(1 << 16, dest);
        match gzip {
            Some(level) => Sink::Gzip(GzEncoder::new(buffered, level)),
            None => Sink::Plain(buffered),
        }
    }

    /// Writes out everything, returning how many background syncs were
    /// made.
    pub fn finish(self) -> io::Result<u64> {
        let buffered = match self {
            Sink::Plain(w) => w,
            Sink::Gzip(w) => w.finish()?,
        };
        buffered.into_inner().map_err(|e| e.into_error())?.finish()
    }
}

/// A temporary directory removed on drop and on a signal.
pub struct PendingDir {
    dir: tempfile::TempDir,
    id: u64,
}

impl PendingDir {
    /// Creates a temporary directory in the system's temporary location.
    pub fn new() -> Result<PendingDir> {
        remove_on_signals();
        let dir = tempfile::Builder::new()
            .prefix("wisec-")
            .tempdir()
            .context("cannot create a temporary directory")?;
        let id = register(dir.path());
        Ok(PendingDir { dir, id })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for PendingDir {
    fn drop(&mut self) {
        unregister(self.id);
    }
}

/// Bytes free for an unprivileged user on the file system holding `dir`.
pub fn free_space(dir: &Path) -> io::Result<u64> {
    let s = rustix::fs::statvfs(dir).map_err(io::Error::from)?;
    Ok(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Fails when about `need` bytes would not fit in `dir` (with 5% and
/// 64 MiB to spare), naming `what` is written there.
pub fn check_space(dir: &Path, need: u64, what: &str) -> Result<()> {
    let Ok(free) = free_space(dir) else {
        // Not knowable (an unusual file system): the write will say.
        return Ok(());
    };
    let want = need.saturating_add(need / 20).saturating_add(64 << 20);
    if want > free {
        bail!(
            "{}: {what} needs about {:.1} GB, and only {:.1} GB are free there",
            dir.display(),
            need as f64 / 1e9,
            free as f64 / 1e9
        );
    }
    Ok(())
}

/// The directory a target is written in.
pub fn dir_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_that_do_not_exist_yet_compare_by_directory_and_name() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("x.pcap");
        let b = d.path().join(".").join("x.pcap");
        assert!(same_target(&a, &b));
        assert!(!same_target(&a, &d.path().join("y.pcap")));
        std::fs::write(&a, b"1").unwrap();
        assert!(matches!(
            check_target("OUT", &b, &[&a], &[], true),
            Err(TargetError::Clash(_))
        ));
        assert!(matches!(
            check_target("OUT", &a, &[], &[], false),
            Err(TargetError::Exists(_))
        ));
        assert!(check_target("OUT", &a, &[], &[], true).is_ok());
        assert!(check_target("OUT", Path::new("-"), &[Path::new("-")], &[], false).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_streams_and_directories_are_refused() {
        let d = tempfile::tempdir().unwrap();
        assert!(is_stream(Path::new("/dev/null")));
        assert!(!is_stream(d.path()) && !is_stream(&d.path().join("none")));
        assert_eq!(unwritable(d.path()), Some("a directory"));
        assert_eq!(unwritable(Path::new("/dev/null")), None);
        assert!(matches!(
            check_target("OUT", d.path(), &[], &[], true),
            Err(TargetError::Clash(m)) if m.contains("is a directory")
        ));
        // Writing to a device replaces nothing: no --force needed.
        assert!(check_target("OUT", Path::new("/dev/null"), &[], &[], false).is_ok());
        assert!(Pending::create(d.path(), true).is_err());
    }

    #[test]
    fn pending_files_are_private_and_vanish_unless_committed() {
        let d = tempfile::tempdir().unwrap();
        let t = d.path().join("out.bin");
        let p = Pending::create(&t, false).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = p.file().unwrap().metadata().unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        drop(p);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        let p = Pending::create(&t, false).unwrap();
        std::io::Write::write_all(&mut p.handle().unwrap(), b"data").unwrap();
        p.commit().unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"data");
        // Without force an existing target stays.
        let p = Pending::create(&t, false).unwrap();
        assert!(p.commit().is_err());
        assert_eq!(std::fs::read(&t).unwrap(), b"data");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    /// Bytes that differ from one position to the next.
    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    /// Waits (up to a minute) until `s` has made `n` background syncs.
    fn wait_for_syncs(s: &Syncing, n: u64) {
        let start = std::time::Instant::now();
        while s.syncs() < n {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(60),
                "no background sync: {} of {n}",
                s.syncs()
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn syncing_sends_the_data_to_disk_while_it_is_written() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("out.bin");
        let data = pattern((4 << 16) + 5000);
        let mut s = Syncing::new(File::create(&path).unwrap(), 1 << 16);
        // No thread before the first mark.
        s.write_all(&data[..1000]).unwrap();
        assert!(s.syncer.is_none());
        let mut done = 1000;
        for mark in 1..=4u64 {
            let end = (mark << 16) as usize;
            for chunk in data[done..end].chunks(4000) {
                s.write_all(chunk).unwrap();
            }
            done = end;
            // The mark is passed: the syncer runs while the writer waits
            // here (it never waits in a write).
            wait_for_syncs(&s, mark);
        }
        s.write_all(&data[done..]).unwrap();
        assert_eq!(s.finish().unwrap(), 4);
        assert_eq!(std::fs::read(&path).unwrap(), data);
        // Without marks, no thread and no background sync.
        let mut s = Syncing::new(File::create(&path).unwrap(), u64::MAX);
        s.write_all(&data).unwrap();
        assert!(s.syncer.is_none());
        assert_eq!(s.finish().unwrap(), 0);
        assert_eq!(std::fs::read(&path).unwrap(), data);
    }

    /// A file whose sync fails: Linux refuses fdatasync on /dev/null
    /// (EINVAL, as on any device without write-back).
    #[cfg(target_os = "linux")]
    fn unsyncable() -> File {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_failed_background_sync_fails_the_writes_and_the_finish() {
        use std::io::Write;
        let refused = |e: &io::Error| {
            e.kind() == io::ErrorKind::InvalidInput
                && e.to_string().contains("cannot send the data to disk")
        };
        // Seen by the finish alone (the only mark was the last write).
        let mut s = Syncing::new(unsyncable(), 4096);
        s.write_all(&[0; 4096]).unwrap();
        let e = s.finish().unwrap_err();
        assert!(refused(&e), "{e}");
        // Seen by a write: the next mark finds the thread gone, the write
        // after it fails, and so do every later one and the finish.
        let mut s = Syncing::new(unsyncable(), 4096);
        let start = std::time::Instant::now();
        let e = loop {
            match s.write_all(&[0; 4096]) {
                Ok(()) => assert!(start.elapsed() < std::time::Duration::from_secs(60)),
                Err(e) => break e,
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        assert!(refused(&e), "{e}");
        assert!(s.write(&[0]).is_err_and(|e| refused(&e)));
        assert!(s.flush().is_err_and(|e| refused(&e)));
        assert!(s.finish().is_err_and(|e| refused(&e)));
        // A device written without marks is never synced in the
        // background, and so not refused.
        let mut s = Syncing::new(unsyncable(), u64::MAX);
        s.write_all(&[0; 1 << 16]).unwrap();
        assert_eq!(s.finish().unwrap(), 0);
    }

    #[test]
    fn space_checks_refuse_the_impossible() {
        let d = tempfile::tempdir().unwrap();
        assert!(check_space(d.path(), 1, "a test").is_ok());
        let e = check_space(d.path(), u64::MAX / 2, "a test").unwrap_err();
        assert!(e.to_string().contains("GB are free"), "{e}");
    }
}
