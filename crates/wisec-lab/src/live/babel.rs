//! Routing by babeld (Debian `babeld`, the Babel protocol of RFC 8966) in
//! the namespaces of a live ad hoc network.
//!
//! Seed 004 routed with OLSR (olsrd), a proactive link-state protocol:
//! every node floods its links through multipoint relays (MPRs) and
//! computes shortest paths over the whole topology. olsrd has no Debian
//! package; babeld is the proactive protocol Debian ships. Babel is a
//! distance vector: a node learns from its neighbours only their metric to
//! each destination (with sequence numbers and feasibility conditions
//! against loops), never the topology. Both keep routes to every node
//! before any traffic asks for one, which is what the seed relied on.
//!
//! Each node's configuration is written into the run directory; babeld
//! runs with its pid and state files there (never /var/run or /var/lib)
//! on `wlan0` as a wireless interface (link cost from the hello loss
//! rate), redistributing its own addresses (babeld's default). Babel
//! speaks IPv6 link-local multicast (ff02::1:6, UDP 6696) and installs
//! IPv4 host routes with IPv4 next hops; the kernel's routes are read back
//! with `ip -j route` to see when the network has converged.

use super::net::{LiveNet, Netns, ProcId};
use super::sys::{LiveError, Result};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

/// How babeld runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BabelSettings {
    /// Hello interval on the wireless interface, seconds (babeld's `-h`,
    /// the interface's `hello-interval`; babeld's default is 4).
    pub hello_s: f64,
}

impl Default for BabelSettings {
    fn default() -> BabelSettings {
        BabelSettings { hello_s: 4.0 }
    }
}

impl BabelSettings {
    /// Checks the hello interval (babeld takes 0.01 to 655 s; below 0.1 s
    /// the hellos alone would load a 1 Mb/s channel).
    pub fn validate(&self) -> Result<()> {
        if !(0.1..=600.0).contains(&self.hello_s) {
            return Err(LiveError::Config(format!(
                "hello: {} s; give 0.1 to 600 seconds",
                self.hello_s
            )));
        }
        Ok(())
    }

    /// The configuration file of a node.
    pub fn config_text(&self, iface: &str) -> String {
        format!(
            "# babeld configuration written by wisec for one node of a live run.\n\
# Hellos every {h} s; updates every 4 hellos (babeld's default ratio).\n\
interface {iface} type wireless hello-interval {h}\n",
            h = self.hello_s
        )
    }
}

/// Starts babeld for `node` in `ns` on `wlan0`, with its configuration,
/// pid and state files in the run directory and its log in
/// `RUN_DIR/babeld-NODE.log`. `prefix` goes before the program (a CPU
/// pin, a nice level: see [`super::sched::wrap`]).
pub fn start(
    net: &mut LiveNet,
    ns: &Netns,
    node: &str,
    settings: &BabelSettings,
    prefix: &[String],
) -> Result<ProcId> {
    settings.validate()?;
    let dir = net.run_dir().to_path_buf();
    let conf = dir.join(format!("babeld-{node}.conf"));
    std::fs::write(&conf, settings.config_text("wlan0"))
        .map_err(|e| LiveError::io(format!("writing {}", conf.display()), e))?;
    let babeld = super::sys::find_program("babeld")?;
    let args = [
        "-c".to_string(),
        conf.display().to_string(),
        "-I".into(),
        dir.join(format!("babeld-{node}.pid")).display().to_string(),
        "-S".into(),
        dir.join(format!("babeld-{node}.state"))
            .display()
            .to_string(),
        "wlan0".into(),
    ];
    let (program, argv) = super::sched::command(prefix, &babeld, &args)?;
    net.spawn(ns, &program, &argv, &format!("babeld-{node}"))
}

/// A route babeld installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BabelRoute {
    /// The destination (a host route).
    pub dst: Ipv4Addr,
    /// The next hop.
    pub via: Option<Ipv4Addr>,
}

/// The IPv4 routes babeld has installed in `ns` (`ip -4 -j route show
/// proto babel`).
pub fn routes(net: &LiveNet, ns: &Netns) -> Result<Vec<BabelRoute>> {
    let out = net.ip_in(ns, &["-4", "-j", "route", "show", "proto", "babel"])?;
    parse_routes(&String::from_utf8_lossy(&out.stdout))
}

/// Reads `ip -j route`'s JSON: host routes (`dst` without a prefix length,
/// or with /32) and their gateways.
pub fn parse_routes(json: &str) -> Result<Vec<BabelRoute>> {
    let json = json.trim();
    if json.is_empty() {
        return Ok(Vec::new());
    }
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| LiveError::Config(format!("ip -j route: not JSON: {e}")))?;
    let list = v
        .as_array()
        .ok_or_else(|| LiveError::Config("ip -j route: not a list".into()))?;
    Ok(list
        .iter()
        .filter_map(|r| {
            let dst = r.get("dst")?.as_str()?;
            let dst = dst.strip_suffix("/32").unwrap_or(dst).parse().ok()?;
            let via = r
                .get("gateway")
                .and_then(|g| g.as_str())
                .and_then(|g| g.parse().ok());
            Some(BabelRoute { dst, via })
        })
        .collect())
}

/// Waits until every namespace of `wanted` has a Babel route to each of
/// its addresses; how long that took. An error after `timeout` names the
/// routes still missing.
pub fn wait_converged(
    net: &LiveNet,
    wanted: &[(Netns, Vec<Ipv4Addr>)],
    timeout: Duration,
) -> Result<Duration> {
    let t0 = Instant::now();
    loop {
        let mut missing = Vec::new();
        for (ns, dsts) in wanted {
            let have = routes(net, ns)?;
            for d in dsts {
                if !have.iter().any(|r| r.dst == *d) {
                    missing.push(format!("{} -> {d}", ns.node));
                }
            }
        }
        if missing.is_empty() {
            return Ok(t0.elapsed());
        }
        if net.interrupted() {
            return Err(LiveError::Interrupted);
        }
        if t0.elapsed() >= timeout {
            return Err(LiveError::Config(format!(
                "babeld did not converge within {} s (no route yet: {})",
                timeout.as_secs_f64(),
                missing.join(", ")
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_read_from_ip_json() {
        let j = r#"[{"dst":"10.98.0.3","gateway":"10.98.0.2","dev":"wlan0","protocol":"babel","metric":0,"flags":["onlink"]},
                   {"dst":"10.98.0.2","dev":"wlan0","protocol":"babel","flags":[]},
                   {"dst":"10.99.0.0/24","gateway":"10.98.0.2","dev":"wlan0","protocol":"babel","flags":[]}]"#;
        let r = parse_routes(j).unwrap();
        assert_eq!(
            r,
            vec![
                BabelRoute {
                    dst: Ipv4Addr::new(10, 98, 0, 3),
                    via: Some(Ipv4Addr::new(10, 98, 0, 2)),
                },
                BabelRoute {
                    dst: Ipv4Addr::new(10, 98, 0, 2),
                    via: None,
                },
            ]
        );
        assert!(parse_routes("").unwrap().is_empty());
        assert!(parse_routes("{").is_err());
    }

    #[test]
    fn settings_are_checked_and_written() {
        let s = BabelSettings { hello_s: 0.5 };
        assert!(s.validate().is_ok());
        assert!(s
            .config_text("wlan0")
            .contains("interface wlan0 type wireless hello-interval 0.5\n"));
        assert!(BabelSettings { hello_s: 0.0 }.validate().is_err());
        assert_eq!(BabelSettings::default().hello_s, 4.0);
    }
}
