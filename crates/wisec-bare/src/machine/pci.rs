//! PCI configuration space through configuration mechanism #1 (I/O ports
//! 0xcf8/0xcfc, PCI Local Bus Specification 3.0, 3.2.2.3.2).

use super::cpu::{inl, outl};

/// A function on bus 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    /// Device number.
    pub device: u8,
    /// Function number.
    pub function: u8,
}

impl Function {
    fn address(&self, offset: u8) -> u32 {
        0x8000_0000
            | (u32::from(self.device) << 11)
            | (u32::from(self.function) << 8)
            | u32::from(offset & 0xfc)
    }

    /// Reads the 32-bit register at `offset`.
    pub fn read(&self, offset: u8) -> u32 {
        outl(0xcf8, self.address(offset));
        inl(0xcfc)
    }

    /// Writes the 32-bit register at `offset`.
    pub(super) fn write(&self, offset: u8, v: u32) {
        outl(0xcf8, self.address(offset));
        outl(0xcfc, v);
    }
}

/// The first function on bus 0 with this vendor and one of these devices.
pub fn find(vendor: u16, devices: &[u16]) -> Option<(Function, u16)> {
    for device in 0..32u8 {
        for function in 0..8u8 {
            let f = Function { device, function };
            let id = f.read(0);
            if id & 0xffff == u32::from(vendor) {
                let dev = (id >> 16) as u16;
                if devices.contains(&dev) {
                    return Some((f, dev));
                }
            }
        }
    }
    None
}
