//! A real RADIUS authentication server for the live lab: FreeRADIUS 3.2
//! (Debian `freeradius`) with a configuration generated into the run
//! directory — never the system's /etc/freeradius — and a PKI generated
//! per run with the openssl command (a CA, the server's certificate, a
//! client certificate for EAP-TLS and an expired one for the negative
//! test). Nothing of it is kept in the repository.
//!
//! The configuration is complete on its own: one virtual server `default`
//! listening on the server's address, an inner server `inner` for the
//! tunnelled methods, the `eap` module with MD5, TLS, TTLS (inner PAP)
//! and PEAP (inner MSCHAPv2), the `files` module with the lab's users,
//! `pap` and `mschap`, and one client (the AP) with its shared secret.
//! Only Debian's dictionaries (/usr/share/freeradius) and module
//! libraries (/usr/lib/freeradius) come from the system.

use super::net::{LiveNet, Netns, ProcId};
use super::sys::{self, LiveError, Result};
use std::fmt::Write as _;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The lab's RADIUS shared secret (not a secret: it lets anyone read the
/// run's RADIUS traffic).
pub const SHARED_SECRET: &str = "wisec-lab-radius";
/// The lab's user.
pub const USER: &str = "alice";
/// Her password.
pub const PASSWORD: &str = "correct horse battery";

/// The certificates and keys of a run (PEM files).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pki {
    /// Where they are.
    pub dir: PathBuf,
    /// The CA's certificate (the peers' `ca_cert`).
    pub ca_cert: PathBuf,
    /// The RADIUS server's certificate and key.
    pub server_cert: PathBuf,
    /// The server's private key.
    pub server_key: PathBuf,
    /// The client certificate for EAP-TLS (CN = [`USER`]).
    pub client_cert: PathBuf,
    /// Its private key.
    pub client_key: PathBuf,
    /// A client certificate with the same key that expired in 2020.
    pub client_expired_cert: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) -> Result<()> {
    let prog = sys::find_program("openssl")?;
    sys::run(Command::new(prog).current_dir(dir).args(args)).map(drop)
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| LiveError::io(format!("writing {}", path.display()), e))
}

/// Generates a PKI in `dir` (created): RSA-2048 keys, SHA-256
/// signatures, a CA valid for two days, a server certificate (serverAuth)
/// and client certificates (clientAuth) signed with `openssl ca`, one of
/// them dated 2020-01-01 to 2020-01-02.
pub fn make_pki(dir: &Path) -> Result<Pki> {
    std::fs::create_dir_all(dir)
        .map_err(|e| LiveError::io(format!("creating {}", dir.display()), e))?;
    // openssl runs in `dir` and FreeRADIUS elsewhere: every path they are
    // given is absolute.
    let dir = &std::path::absolute(dir)
        .map_err(|e| LiveError::io(format!("resolving {}", dir.display()), e))?;
    // A configuration of our own: nothing from the system's openssl.cnf.
    let cnf = format!(
        "[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = wisec lab CA\n\
[ca]\ndefault_ca = lab\n[lab]\ndatabase = {d}/index.txt\nnew_certs_dir = {d}\n\
serial = {d}/serial\ndefault_md = sha256\npolicy = any\nunique_subject = no\n\
copy_extensions = none\ndefault_days = 2\n[any]\ncommonName = supplied\n\
[ca_ext]\nbasicConstraints = critical, CA:true\nkeyUsage = critical, keyCertSign, cRLSign\n\
subjectKeyIdentifier = hash\n\
[server_ext]\nbasicConstraints = CA:false\nkeyUsage = digitalSignature, keyEncipherment\n\
extendedKeyUsage = serverAuth\n\
[client_ext]\nbasicConstraints = CA:false\nkeyUsage = digitalSignature, keyEncipherment\n\
extendedKeyUsage = clientAuth\n",
        d = dir.display()
    );
    write(&dir.join("openssl.cnf"), &cnf)?;
    write(&dir.join("index.txt"), "")?;
    write(&dir.join("serial"), "1000\n")?;
    let c = "openssl.cnf";
    openssl(
        dir,
        &[
            "req",
            "-config",
            c,
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-sha256",
            "-extensions",
            "ca_ext",
        ],
    )?;
    let sign = |csr: &str, out: &str, ext: &str, dates: Option<(&str, &str)>| -> Result<()> {
        let mut a = vec![
            "ca",
            "-batch",
            "-config",
            c,
            "-cert",
            "ca.pem",
            "-keyfile",
            "ca.key",
            "-in",
            csr,
            "-out",
            out,
            "-extensions",
            ext,
            "-notext",
        ];
        if let Some((s, e)) = dates {
            a.extend(["-startdate", s, "-enddate", e]);
        }
        openssl(dir, &a)
    };
    let csr = |key: &str, csr: &str, cn: &str| -> Result<()> {
        openssl(
            dir,
            &[
                "req", "-config", c, "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                "-out", csr, "-subj", cn,
            ],
        )
    };
    csr("server.key", "server.csr", "/CN=radius.wisec.lab")?;
    sign("server.csr", "server.pem", "server_ext", None)?;
    csr("client.key", "client.csr", &format!("/CN={USER}"))?;
    sign("client.csr", "client.pem", "client_ext", None)?;
    sign(
        "client.csr",
        "client-expired.pem",
        "client_ext",
        Some(("20200101000000Z", "20200102000000Z")),
    )?;
    Ok(Pki {
        dir: dir.to_path_buf(),
        ca_cert: dir.join("ca.pem"),
        server_cert: dir.join("server.pem"),
        server_key: dir.join("server.key"),
        client_cert: dir.join("client.pem"),
        client_key: dir.join("client.key"),
        client_expired_cert: dir.join("client-expired.pem"),
    })
}

/// How the FreeRADIUS instance is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeRadiusConfig {
    /// Its raddb directory (created; holds everything it reads besides
    /// Debian's dictionaries and modules).
    pub dir: PathBuf,
    /// Where it listens.
    pub listen: SocketAddrV4,
    /// The AP's address (the RADIUS client).
    pub client: Ipv4Addr,
    /// The shared secret with the AP.
    pub secret: String,
    /// Users and their passwords.
    pub users: Vec<(String, String)>,
    /// The certificates.
    pub pki: Pki,
}

/// Quotes a value for FreeRADIUS's configuration files (letters, digits
/// and a few punctuation marks only: the lab writes nothing else).
fn quoted(s: &str) -> Result<String> {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || " -_.:/@+".contains(c))
    {
        Ok(format!("\"{s}\""))
    } else {
        Err(LiveError::Config(format!(
            "'{s}' cannot go into the RADIUS configuration (letters, digits, space and -_.:/@+ only)"
        )))
    }
}

/// The `authenticate` section of both virtual servers: PAP (TTLS's inner
/// method), MS-CHAP (PEAP's inner EAP-MSCHAPv2) and EAP.
const AUTHENTICATE: &str = "    authenticate {
        Auth-Type PAP {
            pap
        }
        Auth-Type MS-CHAP {
            mschap
        }
        eap
    }
";

/// The text of `radiusd.conf` for `c`.
pub fn radiusd_conf(c: &FreeRadiusConfig) -> Result<String> {
    let d = c.dir.display();
    let p = &c.pki;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"# Generated by wisec for one live run; read by freeradius -d {d}
prefix = /usr
exec_prefix = /usr
sysconfdir = {d}
localstatedir = {d}
sbindir = /usr/sbin
logdir = {d}
raddbdir = {d}
radacctdir = {d}
name = freeradius
confdir = {d}
modconfdir = {d}
certdir = {certs}
cadir = {certs}
run_dir = {d}
db_dir = {d}
libdir = /usr/lib/freeradius
pidfile = {d}/freeradius.pid
max_request_time = 30
cleanup_delay = 5
max_requests = 1024
hostname_lookups = no
correct_escapes = true
log {{
    destination = stdout
    colourise = no
    auth = yes
    auth_badpass = no
    auth_goodpass = no
}}
security {{
    allow_core_dumps = no
    max_attributes = 200
    reject_delay = 0
    status_server = yes
}}
thread pool {{
    start_servers = 2
    max_servers = 4
    min_spare_servers = 1
    max_spare_servers = 3
    max_requests_per_server = 0
}}
client ap {{
    ipaddr = {client}
    secret = {secret}
    require_message_authenticator = yes
    nas_type = other
}}
modules {{
    always reject {{
        rcode = reject
    }}
    files {{
        filename = {d}/users
    }}
    pap {{
    }}
    mschap {{
    }}
    eap {{
        default_eap_type = peap
        timer_expire = 60
        ignore_unknown_eap_types = no
        max_sessions = 4096
        md5 {{
        }}
        mschapv2 {{
        }}
        tls-config tls-common {{
            private_key_file = {skey}
            certificate_file = {scert}
            ca_file = {ca}
            fragment_size = 1024
            include_length = yes
            check_crl = no
            cipher_list = "DEFAULT"
            tls_min_version = "1.2"
            tls_max_version = "1.2"
            cache {{
                enable = no
            }}
            verify {{
            }}
        }}
        tls {{
            tls = tls-common
        }}
        ttls {{
            tls = tls-common
            default_eap_type = md5
            copy_request_to_tunnel = yes
            use_tunneled_reply = yes
            virtual_server = "inner"
        }}
        peap {{
            tls = tls-common
            default_eap_type = mschapv2
            copy_request_to_tunnel = yes
            use_tunneled_reply = yes
            virtual_server = "inner"
        }}
    }}
}}
instantiate {{
}}
server default {{
    listen {{
        type = auth
        ipaddr = {ip}
        port = {port}
    }}
    authorize {{
        eap {{
            ok = return
        }}
        files
        pap
    }}
{authenticate}    post-auth {{
        Post-Auth-Type REJECT {{
            reject
        }}
    }}
}}
server inner {{
    authorize {{
        eap {{
            ok = return
        }}
        files
        mschap
        pap
    }}
{authenticate}}}
"#,
        certs = p.dir.display(),
        client = c.client,
        secret = quoted(&c.secret)?,
        skey = p.server_key.display(),
        scert = p.server_cert.display(),
        ca = p.ca_cert.display(),
        ip = c.listen.ip(),
        port = c.listen.port(),
        authenticate = AUTHENTICATE,
    );
    Ok(s)
}

/// Writes the configuration of `c` into `c.dir`.
pub fn write_config(c: &FreeRadiusConfig) -> Result<()> {
    std::fs::create_dir_all(&c.dir)
        .map_err(|e| LiveError::io(format!("creating {}", c.dir.display()), e))?;
    write(&c.dir.join("radiusd.conf"), &radiusd_conf(c)?)?;
    let mut users = String::new();
    for (u, pw) in &c.users {
        let _ = writeln!(
            users,
            "{} Cleartext-Password := {}",
            quoted(u)?,
            quoted(pw)?
        );
    }
    write(&c.dir.join("users"), &users)
}

/// Waits until the log of process `id` shows `ready`; an error with the
/// log's last lines if the process ends first or `timeout` passes.
pub fn wait_for_log(
    net: &mut LiveNet,
    id: ProcId,
    log: &Path,
    ready: &str,
    what: &str,
    timeout: Duration,
) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains(ready) {
            return Ok(());
        }
        let fail = |why: String| {
            let v: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            LiveError::Command {
                command: what.to_string(),
                message: format!(
                    "{why}: {} (log: {})",
                    v[v.len().saturating_sub(6)..].join(" | "),
                    log.display()
                ),
            }
        };
        if !net.running(id) {
            return Err(fail("exited before it was ready".into()));
        }
        if net.interrupted() {
            return Err(LiveError::Interrupted);
        }
        if Instant::now() >= deadline {
            net.stop(id);
            return Err(fail(format!(
                "not ready within {} s",
                timeout.as_secs_f64()
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Starts FreeRADIUS with the configuration of `c` in `ns` (foreground,
/// its log in `RUN_DIR/freeradius.log`) and waits until it processes
/// requests; a clear error with its last log lines if it does not start.
pub fn start_freeradius(net: &mut LiveNet, ns: &Netns, c: &FreeRadiusConfig) -> Result<ProcId> {
    write_config(c)?;
    let args = vec![
        "-f".to_string(),
        "-l".into(),
        "stdout".into(),
        "-d".into(),
        c.dir.display().to_string(),
    ];
    let id = net.spawn(ns, "freeradius", &args, "freeradius")?;
    let log = net
        .log_path(id)
        .map(Path::to_path_buf)
        .ok_or_else(|| LiveError::Config("freeradius has no log".into()))?;
    wait_for_log(
        net,
        id,
        &log,
        "Ready to process requests",
        &format!("freeradius -d {} in {}", c.dir.display(), ns.name),
        Duration::from_secs(20),
    )?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_values_are_checked_before_they_are_written() {
        assert!(quoted("wisec-lab-radius").is_ok());
        assert!(quoted("a\"b").is_err());
        assert!(quoted("a}b").is_err());
        let pki = Pki {
            dir: "/x".into(),
            ca_cert: "/x/ca.pem".into(),
            server_cert: "/x/s.pem".into(),
            server_key: "/x/s.key".into(),
            client_cert: "/x/c.pem".into(),
            client_key: "/x/c.key".into(),
            client_expired_cert: "/x/e.pem".into(),
        };
        let c = FreeRadiusConfig {
            dir: "/run/r".into(),
            listen: "10.99.0.2:1812".parse().unwrap(),
            client: Ipv4Addr::new(10, 99, 0, 254),
            secret: "s e".into(),
            users: vec![],
            pki,
        };
        let t = radiusd_conf(&c).unwrap();
        assert!(t.contains("ipaddr = 10.99.0.2\n        port = 1812"), "{t}");
        assert!(t.contains("secret = \"s e\""));
        assert!(!t.contains("/etc/freeradius"));
        let mut bad = c.clone();
        bad.secret = "x\"; evil".into();
        assert!(radiusd_conf(&bad).is_err());
    }
}
