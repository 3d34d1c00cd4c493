//! A small RADIUS authentication server that serves Cisco's LEAP, which
//! FreeRADIUS 3 no longer does: the lab's stand-in for the Cisco server of
//! seed 001's Security Level 6. It runs on a thread of the wisec process
//! with its UDP socket in a namespace of the run (the RADIUS host's), and
//! answers as a RADIUS server must (RFC 2865, 3579): it discards requests
//! whose Message-Authenticator does not verify, keeps one LEAP exchange
//! ([`wisec_proto::leap::LeapServer`]) per State, answers a retransmitted
//! request with the same answer, sends Access-Challenge with the LEAP
//! challenge and the mid-method EAP-Success, and Access-Accept with the
//! AP response and the session key as a Cisco `leap:session-key` AV pair
//! (what Cisco's servers and FreeRADIUS 2's rlm_eap_leap sent; hostapd and
//! eapol_test read it). A wrong password is an Access-Reject with
//! EAP-Failure. Status-Server (RFC 5997) is answered with Access-Accept.

use super::net::{in_netns, Netns};
use super::sys::{LiveError, Result};
use std::collections::BTreeMap;
use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use wisec_crypto::mschap::danger_nt_password_hash;
use wisec_proto::leap::{LeapError, LeapServer, Step};
use wisec_proto::radius::{self, add_leap_session_key, eap_message, Secret};
use wisec_proto::rsn::Random;
use wisec_wire::eap::{self, Code as EapCode, EapPacket, EapType};
use wisec_wire::radius::{AttrType, Code, MAX_LEN};

/// The port the lab's LEAP server listens on: 1645, the port RADIUS had
/// before RFC 2865 and Cisco's equipment kept using (FreeRADIUS has
/// 1812 on the same host).
pub const LEAP_PORT: u16 = 1645;
/// How long an unfinished exchange is kept.
const SESSION_LIFETIME: Duration = Duration::from_secs(30);

/// What the server did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeapServerStats {
    /// Access-Requests taken (verified).
    pub requests: u64,
    /// Requests discarded (malformed, bad Message-Authenticator).
    pub discarded: u64,
    /// Retransmissions answered from the cache.
    pub duplicates: u64,
    /// Access-Accepts sent.
    pub accepts: u64,
    /// Access-Rejects sent.
    pub rejects: u64,
    /// The session key of every accepted exchange, hex, in order.
    pub session_keys: Vec<String>,
    /// One line per event, for the run's log.
    pub log: Vec<String>,
}

/// The operating system's random numbers (/dev/urandom) for the
/// challenges and States.
struct OsRandom(std::fs::File);

impl Random for OsRandom {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        if self.0.read_exact(dest).is_err() {
            // /dev/urandom does not fail once open; never leave zeros.
            dest.fill(0xa5);
        }
    }
}

struct Session {
    leap: LeapServer,
    touched: Instant,
}

/// The running server.
#[derive(Debug)]
pub struct LeapRadiusServer {
    addr: SocketAddrV4,
    stop: Arc<AtomicBool>,
    stats: Arc<Mutex<LeapServerStats>>,
    thread: Option<JoinHandle<()>>,
}

impl LeapRadiusServer {
    /// Starts the server on `addr` in `ns`, with `secret` and the users
    /// and passwords of `users`; the RADIUS client is whoever knows the
    /// secret. Its log goes to `log` when it stops.
    pub fn start(
        ns: &Netns,
        addr: SocketAddrV4,
        secret: &str,
        users: &[(String, String)],
        log: Option<PathBuf>,
    ) -> Result<LeapRadiusServer> {
        let secret = Secret::new(secret.as_bytes()).ok_or_else(|| {
            LiveError::Config("the RADIUS secret must have 1 to 128 octets".into())
        })?;
        let socket = in_netns(ns, move || UdpSocket::bind(addr))?
            .map_err(|e| LiveError::io(format!("binding the LEAP server to {addr}"), e))?;
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .map_err(|e| LiveError::io("setting the LEAP server's timeout", e))?;
        let rng = std::fs::File::open("/dev/urandom")
            .map(OsRandom)
            .map_err(|e| LiveError::io("opening /dev/urandom", e))?;
        let users: BTreeMap<String, [u8; 16]> = users
            .iter()
            .map(|(u, p)| (u.clone(), danger_nt_password_hash(p)))
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let stats = Arc::new(Mutex::new(LeapServerStats::default()));
        let (st, s2) = (Arc::clone(&stop), Arc::clone(&stats));
        let thread = std::thread::Builder::new()
            .name("leap-radius".into())
            .spawn(move || serve(&socket, &secret, &users, rng, &st, &s2, log))
            .map_err(|e| LiveError::io("starting the LEAP server", e))?;
        Ok(LeapRadiusServer {
            addr,
            stop,
            stats,
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddrV4 {
        self.addr
    }

    /// What it did so far.
    pub fn stats(&self) -> LeapServerStats {
        self.stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Stops it (and writes its log).
    pub fn stop(mut self) -> LeapServerStats {
        self.halt();
        self.stats()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for LeapRadiusServer {
    fn drop(&mut self) {
        self.halt();
    }
}

/// An Access-Challenge to `req` carrying `eap` and the exchange's `state`.
fn challenge(
    req: &wisec_wire::radius::Packet<&[u8]>,
    eap: &[u8],
    state: &[u8],
    secret: &Secret,
    out: &mut [u8],
) -> Option<usize> {
    radius::build_response(Code::AccessChallenge, req, Some(eap), secret, out, |w| {
        w.add(AttrType::STATE, state).map(drop).map_err(Into::into)
    })
    .ok()
}

/// The answer to one verified request, and what to record.
fn answer(
    req: &[u8],
    secret: &Secret,
    users: &BTreeMap<String, [u8; 16]>,
    sessions: &mut BTreeMap<Vec<u8>, Session>,
    rng: &mut OsRandom,
    stats: &mut LeapServerStats,
    out: &mut [u8],
) -> Option<usize> {
    let p = match radius::verify_request(req, secret) {
        Ok(p) => p,
        Err(e) => {
            stats.discarded += 1;
            stats.log.push(format!("discarded a request: {e}"));
            return None;
        }
    };
    stats.requests += 1;
    if p.code() == Code::StatusServer {
        return radius::build_response(Code::AccessAccept, &p, None, secret, out, |_| Ok(())).ok();
    }
    let mut eap_buf = [0u8; MAX_LEN];
    let n = eap_message(&p, &mut eap_buf).ok()?;
    let eap_pkt = &eap_buf[..n];
    let id = EapPacket::new_checked(eap_pkt).ok()?.identifier();
    let user = p
        .attribute(AttrType::USER_NAME)
        .map(|a| String::from_utf8_lossy(a.value).into_owned())
        .unwrap_or_default();
    let reject = |why: &str, stats: &mut LeapServerStats, out: &mut [u8]| {
        stats.rejects += 1;
        stats.log.push(format!("Access-Reject for '{user}': {why}"));
        let mut f = [0u8; 4];
        let k = eap::emit(EapCode::Failure, id, None, &[], &mut f).ok()?;
        radius::build_response(Code::AccessReject, &p, Some(&f[..k]), secret, out, |_| {
            Ok(())
        })
        .ok()
    };
    let state = p.attribute(AttrType::STATE).map(|a| a.value.to_vec());
    let mut leap_out = [0u8; 512];
    match state.and_then(|s| sessions.remove(&s).map(|x| (s, x))) {
        None => {
            // A new exchange: it starts with EAP-Response/Identity.
            let e = EapPacket::new_checked(eap_pkt).ok()?;
            if e.code() != EapCode::Response || e.eap_type() != Some(EapType::IDENTITY) {
                return reject("no exchange for this request", stats, out);
            }
            let name = String::from_utf8_lossy(e.type_data()).into_owned();
            let Some(hash) = users.get(&name) else {
                return reject("unknown user", stats, out);
            };
            let mut leap = LeapServer::new(name.as_bytes(), *hash);
            let k = leap.start(id, rng, &mut leap_out).ok()?;
            let mut st = vec![0u8; 16];
            rng.fill_bytes(&mut st);
            let r = challenge(&p, &leap_out[..k], &st, secret, out);
            sessions.insert(
                st,
                Session {
                    leap,
                    touched: Instant::now(),
                },
            );
            r
        }
        Some((st, mut s)) => match s.leap.handle(eap_pkt, &mut leap_out) {
            Ok(Step::Challenge(k)) => {
                let r = challenge(&p, &leap_out[..k], &st, secret, out);
                s.touched = Instant::now();
                sessions.insert(st, s);
                r
            }
            Ok(Step::Accept(k)) => {
                let key = *s.leap.session_key()?;
                let mut salt = [0u8; 2];
                rng.fill_bytes(&mut salt);
                let ra = p.authenticator();
                let r = radius::build_response(
                    Code::AccessAccept,
                    &p,
                    Some(&leap_out[..k]),
                    secret,
                    out,
                    |w| {
                        w.add(AttrType::USER_NAME, user.as_bytes())?;
                        add_leap_session_key(w, &key, salt, &ra, secret)
                    },
                )
                .ok();
                stats.accepts += 1;
                stats
                    .session_keys
                    .push(key.iter().map(|b| format!("{b:02x}")).collect());
                stats.log.push(format!("Access-Accept for '{user}' (LEAP)"));
                r
            }
            Err(LeapError::WrongResponse) => {
                reject("LEAP response does not match the password", stats, out)
            }
            Err(e) => reject(&e.to_string(), stats, out),
        },
    }
}

/// The server's loop: one request at a time, until `stop`.
fn serve(
    socket: &UdpSocket,
    secret: &Secret,
    users: &BTreeMap<String, [u8; 16]>,
    mut rng: OsRandom,
    stop: &AtomicBool,
    stats: &Mutex<LeapServerStats>,
    log: Option<PathBuf>,
) {
    let mut sessions: BTreeMap<Vec<u8>, Session> = BTreeMap::new();
    // RFC 5080, 2.2.2: a retransmission (same source, Identifier and
    // Request Authenticator) gets the same answer.
    let mut last: BTreeMap<SocketAddr, (u8, [u8; 16], Vec<u8>)> = BTreeMap::new();
    let mut buf = vec![0u8; MAX_LEN];
    let mut out = vec![0u8; MAX_LEN];
    while !stop.load(Ordering::Relaxed) {
        let (n, from) = match socket.recv_from(&mut buf) {
            Ok(x) => x,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                sessions.retain(|_, s| s.touched.elapsed() < SESSION_LIFETIME);
                continue;
            }
            Err(_) => continue,
        };
        let req = &buf[..n];
        let key = (
            req.get(1).copied().unwrap_or(0),
            req.get(4..20)
                .and_then(|a| <[u8; 16]>::try_from(a).ok())
                .unwrap_or([0; 16]),
        );
        let mut st = stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((id, auth, resp)) = last.get(&from) {
            if (*id, *auth) == key {
                st.duplicates += 1;
                let _ = socket.send_to(resp, from);
                continue;
            }
        }
        if let Some(k) = answer(
            req,
            secret,
            users,
            &mut sessions,
            &mut rng,
            &mut st,
            &mut out,
        ) {
            let _ = socket.send_to(&out[..k], from);
            last.insert(from, (key.0, key.1, out[..k].to_vec()));
        }
    }
    if let Some(p) = log {
        let st = stats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = std::fs::write(p, st.log.join("\n") + "\n");
    }
}
