//! The two 8259A interrupt controllers of the PC (master at 0x20, slave
//! at 0xa0), remapped to vectors 0x20-0x2f with every line masked but the
//! one the idle loop waits on (and the cascade line for a slave IRQ).
//! Intel 8259A data sheet: ICW1-ICW4, OCW1.

use super::cpu::outb;

/// Remaps both controllers and unmasks `irq` (0-15) and the PIT's IRQ 0.
pub fn init(irq: u8) {
    for (cmd, data, offset, wiring) in
        [(0x20u16, 0x21u16, 0x20u8, 0x04u8), (0xa0, 0xa1, 0x28, 0x02)]
    {
        outb(cmd, 0x11); // ICW1: edge/level per ELCR, cascade, ICW4 follows
        outb(data, offset); // ICW2: vector offset
        outb(data, wiring); // ICW3: slave on IRQ2 / slave identity 2
        outb(data, 0x01); // ICW4: 8086 mode
    }
    // IRQ 0, the PIT's periodic tick, bounds every halt.
    let (mut master, mut slave) = (0xfeu8, 0xffu8);
    if irq < 8 {
        master &= !(1 << irq);
    } else if irq < 16 {
        master &= !(1 << 2);
        slave &= !(1 << (irq - 8));
    }
    outb(0x21, master); // OCW1: masks
    outb(0xa1, slave);
}
