//! The bodies of wisec's fuzz targets, one public function per target.
//!
//! Each binary in `fuzz_targets/` hands libFuzzer's input to one of these
//! functions. They assert properties, not only the absence of a panic:
//! every parse that succeeds emits the same bytes again where a `Repr`
//! exists, `unprotect(protect(x)) == x`, no key is installed twice, replay
//! counters never move backwards and the handshake tracker stays within its
//! limits under a flood of distinct stations. A property that fails panics
//! with a message naming it, and libFuzzer keeps the input.
#![forbid(unsafe_code)]

pub mod capture;
pub mod crypto;
pub mod lab;
mod pmf_net;
pub mod proto;
pub mod wire;

/// Reads structured values from the front of a fuzz input. Every read past
/// the end yields zeros, so a short input is still a whole program.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    /// Wraps the input.
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { rest: data }
    }

    /// True when everything has been read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// One byte.
    pub fn u8(&mut self) -> u8 {
        match self.rest.split_first() {
            Some((&b, r)) => {
                self.rest = r;
                b
            }
            None => 0,
        }
    }

    /// A little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from(self.u16()) | (u32::from(self.u16()) << 16)
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// Up to `n` bytes (fewer at the end of the input).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.rest.len());
        let (a, b) = self.rest.split_at(n);
        self.rest = b;
        a
    }

    /// A length-prefixed byte string of at most `max` bytes.
    pub fn chunk(&mut self, max: usize) -> &'a [u8] {
        let n = usize::from(self.u16()) % (max + 1);
        self.bytes(n)
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }
}

/// A deterministic generator (xorshift64*) for the state machines'
/// randomness: the fuzzer's input decides everything, so a crash replays.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Fills `dest`.
    pub fn fill(&mut self, dest: &mut [u8]) {
        for b in dest {
            *b = (self.next_u64() >> 56) as u8;
        }
    }
}

impl wisec_proto::rsn::Random for Rng {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.fill(dest);
    }
}

/// A fuzz target: its name and the function libFuzzer calls.
pub type Target = (&'static str, fn(&[u8]));

/// Every target by name, for the regression runner of the unit tests.
pub const TARGETS: &[Target] = &[
    ("wire_header", wire::header),
    ("wire_mgmt", wire::mgmt),
    ("wire_data", wire::data),
    ("wire_elements", wire::elements),
    ("wire_rsne", wire::rsne),
    ("wire_eapol_key", wire::eapol_key),
    ("wire_radiotap", wire::radiotap),
    ("wire_discosec", wire::discosec),
    ("crypto_unprotect", crypto::unprotect),
    ("crypto_roundtrip", crypto::roundtrip),
    ("crypto_gcm_paths", crypto::gcm_paths),
    ("proto_tracker", proto::tracker),
    ("proto_tracker_flood", proto::tracker_flood),
    ("proto_fourway", proto::fourway),
    ("proto_pmf", proto::pmf),
    ("proto_sa_query", proto::sa_query),
    ("proto_discosec", proto::discosec),
    ("capture_reader", capture::reader),
    ("capture_decrypt", capture::decrypt),
    ("lab_scenario", lab::scenario),
    ("lab_live_input", lab::live_input),
    ("ko_deps", capture::ko_deps),
];
