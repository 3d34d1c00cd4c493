//! The bare machine's configuration: `name=value` lines, given to the
//! image by QEMU as the fw_cfg file `opt/wisec/config` (so the key never
//! appears on a command line).
//!
//! ```text
//! key=000102030405060708090a0b0c0d0e0f   AES-128 key, 32 hex digits (none: plain only)
//! ip=10.0.2.15                           the machine's IPv4 address (default: QEMU
//!                                        user networking's guest address)
//! port=7000                              the UDP port it answers on
//! ```
//!
//! Blank lines and lines starting with `#` are skipped; anything else is
//! an error that names the line.

use crate::net::Ipv4;
use crate::wire::{parse_hex, DEFAULT_PORT, KEY_LEN};
use zeroize::Zeroize;

/// The configuration.
pub struct Config {
    /// The AES-128 key of the exchange.
    pub key: Option<[u8; KEY_LEN]>,
    /// The IPv4 address.
    pub ip: Ipv4,
    /// The UDP port.
    pub port: u16,
}

impl core::fmt::Debug for Config {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Config")
            .field("keyed", &self.key.is_some())
            .field("ip", &self.ip)
            .field("port", &self.port)
            .finish()
    }
}

impl Drop for Config {
    fn drop(&mut self) {
        if let Some(k) = self.key.as_mut() {
            k.zeroize();
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            key: None,
            ip: [10, 0, 2, 15],
            port: DEFAULT_PORT,
        }
    }
}

/// What is wrong with a configuration: the 1-based line and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigError {
    /// The line.
    pub line: usize,
    /// Why.
    pub why: &'static str,
}

/// Parses a dotted-quad IPv4 address.
pub fn parse_ipv4(s: &str) -> Option<Ipv4> {
    let mut out = [0u8; 4];
    let mut parts = s.split('.');
    for o in &mut out {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        *o = p.parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

impl Config {
    /// Parses the configuration text.
    pub fn parse(text: &[u8]) -> Result<Config, ConfigError> {
        let text = core::str::from_utf8(text).map_err(|_| ConfigError {
            line: 0,
            why: "not UTF-8 text",
        })?;
        let mut c = Config::default();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |why| ConfigError { line: i + 1, why };
            let (k, v) = line.split_once('=').ok_or(err("expected name=value"))?;
            match k.trim() {
                "key" => {
                    c.key = Some(
                        parse_hex::<KEY_LEN>(v.trim())
                            .ok_or(err("key: 32 hex digits (AES-128)"))?,
                    )
                }
                "ip" => c.ip = parse_ipv4(v.trim()).ok_or(err("ip: an IPv4 address"))?,
                "port" => {
                    c.port = v
                        .trim()
                        .parse()
                        .ok()
                        .filter(|p| *p != 0)
                        .ok_or(err("port: 1 to 65535"))?
                }
                _ => return Err(err("unknown name (key, ip, port)")),
            }
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_names_the_bad_line() {
        let c = Config::parse(
            b"# lab\nkey=000102030405060708090a0b0c0d0e0f\nip=10.9.8.7\n\nport=7001\n",
        )
        .unwrap();
        assert_eq!(c.key.unwrap()[15], 15);
        assert_eq!((c.ip, c.port), ([10, 9, 8, 7], 7001));
        assert_eq!(Config::parse(b"").unwrap().port, DEFAULT_PORT);
        assert_eq!(
            Config::parse(b"ip=1.2.3.4\nkey=00\n").unwrap_err(),
            ConfigError {
                line: 2,
                why: "key: 32 hex digits (AES-128)"
            }
        );
        assert_eq!(Config::parse(b"port=0").unwrap_err().line, 1);
        assert_eq!(Config::parse(b"colour=blue").unwrap_err().line, 1);
        assert!(parse_ipv4("1.2.3").is_none());
        assert!(parse_ipv4("1.2.3.256").is_none());
        assert!(parse_ipv4("1.2.3.4.5").is_none());
    }
}
