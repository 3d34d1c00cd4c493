//! End-to-end IPsec by strongSwan (Debian `strongswan-charon`,
//! `strongswan-swanctl`, `libcharon-extra-plugins`) between two nodes of a
//! live network: certificates made for the run, configurations written
//! into the run directory, charon started and driven through swanctl.
//!
//! # Kernel-libipsec
//!
//! The lab's kernels have no ESP transforms (no `xfrm` algorithms), so
//! charon carries ESP itself with its `kernel-libipsec` plugin: a TUN
//! device `ipsec0`, routes in table 220 that send protected traffic to it,
//! and ESP always in UDP encapsulation (port 4500; charon pretends the
//! peer is behind a NAT). Its limits, found by running it: only tunnel
//! mode (a transport-mode CHILD_SA fails with "IPsec SA: unsupported
//! mode"), and no acquires (a trap policy drops the traffic it catches
//! without starting IKE), so a connection is initiated explicitly.
//! Between two hosts the tunnel's traffic selectors are the hosts
//! themselves; charon's own IKE and ESP packets would then be routed into
//! `ipsec0` as well, so they leave with a firewall mark (`socket-default`
//! `fwmark`) that the routing rule of table 220 skips (`kernel-netlink`
//! `fwmark = !MARK`, `kernel-libipsec` `allow_peer_ts`).
//!
//! # One /run per node
//!
//! charon's pid file (`/var/run/charon.pid`) is compiled in, so two
//! charons on one machine need two /run directories. Each node's programs
//! run in a private mount namespace (`unshare --mount --propagation
//! private`) where the node's folder of the run directory is bind-mounted
//! on /run; swanctl runs the same way and so finds the same vici socket
//! (`/run/charon.vici`), and nothing of the host's /run changes. The small
//! shell step that mounts and then execs the program is a fixed script;
//! paths reach it as arguments, never as part of the script.

use super::net::{LiveNet, Netns, ProcId};
use super::sys::{find_program, run, LiveError, Result};
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The connection's name in swanctl.conf (and its CHILD_SA's).
pub const CONN: &str = "e2e";
/// How long a control command (load, list, terminate) may wait for
/// charon: one starved by a load of higher priority on its CPU answers
/// over vici only when it gets the CPU, which can take tens of seconds.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(180);
/// The firewall mark of charon's own packets.
pub const FWMARK: u32 = 0x5ec;
/// Mounts the node's folder (`$0`) on /run in the mount namespace the
/// program runs in, then execs the program (`$@`).
const RUN_SCRIPT: &str = "mount --bind \"$0\" /run && \
export STRONGSWAN_CONF=/run/strongswan.conf SWANCTL_DIR=/run/swanctl && exec \"$@\"";

/// IKE version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IkeVersion {
    /// IKEv1 (RFC 2409): main mode for the ISAKMP SA, quick mode for the
    /// IPsec SA, as seed 004's openswan ran it.
    V1,
    /// IKEv2 (RFC 7296): IKE_SA_INIT and IKE_AUTH.
    V2,
}

/// The algorithms of a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IkeSuite {
    /// IKE version.
    pub version: IkeVersion,
    /// The IKE (ISAKMP) proposal, in swanctl's syntax.
    pub ike: String,
    /// The ESP proposal.
    pub esp: String,
}

impl IkeSuite {
    /// IKEv2 with AES-128-GCM (16-octet ICV), PRF HMAC-SHA-256 and ECP-256
    /// for the IKE SA, AES-128-GCM for ESP.
    pub fn ikev2_gcm() -> IkeSuite {
        IkeSuite {
            version: IkeVersion::V2,
            ike: "aes128gcm16-prfsha256-ecp256".into(),
            esp: "aes128gcm16".into(),
        }
    }

    /// IKEv1 main and quick mode with 3DES-CBC and HMAC-SHA1-96, MODP-1024
    /// (Oakley group 2) for the Diffie-Hellman exchange, ESP with
    /// 3DES-CBC and HMAC-SHA1-96: seed 004's 3DES and ESP, with openswan's
    /// usual companions.
    pub fn ikev1_3des() -> IkeSuite {
        IkeSuite {
            version: IkeVersion::V1,
            ike: "3des-sha1-modp1024".into(),
            esp: "3des-sha1".into(),
        }
    }

    /// Its name in parameters (`ikev1`, `ikev2`).
    pub fn name(&self) -> &'static str {
        match self.version {
            IkeVersion::V1 => "ikev1",
            IkeVersion::V2 => "ikev2",
        }
    }

    /// The suite called `s`.
    pub fn from_name(s: &str) -> Option<IkeSuite> {
        match s {
            "ikev1" => Some(IkeSuite::ikev1_3des()),
            "ikev2" => Some(IkeSuite::ikev2_gcm()),
            _ => None,
        }
    }

    /// What it is, for reports.
    pub fn describe(&self) -> String {
        match self.version {
            IkeVersion::V1 => format!(
                "IKEv1 main mode + quick mode, IKE {}, ESP {}",
                self.ike, self.esp
            ),
            IkeVersion::V2 => format!(
                "IKEv2 (IKE_SA_INIT + IKE_AUTH), IKE {}, ESP {}",
                self.ike, self.esp
            ),
        }
    }

    /// The algorithms charon must offer (as `swanctl --list-algs` names
    /// them) for this suite.
    pub fn needs(&self) -> &'static [&'static str] {
        match self.version {
            IkeVersion::V1 => &["3DES_CBC", "HMAC_SHA1_96", "PRF_HMAC_SHA1", "MODP_1024"],
            IkeVersion::V2 => &["AES_GCM_16", "PRF_HMAC_SHA2_256", "ECP_256"],
        }
    }
}

/// IPsec mode of the CHILD_SA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Tunnel mode.
    Tunnel,
    /// Transport mode (seed 004's).
    Transport,
}

impl Mode {
    /// swanctl's word.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Tunnel => "tunnel",
            Mode::Transport => "transport",
        }
    }
}

/// The key type of the run's certificates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyType {
    /// RSA, 2048 bits (signatures as seed 004's RSA keys).
    Rsa2048,
    /// ECDSA on P-256.
    Ecdsa256,
}

impl KeyType {
    /// Its name in parameters.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::Rsa2048 => "rsa2048",
            KeyType::Ecdsa256 => "ecdsa256",
        }
    }

    /// The key type called `s`.
    pub fn from_name(s: &str) -> Option<KeyType> {
        match s {
            "rsa2048" => Some(KeyType::Rsa2048),
            "ecdsa256" => Some(KeyType::Ecdsa256),
            _ => None,
        }
    }

    fn newkey(self) -> &'static [&'static str] {
        match self {
            KeyType::Rsa2048 => &["-newkey", "rsa:2048"],
            KeyType::Ecdsa256 => &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"],
        }
    }
}

/// Makes the run's certificates with the openssl command: a CA (`ca.pem`,
/// `ca.key`) and, for each node, a key (`NAME.key`) and a certificate
/// (`NAME.pem`, CN = the node, subjectAltName = its IP address), all valid
/// for two days, in `dir`.
pub fn make_pki(dir: &Path, nodes: &[(&str, Ipv4Addr)], key: KeyType) -> Result<()> {
    let openssl = find_program("openssl")?;
    std::fs::create_dir_all(dir)
        .map_err(|e| LiveError::io(format!("creating {}", dir.display()), e))?;
    let p = |f: &str| dir.join(f).display().to_string();
    let mut ca = Command::new(&openssl);
    ca.args(["req", "-x509"])
        .args(key.newkey())
        .args(["-nodes", "-keyout", &p("ca.key"), "-out", &p("ca.pem")])
        .args(["-subj", "/CN=wisec lab CA", "-days", "2"])
        .args(["-addext", "basicConstraints=critical,CA:TRUE"])
        .args(["-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
    run(&mut ca)?;
    for (i, (name, ip)) in nodes.iter().enumerate() {
        let csr = p(&format!("{name}.csr"));
        let mut req = Command::new(&openssl);
        req.args(["req", "-new"])
            .args(key.newkey())
            .args([
                "-nodes",
                "-keyout",
                &p(&format!("{name}.key")),
                "-out",
                &csr,
            ])
            .args(["-subj", &format!("/CN={name}")])
            .args(["-addext", &format!("subjectAltName=IP:{ip}")]);
        run(&mut req)?;
        let mut sign = Command::new(&openssl);
        sign.args(["x509", "-req", "-in", &csr, "-CA", &p("ca.pem")])
            .args(["-CAkey", &p("ca.key"), "-out", &p(&format!("{name}.pem"))])
            .args(["-days", "2", "-copy_extensions", "copy"])
            .args(["-set_serial", &(i + 2).to_string()]);
        run(&mut sign)?;
        let _ = std::fs::remove_file(&csr);
    }
    Ok(())
}

/// The strongswan.conf of a node: only the plugins the lab needs, ESP by
/// kernel-libipsec, charon's own packets marked past table 220, the log
/// on standard error with millisecond times.
pub fn strongswan_conf(node: &str) -> String {
    format!(
        "# strongswan.conf written by wisec for node {node} of a live run.\n\
charon {{\n\
    load_modular = no\n\
    load = random nonce openssl pem pkcs1 pkcs8 x509 revocation constraints pubkey gmp hmac sha1 sha2 gcm aes kdf kernel-libipsec kernel-netlink socket-default vici\n\
    plugins {{\n\
        # ESP in user space: the kernel has no ESP transforms.\n\
        kernel-libipsec {{\n\
            allow_peer_ts = yes\n\
        }}\n\
        # IKE and (UDP-encapsulated) ESP leave with this mark, and the\n\
        # routing rule of table 220 leaves marked packets alone: the peer\n\
        # is inside its own traffic selector.\n\
        socket-default {{\n\
            fwmark = {FWMARK:#x}\n\
        }}\n\
        kernel-netlink {{\n\
            fwmark = !{FWMARK:#x}\n\
        }}\n\
        revocation {{\n\
            enable_ocsp = no\n\
            enable_crl = no\n\
        }}\n\
    }}\n\
    filelog {{\n\
        stderr {{\n\
            time_format = %T\n\
            time_add_ms = yes\n\
            ike_name = yes\n\
            default = 1\n\
            ike = 2\n\
            knl = 1\n\
            esp = 1\n\
        }}\n\
    }}\n\
    syslog {{\n\
    }}\n\
}}\n\
swanctl {{\n\
    load = pem pkcs1 pkcs8 x509 pubkey openssl random\n\
}}\n"
    )
}

/// The swanctl.conf of one end of the connection between `local` and
/// `remote` (certificate `cert` in the node's x509 folder).
pub fn swanctl_conf(
    local: Ipv4Addr,
    remote: Ipv4Addr,
    cert: &str,
    suite: &IkeSuite,
    mode: Mode,
) -> String {
    let version = match suite.version {
        IkeVersion::V1 => 1,
        IkeVersion::V2 => 2,
    };
    format!(
        "# swanctl.conf written by wisec: {desc}, {mode} mode.\n\
connections {{\n\
    {CONN} {{\n\
        version = {version}\n\
        local_addrs = {local}\n\
        remote_addrs = {remote}\n\
        proposals = {ike}\n\
        fragmentation = yes\n\
        local {{\n\
            auth = pubkey\n\
            certs = {cert}\n\
            id = {local}\n\
        }}\n\
        remote {{\n\
            auth = pubkey\n\
            id = {remote}\n\
        }}\n\
        children {{\n\
            {CONN} {{\n\
                local_ts = {local}/32\n\
                remote_ts = {remote}/32\n\
                esp_proposals = {esp}\n\
                mode = {mode}\n\
                start_action = none\n\
            }}\n\
        }}\n\
    }}\n\
}}\n",
        desc = suite.describe(),
        ike = suite.ike,
        esp = suite.esp,
        mode = mode.name(),
    )
}

/// A charon of a node.
#[derive(Debug, Clone)]
pub struct Charon {
    /// The node.
    pub node: String,
    /// Its namespace.
    pub ns: Netns,
    /// The node's folder, mounted on /run for its programs.
    pub home: PathBuf,
    /// The process.
    pub proc: ProcId,
    /// Its process id.
    pub pid: u32,
    /// The node's address.
    pub ip: Ipv4Addr,
    /// The peer's address.
    pub peer: Ipv4Addr,
}

/// The command prefix that runs a program with `home` mounted on /run.
fn on_private_run(home: &Path) -> Result<Vec<String>> {
    Ok(vec![
        find_program("unshare")?.display().to_string(),
        "--mount".into(),
        "--propagation".into(),
        "private".into(),
        find_program("sh")?.display().to_string(),
        "-c".into(),
        RUN_SCRIPT.into(),
        home.display().to_string(),
    ])
}

impl Charon {
    /// Starts charon for `node` (address `ip`, peer `peer`) in `ns`, its
    /// folder `home` with the node's key and certificate and the CA from
    /// `pki`; `prefix` goes first (CPU pin and nice level, see
    /// [`super::sched::wrap`]). Returns when charon's vici socket exists.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        net: &mut LiveNet,
        ns: &Netns,
        node: &str,
        home: &Path,
        ip: Ipv4Addr,
        peer: Ipv4Addr,
        pki: &Path,
        prefix: &[String],
    ) -> Result<Charon> {
        let charon = find_program("charon")?;
        find_program("swanctl")?;
        for d in ["swanctl/x509", "swanctl/x509ca", "swanctl/private"] {
            let p = home.join(d);
            std::fs::create_dir_all(&p)
                .map_err(|e| LiveError::io(format!("creating {}", p.display()), e))?;
        }
        let copy = |from: PathBuf, to: PathBuf| {
            std::fs::copy(&from, &to)
                .map(drop)
                .map_err(|e| LiveError::io(format!("copying {}", from.display()), e))
        };
        copy(pki.join("ca.pem"), home.join("swanctl/x509ca/ca.pem"))?;
        copy(
            pki.join(format!("{node}.pem")),
            home.join(format!("swanctl/x509/{node}.pem")),
        )?;
        copy(
            pki.join(format!("{node}.key")),
            home.join(format!("swanctl/private/{node}.key")),
        )?;
        let conf = home.join("strongswan.conf");
        std::fs::write(&conf, strongswan_conf(node))
            .map_err(|e| LiveError::io(format!("writing {}", conf.display()), e))?;
        // A pid file or socket of an earlier charon in this folder would
        // stop this one.
        for f in ["charon.pid", "charon.vici"] {
            let _ = std::fs::remove_file(home.join(f));
        }
        let mut pre = prefix.to_vec();
        pre.extend(on_private_run(home)?);
        let (program, args) = super::sched::command(&pre, &charon, &[])?;
        let proc = net.spawn(ns, &program, &args, &format!("charon-{node}"))?;
        let pid = net
            .pid(proc)
            .ok_or_else(|| LiveError::Config("charon has no process id".into()))?;
        let c = Charon {
            node: node.to_string(),
            ns: ns.clone(),
            home: home.to_path_buf(),
            proc,
            pid,
            ip,
            peer,
        };
        let vici = home.join("charon.vici");
        let deadline = Instant::now() + Duration::from_secs(15);
        while !vici.exists() {
            if !net.running(proc) {
                let log = net
                    .log_path(proc)
                    .and_then(|p| std::fs::read_to_string(p).ok())
                    .unwrap_or_default();
                return Err(LiveError::Command {
                    command: format!("charon of {node}"),
                    message: format!(
                        "ended at start: {}",
                        log.lines().rev().take(3).collect::<Vec<_>>().join(" | ")
                    ),
                });
            }
            if Instant::now() >= deadline {
                return Err(LiveError::Config(format!(
                    "charon of {node} did not open its vici socket within 15 s"
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(c)
    }

    /// Runs `swanctl ARGS` against this charon; its standard output.
    pub fn swanctl(
        &self,
        net: &mut LiveNet,
        args: &[&str],
        log: &str,
        timeout: Duration,
    ) -> Result<String> {
        let swanctl = find_program("swanctl")?;
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (program, argv) = super::sched::command(&on_private_run(&self.home)?, &swanctl, &args)?;
        net.exec(&self.ns, &program, &argv, log, timeout)
    }

    /// Writes the connection to the peer with `suite` in `mode` and loads
    /// it with the credentials (`swanctl --load-all`).
    pub fn load(&self, net: &mut LiveNet, suite: &IkeSuite, mode: Mode) -> Result<()> {
        let conf = self.home.join("swanctl/swanctl.conf");
        let text = swanctl_conf(
            self.ip,
            self.peer,
            &format!("{}.pem", self.node),
            suite,
            mode,
        );
        std::fs::write(&conf, text)
            .map_err(|e| LiveError::io(format!("writing {}", conf.display()), e))?;
        let out = self.swanctl(
            net,
            &["--load-all", "--noprompt"],
            &format!("swanctl-{}-load", self.node),
            CONTROL_TIMEOUT,
        )?;
        if !out.contains("successfully loaded 1 connections") {
            return Err(LiveError::Command {
                command: format!("swanctl --load-all ({})", self.node),
                message: out.lines().last().unwrap_or("no output").to_string(),
            });
        }
        Ok(())
    }

    /// Initiates the connection's CHILD_SA (and with it the IKE SA) and
    /// waits up to `timeout` for it: swanctl's output, or the error.
    pub fn initiate(&self, net: &mut LiveNet, timeout: Duration) -> Result<String> {
        let secs = timeout.as_secs().max(1).to_string();
        self.swanctl(
            net,
            &["--initiate", "--child", CONN, "--timeout", &secs],
            &format!("swanctl-{}-initiate", self.node),
            timeout + Duration::from_secs(5),
        )
    }

    /// Deletes the IKE SA (and its CHILD_SAs) if there is one: sends the
    /// peer a DELETE and, with `force`, forgets the SA at once instead of
    /// waiting for the peer's answer (swanctl's `--force`).
    pub fn terminate(&self, net: &mut LiveNet, force: bool) -> Result<()> {
        if self.list_sas(net)?.trim().is_empty() {
            return Ok(());
        }
        let mut args = vec!["--terminate", "--ike", CONN, "--timeout", "10"];
        if force {
            args.push("--force");
        }
        // "no matching SAs": the peer deleted it meanwhile.
        let _ = self.swanctl(
            net,
            &args,
            &format!("swanctl-{}-terminate", self.node),
            CONTROL_TIMEOUT,
        );
        Ok(())
    }

    /// `swanctl --list-sas`.
    pub fn list_sas(&self, net: &mut LiveNet) -> Result<String> {
        self.swanctl(
            net,
            &["--list-sas", "--noblock"],
            &format!("swanctl-{}-list", self.node),
            CONTROL_TIMEOUT,
        )
    }

    /// The algorithms charon offers (`swanctl --list-algs`).
    pub fn algorithms(&self, net: &mut LiveNet) -> Result<String> {
        self.swanctl(
            net,
            &["--list-algs"],
            &format!("swanctl-{}-algs", self.node),
            CONTROL_TIMEOUT,
        )
    }

    /// charon's log so far.
    pub fn log(&self, net: &LiveNet) -> String {
        net.log_path(self.proc)
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    }
}

/// Why `suite` cannot run with a charon whose `swanctl --list-algs` said
/// `algs`: the algorithms it lacks; `None` when it has them all.
pub fn missing_algorithms(suite: &IkeSuite, algs: &str) -> Option<String> {
    let missing: Vec<&str> = suite
        .needs()
        .iter()
        .copied()
        .filter(|a| {
            !algs
                .split(|c: char| c.is_whitespace() || c == '[' || c == ']' || c == ',')
                .any(|w| w == *a)
        })
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "charon's loaded plugins offer no {} (swanctl --list-algs)",
            missing.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_name_the_suite_mode_and_mark() {
        let a = Ipv4Addr::new(10, 98, 0, 1);
        let c = Ipv4Addr::new(10, 98, 0, 3);
        let s = swanctl_conf(a, c, "a.pem", &IkeSuite::ikev1_3des(), Mode::Tunnel);
        for want in [
            "version = 1\n",
            "proposals = 3des-sha1-modp1024\n",
            "esp_proposals = 3des-sha1\n",
            "mode = tunnel\n",
            "local_ts = 10.98.0.1/32\n",
            "remote_ts = 10.98.0.3/32\n",
            "certs = a.pem\n",
            "remote_addrs = 10.98.0.3\n",
        ] {
            assert!(s.contains(want), "{want:?} in {s}");
        }
        let s = swanctl_conf(a, c, "a.pem", &IkeSuite::ikev2_gcm(), Mode::Transport);
        assert!(s.contains("version = 2\n") && s.contains("mode = transport\n"));
        let conf = strongswan_conf("a");
        assert!(conf.contains("fwmark = 0x5ec\n") && conf.contains("fwmark = !0x5ec\n"));
        assert!(conf.contains("kernel-libipsec"));
        assert!(RUN_SCRIPT.starts_with("mount --bind \"$0\" /run"));
    }

    #[test]
    fn missing_algorithms_are_named() {
        let algs = "encryption:\n  AES_CBC[aes]\n  3DES_CBC[openssl]\n  AES_GCM_16[openssl]\n\
integrity:\n  HMAC_SHA1_96[hmac]\nprf:\n  PRF_HMAC_SHA1[hmac]\n  PRF_HMAC_SHA2_256[hmac]\n\
ke:\n  MODP_1024[gmp]\n  ECP_256[openssl]\n";
        assert_eq!(missing_algorithms(&IkeSuite::ikev1_3des(), algs), None);
        assert_eq!(missing_algorithms(&IkeSuite::ikev2_gcm(), algs), None);
        let no3des = algs.replace("3DES_CBC", "BLOWFISH_CBC");
        let why = missing_algorithms(&IkeSuite::ikev1_3des(), &no3des).unwrap();
        assert!(why.contains("3DES_CBC"), "{why}");
        assert_eq!(IkeSuite::from_name("ikev2"), Some(IkeSuite::ikev2_gcm()));
        assert!(IkeSuite::from_name("ikev3").is_none());
    }
}
