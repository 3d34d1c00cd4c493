//! The first serial port (COM1, a 16550 UART at I/O port 0x3f8), polled:
//! the machine's console. QEMU shows it with `-serial stdio`.

use super::cpu::{inb, outb};
use core::fmt;

const COM1: u16 = 0x3f8;

/// COM1, initialised.
#[derive(Debug)]
pub struct Serial(());

impl Serial {
    /// Sets COM1 to 115200 baud, 8N1, FIFOs on, interrupts off.
    pub fn init() -> Serial {
        outb(COM1 + 1, 0x00); // no interrupts
        outb(COM1 + 3, 0x80); // DLAB: divisor follows
        outb(COM1, 0x01); // divisor 1: 115200 baud
        outb(COM1 + 1, 0x00);
        outb(COM1 + 3, 0x03); // 8 bits, no parity, one stop bit
        outb(COM1 + 2, 0xc7); // FIFOs on and cleared, 14-octet threshold
        outb(COM1 + 4, 0x03); // DTR, RTS
        Serial(())
    }

    fn put(&mut self, b: u8) {
        // Wait for the transmit holding register to be empty (LSR bit 5).
        while inb(COM1 + 5) & 0x20 == 0 {}
        outb(COM1, b);
    }
}

impl fmt::Write for Serial {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if b == b'\n' {
                self.put(b'\r');
            }
            self.put(b);
        }
        Ok(())
    }
}
