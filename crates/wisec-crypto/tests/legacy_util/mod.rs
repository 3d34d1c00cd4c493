//! Helpers shared by the legacy-suite, CMAC and BIP tests.
#![allow(dead_code)]

use serde_json::Value;

pub fn hex(s: &str) -> Vec<u8> {
    let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(clean).expect("hex")
}

pub fn load(name: &str) -> Value {
    let path = format!("{}/tests/vectors/{}", env!("CARGO_MANIFEST_DIR"), name);
    let text = std::fs::read_to_string(&path).expect("vector file");
    serde_json::from_str(&text).expect("json")
}

pub fn ieee() -> Value {
    load("ieee80211_vectors.json")
}

pub fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("missing {key}"))
}

/// A tiny deterministic generator for fuzz-style loops (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next() as u8;
        }
    }
}

/// RC4 as its public description gives it (the algorithm RFC 6229 gives
/// vectors for), one byte at a time: an implementation independent of
/// the library's read-ahead loops, for building references.
pub fn rc4_plain(key: &[u8], data: &mut [u8]) {
    let mut s: Vec<u8> = (0..=255).collect();
    let mut j = 0u8;
    for k in 0..256 {
        j = j.wrapping_add(s[k]).wrapping_add(key[k % key.len()]);
        s.swap(k, usize::from(j));
    }
    let (mut i, mut j) = (0u8, 0u8);
    for b in data {
        i = i.wrapping_add(1);
        j = j.wrapping_add(s[usize::from(i)]);
        s.swap(usize::from(i), usize::from(j));
        *b ^= s[usize::from(s[usize::from(i)].wrapping_add(s[usize::from(j)]))];
    }
}
