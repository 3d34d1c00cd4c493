//! `wisec bare`: seed 000's bare machine — wisec's CCM in an x86-64 image
//! with no operating system, booted under QEMU — and the CCM-UDP exchange
//! with it.
//!
//! - `build`: compiles and links the image;
//! - `boot`: boots it and keeps it answering on a loopback port;
//! - `run`: the measurement (echo round trips, Figure 12 both ways, the
//!   guest's timings D0-D3 and D5) against fresh guests and, as root,
//!   between two Linux endpoints in namespaces; a report beside the
//!   simulated model and seed 000's figures;
//! - `serve`: the same responder on a Linux UDP socket.

use crate::error::Failure;
use anyhow::{anyhow, Context as _};
use clap::{Args, Subcommand};
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wisec_lab::bare::image::{self, Image};
use wisec_lab::bare::qemu::{self, Guest, GuestOptions};
use wisec_lab::bare::run::{self, RunConfig, SizeRun};
use wisec_lab::bare::{linux, BareError};
use wisec_lab::experiment::Report;
use wisec_lab::output::write_atomic;
use zeroize::Zeroizing;

const EXAMPLES: &str = "\
Examples:
  # build the image (target/bare-image/wisec-bare.img)
  wisec bare build

  # seed 000's exchange: 1000 datagrams of 50..1000 octets against fresh
  # guests, and between two Linux namespaces (as root); report in out/
  wisec bare run --out out

  # a short run, JSON on standard output
  wisec bare run --sizes 50,1000 --messages 200 --echoes 200 --no-netns --json

  # boot a guest that answers on 127.0.0.1:7000 with the key in key.hex
  wisec bare boot --key-file key.hex --port 7000";

/// Arguments of `wisec bare`.
#[derive(Debug, Args)]
pub struct BareArgs {
    #[command(subcommand)]
    command: BareCommand,
}

#[derive(Debug, Subcommand)]
enum BareCommand {
    /// Compile and link the bare machine's image
    Build(BuildArgs),
    /// Boot the image under QEMU and keep it answering until Ctrl-C
    #[command(after_help = EXAMPLES)]
    Boot(BootArgs),
    /// Measure the CCM-UDP exchange with fresh guests and between two Linux endpoints
    #[command(after_help = EXAMPLES)]
    Run(RunArgs),
    /// Answer the CCM-UDP exchange on a Linux UDP socket (the guest's responder on Linux)
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
struct BuildArgs {
    /// The wisec source tree (default: the one this program was built from)
    #[arg(long, value_name = "DIR")]
    source: Option<PathBuf>,
    /// Where to write wisec-bare.img and wisec-bare.elf (default: SOURCE/target/bare-image)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the result as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct ImageArgs {
    /// A built image (default: build it from the source tree first)
    #[arg(long, value_name = "FILE")]
    image: Option<PathBuf>,
    /// The wisec source tree to build the image from
    #[arg(long, value_name = "DIR", conflicts_with = "image")]
    source: Option<PathBuf>,
    /// QEMU CPU model: max has AES-NI; qemu64 has none (the portable AES)
    #[arg(long, value_name = "MODEL", default_value = "max")]
    cpu: String,
}

#[derive(Debug, Args)]
struct BootArgs {
    #[command(flatten)]
    image: ImageArgs,
    /// File with the AES-128 key as 32 hex digits (default: a fresh random key, printed)
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// No key: the guest answers plain messages only
    #[arg(long, conflicts_with = "key_file")]
    no_key: bool,
    /// Loopback UDP port forwarded to the guest (default: a free one)
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    port: u16,
    /// Copy the guest's console to FILE
    #[arg(long, value_name = "FILE")]
    console_log: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    image: ImageArgs,
    /// Message sizes n (data octets, 1 to 1400)
    #[arg(
        long,
        value_name = "N,N,...",
        value_delimiter = ',',
        default_value = "50,250,500,750,1000"
    )]
    sizes: Vec<usize>,
    /// Datagrams per Figure 12 phase (m)
    #[arg(long, value_name = "M", default_value_t = 1000)]
    messages: u32,
    /// Echo round trips per size, plain and protected each
    #[arg(long, value_name = "E", default_value_t = 1000)]
    echoes: u32,
    /// Pace the Linux sender to this line rate in Mb/s (0: as fast as it can)
    #[arg(long, value_name = "MBPS", default_value_t = 100.0)]
    line_mbps: f64,
    /// Skip the Linux-to-Linux run in network namespaces (it needs root)
    #[arg(long)]
    no_netns: bool,
    /// Skip the QEMU guest (only the Linux-to-Linux run)
    #[arg(long)]
    no_guest: bool,
    /// Seconds to wait for each phase
    #[arg(long, value_name = "S", default_value_t = 20.0)]
    timeout: f64,
    /// Directory for report.md, results.json and the CSV tables
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Overwrite the report in --out
    #[arg(long)]
    force: bool,
    /// Print the results as JSON on standard output
    #[arg(long)]
    json: bool,
    /// No progress lines on standard error
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7000")]
    listen: SocketAddr,
    /// File with the AES-128 key as 32 hex digits (default: plain messages only)
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
}

/// The flag the first Ctrl-C or SIGTERM sets; a second one kills the QEMU
/// guests, removes the live lab's namespaces and ends the process at once.
fn interrupt_flag() -> Arc<AtomicBool> {
    crate::lab::interrupt_flag()
}

fn runtime(e: BareError) -> Failure {
    match e {
        BareError::Usage(m) => Failure::Usage(m),
        e => Failure::Runtime(anyhow!("{e}")),
    }
}

fn read_key(path: &Path) -> Result<Zeroizing<[u8; 16]>, Failure> {
    let text = Zeroizing::new(
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?,
    );
    wisec_bare::wire::parse_hex::<16>(text.trim())
        .map(Zeroizing::new)
        .ok_or_else(|| {
            Failure::Usage(format!(
                "{}: expected 32 hex digits (an AES-128 key)",
                path.display()
            ))
        })
}

fn hex(k: &[u8]) -> String {
    k.iter().map(|b| format!("{b:02x}")).collect()
}

fn build_image(source: Option<&Path>, out: Option<&Path>) -> Result<Image, Failure> {
    let root = source.map_or_else(image::workspace_root, Path::to_path_buf);
    let target = root.join("target/bare-image");
    let out = out.map_or_else(|| target.clone(), Path::to_path_buf);
    image::build(&root, &target, &out).map_err(runtime)
}

fn guest_options(a: &ImageArgs) -> Result<(GuestOptions, Option<Image>), Failure> {
    let (path, built) = match &a.image {
        Some(p) => (p.clone(), None),
        None => {
            let img = build_image(a.source.as_deref(), None)?;
            (img.image.clone(), Some(img))
        }
    };
    let mut o = GuestOptions::new(&path);
    o.cpu = a.cpu.clone();
    Ok((o, built))
}

/// Runs `wisec bare`.
pub fn run(a: BareArgs) -> Result<(), Failure> {
    match a.command {
        BareCommand::Build(b) => {
            let img = build_image(b.source.as_deref(), b.out.as_deref())?;
            if b.json {
                crate::outln!(
                    "{}",
                    serde_json::to_string_pretty(&img).context("encoding")?
                );
            } else {
                crate::outln!(
                    "{}: {} octets (text {}, rodata {}, data {}, bss {}), built in {:.1} s",
                    img.image.display(),
                    img.file_bytes,
                    img.sections.text,
                    img.sections.rodata,
                    img.sections.data,
                    img.sections.bss,
                    img.build_seconds
                );
                crate::outln!(
                    "{}: the same with symbols and debug information",
                    img.elf.display()
                );
            }
            Ok(())
        }
        BareCommand::Boot(b) => boot(b),
        BareCommand::Run(r) => run_measure(r, interrupt_flag()),
        BareCommand::Serve(s) => serve(s),
    }
}

fn boot(b: BootArgs) -> Result<(), Failure> {
    let stop = interrupt_flag();
    let key = match (&b.key_file, b.no_key) {
        (Some(p), _) => Some(read_key(p)?),
        (None, true) => None,
        (None, false) => Some(wisec_lab::bare::random_key().map_err(runtime)?),
    };
    let (mut opts, _) = guest_options(&b.image)?;
    opts.host_port = b.port;
    opts.console_log = b.console_log.clone();
    for name in qemu::remove_leftovers() {
        eprintln!("wisec: stopped {name}, left running by an earlier run");
    }
    let mut guest = Guest::boot(&opts, key.as_deref()).map_err(runtime)?;
    for l in &guest.boot.console {
        crate::outln!("{l}");
    }
    crate::outln!("guest: answering on udp {} (Ctrl-C to stop)", guest.addr);
    if let (Some(k), None) = (&key, &b.key_file) {
        crate::outln!("key: {} (fresh; use it for this boot only)", hex(&k[..]));
    }
    let mut shown = guest.console().len();
    while !stop.load(Ordering::SeqCst) {
        if !guest.running() {
            for l in guest.console().iter().skip(shown) {
                crate::outln!("{l}");
            }
            return Err(Failure::Runtime(anyhow!("the guest stopped")));
        }
        let c = guest.console();
        for l in c.iter().skip(shown) {
            crate::outln!("{l}");
        }
        shown = c.len();
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

fn serve(s: ServeArgs) -> Result<(), Failure> {
    let stop = interrupt_flag();
    let key = s.key_file.as_deref().map(read_key).transpose()?;
    let sock = UdpSocket::bind(s.listen).with_context(|| format!("binding {}", s.listen))?;
    eprintln!(
        "wisec: answering the CCM-UDP exchange on udp {}{} (Ctrl-C to stop)",
        s.listen,
        if key.is_some() {
            ""
        } else {
            ", plain messages only"
        }
    );
    let r = linux::serve(&sock, key.as_deref(), &stop).map_err(runtime)?;
    eprintln!(
        "wisec: accepted {} plain and {} protected messages; rejected {:?}",
        r.counters.accepted[0], r.counters.accepted[1], r.counters.rejected
    );
    Ok(())
}

fn markdown(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        "# wisec bare run\n\n{}\n\n{}## Results\n\n",
        report.description,
        wisec_lab::output::parameters_markdown(&report.parameters)
    );
    for t in &report.tables {
        s.push_str(&t.to_markdown());
        let _ = writeln!(s, "\nData: [{0}.csv]({0}.csv)\n", t.name);
    }
    s.push_str("## Notes\n\n");
    for n in &report.notes {
        let _ = writeln!(s, "{n}\n");
    }
    s
}

/// `wisec lab run ccm-udp --bare qemu`: the real exchange after the
/// simulated one, with the experiment's sizes and datagram count (`--set
/// sizes=...`, `--set packets=...`, `--quick`), its report in `out/bare/`.
pub fn run_for_lab(
    quick: bool,
    set: &[String],
    out: Option<&Path>,
    quiet: bool,
    stop: Arc<AtomicBool>,
) -> Result<(), Failure> {
    let (mut sizes, mut messages) = if quick {
        (vec![50, 500, 1000], 100)
    } else {
        (vec![50, 250, 500, 750, 1000], 1000)
    };
    for kv in set {
        let Some((k, v)) = kv.split_once('=') else {
            continue;
        };
        let v = v.trim().trim_matches(|c| c == '[' || c == ']');
        match k.trim().trim_start_matches("params.") {
            "sizes" => {
                sizes = v
                    .split(',')
                    .map(|x| x.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| Failure::Usage(format!("--set {kv}: sizes are numbers")))?
            }
            "packets" => {
                messages = v
                    .parse()
                    .map_err(|_| Failure::Usage(format!("--set {kv}: a number")))?
            }
            _ => {}
        }
    }
    let a = RunArgs {
        image: ImageArgs {
            image: None,
            source: None,
            cpu: "max".into(),
        },
        sizes,
        messages,
        echoes: messages,
        line_mbps: 100.0,
        no_netns: false,
        no_guest: false,
        timeout: 20.0,
        out: out.map(|d| d.join("bare")),
        force: true,
        json: false,
        quiet,
    };
    run_measure(a, stop)
}

fn run_measure(a: RunArgs, stop: Arc<AtomicBool>) -> Result<(), Failure> {
    if a.sizes.is_empty()
        || a.sizes
            .iter()
            .any(|n| !(1..=wisec_bare::wire::MAX_DATA).contains(n))
    {
        return Err(Failure::Usage(format!(
            "--sizes: each from 1 to {} octets",
            wisec_bare::wire::MAX_DATA
        )));
    }
    if !(1..=100_000).contains(&a.messages) || !(1..=1_000_000).contains(&a.echoes) {
        return Err(Failure::Usage(
            "--messages: 1 to 100000; --echoes: 1 to 1000000".into(),
        ));
    }
    if !((0.0..=100_000.0).contains(&a.line_mbps) && a.timeout > 0.0 && a.timeout <= 3600.0) {
        return Err(Failure::Usage(
            "--line-mbps: 0 to 100000; --timeout: up to 3600 s".into(),
        ));
    }
    if a.no_guest && a.no_netns {
        return Err(Failure::Usage(
            "--no-guest and --no-netns leave nothing to run".into(),
        ));
    }
    if let Some(d) = &a.out {
        if d.join("report.md").exists() && !a.force {
            return Err(Failure::Runtime(anyhow!(
                "{}: already has a report (use --force to overwrite it)",
                d.display()
            )));
        }
    }
    let cfg = RunConfig {
        sizes: a.sizes.clone(),
        m: a.messages,
        echoes: a.echoes,
        line_mbps: a.line_mbps,
        timeout: Duration::from_secs_f64(a.timeout),
    };
    let quiet = a.quiet;
    let say = |s: &str| {
        if !quiet {
            eprintln!("wisec: {s}");
        }
    };
    let mut guest_runs: Vec<SizeRun> = Vec::new();
    let mut image = None;
    if !a.no_guest {
        for name in qemu::remove_leftovers() {
            eprintln!("wisec: stopped {name}, left running by an earlier run");
        }
        let (opts, built) = guest_options(&a.image)?;
        image = built.or_else(|| {
            let file_bytes = std::fs::metadata(&opts.image).ok()?.len();
            Some(Image {
                image: opts.image.clone(),
                elf: opts.image.with_extension("elf"),
                file_bytes,
                sections: image::sections(&opts.image).unwrap_or_default(),
                build_seconds: 0.0,
            })
        });
        guest_runs = run::run_guest(&opts, &cfg, &stop, say).map_err(runtime)?;
    }
    let mut netns_runs = Vec::new();
    let mut netns_note = None;
    if !a.no_netns {
        match run::run_netns(&cfg, None, &stop, say) {
            Ok(r) => netns_runs = r,
            Err(BareError::Live(e)) if matches!(e, wisec_lab::live::LiveError::Privileges) => {
                netns_note = Some(format!("The Linux-to-Linux run was skipped: {e}."));
                say(&format!("skipping the Linux-to-Linux run: {e}"));
            }
            Err(e) => return Err(runtime(e)),
        }
    }
    let report = run::report(
        &cfg,
        &guest_runs,
        &netns_runs,
        image.as_ref(),
        netns_note.as_deref(),
    );
    let results = serde_json::json!({
        "image": image,
        "guest": guest_runs,
        "linux_linux": netns_runs,
        "report": report,
    });
    if let Some(dir) = &a.out {
        let err = |e: wisec_lab::output::OutputError| Failure::Runtime(anyhow!("{e}"));
        write_atomic(
            dir,
            Path::new("results.json"),
            serde_json::to_string_pretty(&results)
                .context("encoding")?
                .as_bytes(),
        )
        .map_err(err)?;
        for t in &report.tables {
            write_atomic(
                dir,
                Path::new(&format!("{}.csv", t.name)),
                t.to_csv().as_bytes(),
            )
            .map_err(err)?;
        }
        write_atomic(dir, Path::new("report.md"), markdown(&report).as_bytes()).map_err(err)?;
    }
    if a.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&results).context("encoding")?
        );
    } else {
        crate::out!("{}", wisec_lab::output::text_tables(&report));
        if let Some(dir) = &a.out {
            crate::outln!("report: {}", dir.join("report.md").display());
        }
    }
    let unclean: Vec<String> = guest_runs
        .iter()
        .chain(&netns_runs)
        .filter(|r| !r.clean())
        .map(|r| format!("{} n = {}", r.responder, r.n))
        .collect();
    if !unclean.is_empty() {
        return Err(Failure::Runtime(anyhow!(
            "messages were lost or rejected in: {} (see the report's counters)",
            unclean.join(", ")
        )));
    }
    Ok(())
}
