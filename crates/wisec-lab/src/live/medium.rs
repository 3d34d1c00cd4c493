//! The medium in real time: the simulator's own MAC and PHY ([`Simulator`])
//! driven by a clock paced to the wall clock, with the frames of TAP
//! devices going in and out of its nodes.
//!
//! One loop on one thread:
//!
//! 1. read every device whose node takes frames ([`TapPort::accepting`](crate::port::TapPort::accepting));
//!    each frame is stamped with the virtual time of its arrival (the wall
//!    time since the start) and handed to its node at that time
//!    ([`Simulator::schedule_input`]);
//! 2. run every event whose virtual time has come, recording for each how
//!    far behind its time it ran (the lag);
//! 3. hand what the nodes delivered to a second thread that writes it to
//!    the devices (a write runs the kernel's receive path — the bridge,
//!    the receiving socket — which must not delay the medium's events);
//! 4. sleep until shortly before the next event or until a frame arrives
//!    from a device (`ppoll` with a 1 µs timer slack), then wait for the
//!    event awake: a timer wakes a thread tens of microseconds late on a
//!    busy host.
//!
//! Both threads run under SCHED_FIFO when the process may ask for it
//! (root can), so that the programs the medium carries and anything else
//! on the host wait for the medium rather than the other way round.
//! Inputs are stamped after every event up to an earlier reading of the
//! clock has run, so an input's time is never before the simulator's: a
//! slow loop delays delivery but never changes the order of the medium's
//! decisions. The report gives the lag's percentiles, the delay between a
//! delivery's virtual time and its write to the device, and the thread's
//! CPU time.

use super::sys::{LiveError, Result};
use crate::node::NodeId;
use crate::pcap::{PcapWriter, RadioChannel};
use crate::port::SharedPort;
use crate::sim::{AirFrame, Simulator};
use crate::time::Time;
use nix::poll::{PollFd, PollFlags};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, ErrorKind};
use std::os::fd::AsFd;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A device the medium reads and writes for a node.
pub struct Device {
    /// What it is, for messages (`sta1/wlan0`).
    pub name: String,
    /// The node whose port it feeds.
    pub node: NodeId,
    /// The node's port.
    pub port: SharedPort,
    /// The TAP device.
    pub tap: tappers::linux::Tap,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.name)
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

/// A histogram of durations: 1 µs buckets up to 2 ms, 100 µs buckets up
/// to 1 s, and the largest value exactly.
#[derive(Debug, Clone)]
pub struct Histogram {
    fine: Vec<u64>,
    coarse: Vec<u64>,
    over: u64,
    count: u64,
    max_ns: u64,
    sum_ns: u128,
}

const FINE_US: usize = 2000;
const COARSE_STEP_US: u64 = 100;
const COARSE: usize = 10_000;

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            fine: vec![0; FINE_US],
            coarse: vec![0; COARSE],
            over: 0,
            count: 0,
            max_ns: 0,
            sum_ns: 0,
        }
    }
}

impl Histogram {
    /// Records one duration.
    pub fn record(&mut self, d: Time) {
        let ns = d.as_ns();
        let us = ns / 1000;
        if (us as usize) < FINE_US {
            self.fine[us as usize] += 1;
        } else if let Some(c) = self.coarse.get_mut((us / COARSE_STEP_US) as usize) {
            *c += 1;
        } else {
            self.over += 1;
        }
        self.count += 1;
        self.max_ns = self.max_ns.max(ns);
        self.sum_ns += u128::from(ns);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The `q` quantile (0 to 1) in microseconds: the upper edge of its
    /// bucket (so never below the true value), at most the maximum.
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let max_us = self.max_ns as f64 / 1000.0;
        let mut seen = 0u64;
        for (i, c) in self.fine.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return ((i + 1) as f64).min(max_us);
            }
        }
        for (i, c) in self.coarse.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return (((i as u64 + 1) * COARSE_STEP_US) as f64).min(max_us);
            }
        }
        max_us
    }

    /// The summary.
    pub fn stats(&self) -> LagStats {
        LagStats {
            samples: self.count,
            p50_us: self.quantile_us(0.5),
            p99_us: self.quantile_us(0.99),
            max_us: self.max_ns as f64 / 1000.0,
            mean_us: if self.count == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.count as f64 / 1000.0
            },
        }
    }
}

/// Percentiles of a delay, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LagStats {
    /// Values recorded.
    pub samples: u64,
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Largest.
    pub max_us: f64,
    /// Mean.
    pub mean_us: f64,
}

/// What a medium run measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MediumReport {
    /// Wall-clock seconds the medium ran.
    pub wall_s: f64,
    /// Virtual seconds at the end.
    pub virtual_s: f64,
    /// Simulator events run.
    pub events: u64,
    /// How far events ran behind their virtual time.
    pub lag: LagStats,
    /// From a delivery's virtual time to its write to the device.
    pub delivery_lag: LagStats,
    /// CPU seconds of the medium's thread (user + system).
    pub cpu_s: f64,
    /// CPU seconds over wall seconds (1.0: one core busy all the time).
    pub cpu_share: f64,
    /// Frames read from the devices.
    pub frames_in: u64,
    /// Frames written to the devices.
    pub frames_out: u64,
    /// Writes to a device that failed.
    pub write_errors: u64,
    /// The first device error, if any.
    pub device_error: Option<String>,
    /// The medium's threads ran under SCHED_FIFO.
    pub realtime: bool,
    /// Records written to the channel capture.
    pub pcap_records: u64,
}

/// The medium's state while it runs, for a probe.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Virtual seconds since the start.
    pub virtual_s: f64,
    /// Frames read from the devices so far.
    pub frames_in: u64,
    /// Frames written to the devices so far.
    pub frames_out: u64,
    /// The lag so far (recomputed about twice a second).
    pub lag: LagStats,
}

/// Options of a medium run.
#[derive(Debug, Clone)]
pub struct MediumOptions {
    /// Set to stop the loop.
    pub stop: Arc<AtomicBool>,
    /// Stop after this much wall time, if set.
    pub limit: Option<Duration>,
    /// Call the probe about this often (wall time).
    pub probe_every: Duration,
    /// Run the medium's threads under SCHED_FIFO ([`make_realtime`]).
    pub realtime: bool,
}

impl Default for MediumOptions {
    fn default() -> MediumOptions {
        MediumOptions {
            stop: Arc::new(AtomicBool::new(false)),
            limit: None,
            probe_every: Duration::from_millis(10),
            realtime: true,
        }
    }
}

/// The virtual clock: wall time since the start.
struct Clock(Instant);

impl Clock {
    fn now(&self) -> Time {
        Time::from_ns(u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }
}

fn thread_cpu_s() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    getrusage(UsageWho::RUSAGE_THREAD).map_or(0.0, |u| {
        let t = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
        t(u.user_time()) + t(u.system_time())
    })
}

/// Events run between two reads of the devices.
const EVENT_BATCH: usize = 32;
/// Frames read from one device in one round.
const READ_BATCH: usize = 4;
/// Frames a port's inbox holds before its device is left unread.
const INBOX_LIMIT: usize = 64;
/// Longest sleep, so that the stop flag is seen promptly.
const MAX_SLEEP: Time = Time::from_ms(20);

/// Asks the scheduler to run the calling thread under SCHED_FIFO at
/// priority `prio` (1 to 99): it then preempts the programs it carries
/// (iperf3, daemons) and builds the host's compiler jobs, and wakes on
/// time. Needs CAP_SYS_NICE (root has it); false if refused.
pub fn make_realtime(prio: u8) -> bool {
    use thread_priority::unix::{
        set_thread_priority_and_policy, thread_native_id, RealtimeThreadSchedulePolicy,
        ThreadSchedulePolicy,
    };
    use thread_priority::{ThreadPriority, ThreadPriorityValue};
    let Ok(v) = ThreadPriorityValue::try_from(prio) else {
        return false;
    };
    set_thread_priority_and_policy(
        thread_native_id(),
        ThreadPriority::Crossplatform(v),
        ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo),
    )
    .is_ok()
}

/// The real-time priority of the medium's threads (SCHED_FIFO, 1 to 99): in
/// the lower half, so that the kernel's own real-time threads come first.
pub const REALTIME_PRIORITY: u8 = 20;

/// The medium's loop wakes this long before an event is due and waits for
/// it awake: a timer wakes a thread some tens of microseconds late on a
/// busy host.
const SPIN: Time = Time::from_us(40);

/// What the writer thread measured.
#[derive(Default)]
struct Written {
    frames: u64,
    errors: u64,
    delivery: Histogram,
}

/// Runs `sim` in real time with `devices` until `opts.stop` is set (or the
/// limit). `probe` is called about every `opts.probe_every` with the
/// simulator and a [`Snapshot`], to publish the run's state. A device
/// that fails to read ends the run with the error in the report.
///
/// Deliveries are written to the devices by a second thread, so that the
/// kernel's work on each written frame (the bridge, the receiving
/// program's socket) does not delay the medium's events.
pub fn run(
    sim: &mut Simulator,
    devices: &mut [Device],
    opts: &MediumOptions,
    probe: &mut dyn FnMut(&Simulator, &Snapshot),
) -> MediumReport {
    let realtime = opts.realtime && make_realtime(REALTIME_PRIORITY);
    // Timers wake this thread to the microsecond, not the default 50 µs.
    let _ = nix::sys::prctl::set_timerslack(1_000);
    let start = Instant::now();
    let clock = Clock(start);
    let cpu0 = thread_cpu_s();
    let events0 = sim.events_processed();
    let devices: &[Device] = devices;
    let taps: Vec<&tappers::linux::Tap> = devices.iter().map(|d| &d.tap).collect();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Time, Vec<u8>)>();
    let mut r = MediumReport {
        realtime,
        ..MediumReport::default()
    };
    let written = std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("wisec-medium-tx".into())
            .spawn_scoped(scope, move || {
                if realtime {
                    make_realtime(REALTIME_PRIORITY);
                }
                let clock = Clock(start);
                let mut w = Written::default();
                let mut cpu = thread_cpu_s();
                for (i, t, f) in rx {
                    match taps.get(i).map(|tap| tap.send(&f)) {
                        Some(Ok(_)) => w.frames += 1,
                        _ => w.errors += 1,
                    }
                    w.delivery.record(clock.now().saturating_sub(t));
                }
                cpu = thread_cpu_s() - cpu;
                (w, cpu)
            });
        let writer = match writer {
            Ok(h) => h,
            Err(e) => {
                r.device_error = Some(format!("starting the writer thread: {e}"));
                return (Written::default(), 0.0);
            }
        };
        drive(sim, devices, opts, probe, &clock, &tx, &mut r);
        drop(tx);
        writer.join().unwrap_or_else(|_| (Written::default(), 0.0))
    });
    let (w, writer_cpu) = written;
    r.frames_out = w.frames;
    r.write_errors = w.errors;
    r.delivery_lag = w.delivery.stats();
    r.wall_s = clock.0.elapsed().as_secs_f64();
    r.virtual_s = sim.now().as_secs_f64();
    r.events = sim.events_processed() - events0;
    r.cpu_s = thread_cpu_s() - cpu0 + writer_cpu;
    r.cpu_share = if r.wall_s > 0.0 {
        r.cpu_s / r.wall_s
    } else {
        0.0
    };
    r
}

/// The medium's loop (see the module's documentation).
fn drive(
    sim: &mut Simulator,
    devices: &[Device],
    opts: &MediumOptions,
    probe: &mut dyn FnMut(&Simulator, &Snapshot),
    clock: &Clock,
    tx: &std::sync::mpsc::Sender<(usize, Time, Vec<u8>)>,
    r: &mut MediumReport,
) {
    let mut lag = Histogram::default();
    let mut buf = vec![0u8; 65_536];
    let mut next_probe = Instant::now();
    let mut snap = Snapshot::default();
    let mut next_lag = Instant::now();
    let mut queued = 0u64;
    'run: loop {
        if opts.stop.load(Ordering::Relaxed) || opts.limit.is_some_and(|l| clock.0.elapsed() >= l) {
            break;
        }
        // 1. Inputs, stamped with their arrival.
        for d in devices {
            for _ in 0..READ_BATCH {
                {
                    let p = d.port.borrow();
                    if !p.accepting || p.inbox.len() >= INBOX_LIMIT {
                        break;
                    }
                }
                match d.tap.recv(&mut buf) {
                    Ok(n) => {
                        let t = clock.now();
                        d.port.borrow_mut().inbox.push_back((t, buf[..n].to_vec()));
                        sim.schedule_input(d.node, t);
                        r.frames_in += 1;
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        r.device_error = Some(format!("reading {}: {e}", d.name));
                        break 'run;
                    }
                }
            }
        }
        // 2. Events whose time has come.
        for _ in 0..EVENT_BATCH {
            let Some(t) = sim.next_event_time() else {
                break;
            };
            let w = clock.now();
            if t > w {
                break;
            }
            lag.record(w - t);
            sim.step();
        }
        // 3. Deliveries, to the writer thread.
        for (i, d) in devices.iter().enumerate() {
            let out = std::mem::take(&mut d.port.borrow_mut().outbox);
            for (t, f) in out {
                queued += 1;
                if tx.send((i, t, f)).is_err() {
                    r.device_error = Some("the writer thread ended".into());
                    break 'run;
                }
            }
        }
        if Instant::now() >= next_probe {
            snap.virtual_s = clock.now().as_secs_f64();
            snap.frames_in = r.frames_in;
            snap.frames_out = queued;
            if Instant::now() >= next_lag {
                snap.lag = lag.stats();
                next_lag = Instant::now() + Duration::from_millis(500);
            }
            probe(sim, &snap);
            next_probe = Instant::now() + opts.probe_every;
        }
        // 4. Sleep until shortly before the next event, or an input; then
        // wait for the event awake.
        let w = clock.now();
        let due = sim
            .next_event_time()
            .map_or(MAX_SLEEP, |t| t.saturating_sub(w));
        if due > SPIN {
            let sleep = (due - SPIN).min(MAX_SLEEP);
            let mut fds: Vec<PollFd<'_>> = devices
                .iter()
                .filter(|d| {
                    let p = d.port.borrow();
                    p.accepting && p.inbox.len() < INBOX_LIMIT
                })
                .map(|d| PollFd::new(d.tap.as_fd(), PollFlags::POLLIN))
                .collect();
            let ts = nix::sys::time::TimeSpec::from_duration(Duration::from_nanos(sleep.as_ns()));
            let _ = nix::poll::ppoll(&mut fds, Some(ts), None);
        } else if due > Time::ZERO {
            std::hint::spin_loop();
        }
    }
    snap.virtual_s = clock.now().as_secs_f64();
    snap.frames_in = r.frames_in;
    snap.frames_out = queued;
    snap.lag = lag.stats();
    probe(sim, &snap);
    r.lag = lag.stats();
}

/// What a medium thread ends with: its outcome and the devices it gives
/// back, or the error and the devices.
pub type ThreadResult<O, D> = std::result::Result<(O, D), (LiveError, D)>;

/// A medium running on a thread of its own, with the flag that stops it.
/// Dropping it stops the thread and waits for it.
pub struct MediumThread<O, D> {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<ThreadResult<O, D>>>,
}

impl<O, D> std::fmt::Debug for MediumThread<O, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediumThread")
            .field("stopping", &self.stop.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<O: Send + 'static, D: Send + 'static> MediumThread<O, D> {
    /// Runs `body` on a thread named `wisec-medium`; `body` gets the stop
    /// flag to hand to [`run`] (in [`MediumOptions::stop`]).
    pub fn spawn(
        body: impl FnOnce(Arc<AtomicBool>) -> ThreadResult<O, D> + Send + 'static,
    ) -> Result<MediumThread<O, D>> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("wisec-medium".into())
            .spawn(move || body(flag))
            .map_err(|e| LiveError::io("starting the medium's thread", e))?;
        Ok(MediumThread {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the medium and waits for its thread: the outcome and the
    /// devices, or the error and the devices (none if the thread
    /// panicked).
    pub fn stop(mut self) -> std::result::Result<(O, D), (LiveError, Option<D>)> {
        self.stop.store(true, Ordering::SeqCst);
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(Ok(done))) => Ok(done),
            Some(Ok(Err((e, d)))) => Err((e, Some(d))),
            Some(Err(_)) => Err((
                LiveError::Config("the medium's thread panicked".into()),
                None,
            )),
            None => Err((LiveError::Config("the medium does not run".into()), None)),
        }
    }
}

impl<O, D> Drop for MediumThread<O, D> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A channel capture written as the medium runs: every PPDU, with its
/// virtual start time added to the wall-clock time the medium started, so
/// that the capture carries real dates.
pub struct LiveCapture {
    writer: Rc<RefCell<CaptureState>>,
}

struct CaptureState {
    out: Option<PcapWriter<BufWriter<File>>>,
    radio: RadioChannel,
    epoch_ns: u64,
    error: Option<String>,
}

impl LiveCapture {
    /// Creates `path` (truncating it) and returns the capture and the
    /// observer to give [`Simulator::set_observer`]. Timestamps count from
    /// now.
    pub fn create(path: &Path, radio: RadioChannel) -> Result<(LiveCapture, crate::sim::Observer)> {
        let f = File::create(path)
            .map_err(|e| LiveError::io(format!("creating {}", path.display()), e))?;
        let w = PcapWriter::new(BufWriter::with_capacity(1 << 20, f))
            .map_err(|e| LiveError::io(format!("writing {}", path.display()), e))?;
        let epoch_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(0));
        let state = Rc::new(RefCell::new(CaptureState {
            out: Some(w),
            radio,
            epoch_ns,
            error: None,
        }));
        let s = Rc::clone(&state);
        let observer: crate::sim::Observer = Box::new(move |f: &AirFrame<'_>| {
            let mut st = s.borrow_mut();
            let rt = st.radio.radiotap(f.rate);
            let ns = st.epoch_ns + f.start.as_ns();
            let mut failed = None;
            if let Some(w) = st.out.as_mut() {
                for m in f.mpdus {
                    if let Err(e) = w.write(ns, &rt, m) {
                        failed = Some(e.to_string());
                        break;
                    }
                }
            }
            if let Some(e) = failed {
                st.error.get_or_insert(e);
                st.out = None;
            }
        });
        Ok((LiveCapture { writer: state }, observer))
    }

    /// Flushes the file; the records written.
    pub fn finish(self) -> Result<u64> {
        let mut st = self.writer.borrow_mut();
        if let Some(e) = st.error.take() {
            return Err(LiveError::Config(format!("channel capture: {e}")));
        }
        match st.out.take() {
            Some(w) => {
                let n = w.packets();
                w.finish()
                    .map_err(|e| LiveError::io("flushing the channel capture", e))?;
                Ok(n)
            }
            None => Ok(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_bound_the_values_from_above() {
        let mut h = Histogram::default();
        for us in 1..=100u64 {
            h.record(Time::from_ns(us * 1000 - 500));
        }
        let s = h.stats();
        assert_eq!(s.samples, 100);
        assert_eq!(s.p50_us, 50.0);
        assert_eq!(s.p99_us, 99.0);
        assert!((s.max_us - 99.5).abs() < 1e-9);
        h.record(Time::from_ms(5));
        h.record(Time::from_secs(3));
        let s = h.stats();
        assert_eq!(s.max_us, 3e6);
        // The coarse bucket of 5 ms.
        assert!(h.quantile_us(101.0 / 102.0) >= 5000.0);
        assert_eq!(Histogram::default().stats().p99_us, 0.0);
    }
}
