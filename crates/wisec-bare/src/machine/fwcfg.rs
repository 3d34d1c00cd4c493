//! QEMU's firmware configuration device (fw_cfg, I/O ports 0x510/0x511;
//! QEMU's docs/specs/fw_cfg.rst): reads a named file that QEMU was given
//! with `-fw_cfg name=NAME,file=PATH`.

use super::cpu::{inb, outw};

const SELECTOR: u16 = 0x510;
const DATA: u16 = 0x511;
const SIGNATURE: u16 = 0x0000;
const FILE_DIR: u16 = 0x0019;

fn read(out: &mut [u8]) {
    for b in out {
        *b = inb(DATA);
    }
}

fn skip(mut n: usize) {
    while n > 0 {
        inb(DATA);
        n -= 1;
    }
}

/// Reads the file `name` into `out`: its length (which may exceed what was
/// copied), or `None` when there is no fw_cfg device or no such file.
pub fn read_file(name: &[u8], out: &mut [u8]) -> Option<usize> {
    outw(SELECTOR, SIGNATURE);
    let mut sig = [0u8; 4];
    read(&mut sig);
    if &sig != b"QEMU" {
        return None;
    }
    outw(SELECTOR, FILE_DIR);
    let mut count = [0u8; 4];
    read(&mut count);
    for _ in 0..u32::from_be_bytes(count) {
        // struct FWCfgFile: size (be32), select (be16), reserved (be16),
        // name (56 octets, NUL-terminated).
        let mut entry = [0u8; 64];
        read(&mut entry);
        let size = u32::from_be_bytes([entry[0], entry[1], entry[2], entry[3]]) as usize;
        let select = u16::from_be_bytes([entry[4], entry[5]]);
        let fname = &entry[8..];
        let end = fname.iter().position(|b| *b == 0).unwrap_or(fname.len());
        if &fname[..end] == name {
            outw(SELECTOR, select);
            let n = size.min(out.len());
            read(&mut out[..n]);
            skip(size - n);
            return Some(size);
        }
    }
    None
}
