//! The IEEE 802.3 CRC-32, as the WEP and TKIP ICV (IEEE Std 802.11-2020,
//! 12.3.2.2) and the 802.11 FCS (9.2.4.8) use it: reflected polynomial
//! 0xEDB88320, initial value 0xFFFFFFFF, final complement. The ICV and FCS
//! are transmitted least significant byte first.
//!
//! The lookup table is computed at compile time from the polynomial.

/// The reflected generator polynomial x^32 + x^26 + ... + 1.
pub const POLY: u32 = 0xedb8_8320;

const fn make_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
}

static TABLE: [u32; 256] = make_table();

/// A streaming CRC-32 computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Crc32 {
        Crc32::new()
    }
}

impl Crc32 {
    /// A computation over no bytes yet.
    pub const fn new() -> Crc32 {
        Crc32 { state: 0xffff_ffff }
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        let mut c = self.state;
        for &b in data {
            c = TABLE[usize::from((c as u8) ^ b)] ^ (c >> 8);
        }
        self.state = c;
    }

    /// The CRC of everything fed so far (the computation may continue).
    pub const fn value(&self) -> u32 {
        !self.state
    }

    /// The CRC as transmitted (little-endian), as ICV or FCS.
    pub const fn to_le_bytes(&self) -> [u8; 4] {
        self.value().to_le_bytes()
    }
}

/// The CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(data);
    c.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        assert_ne!(crc32(b"123456788"), 0xcbf4_3926);
    }

    #[test]
    fn streaming_equals_one_shot() {
        let data = b"The quick brown fox jumps over the lazy dog";
        // Well-known CRC-32 of this pangram.
        assert_eq!(crc32(data), 0x414f_a339);
        for split in 0..data.len() {
            let mut c = Crc32::new();
            c.update(&data[..split]);
            c.update(&data[split..]);
            assert_eq!(c.value(), 0x414f_a339);
        }
    }

    #[test]
    fn residue_of_message_with_crc_appended() {
        // Appending the little-endian CRC yields the constant residue
        // 0x2144DF1C (complemented 0xDEBB20E3), the property FCS checkers use.
        let mut c = Crc32::new();
        c.update(b"123456789");
        let fcs = c.to_le_bytes();
        c.update(&fcs);
        assert_eq!(c.value(), 0x2144_df1c);
    }
}
