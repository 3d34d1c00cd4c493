//! What only the freestanding image has (compiled with `--cfg
//! wisec_bare_image`): the Multiboot header and the 32-bit entry that
//! switches to long mode, the exception and interrupt stubs, the memory routines the
//! compiler calls (`memcpy`, `memmove`, `memset`, `memcmp`, `bcmp`), the
//! Rust entry point and the panic handler.
//!
//! Boot (Multiboot specification 0.6.96, 3.2: 32-bit protected mode,
//! paging off, EAX = 0x2BADB002, EBX = the information structure):
//! clear .bss; identity-map the first 4 GiB with 2 MiB pages (the fourth
//! GiB, where PCI devices sit, uncached); enable PAE, EFER.LME and paging
//! (Intel SDM vol. 3A, 9.8.5); load a GDT with one 64-bit code and one
//! data segment; jump to 64-bit code; enable SSE (CR0.EM off, CR0.MP,
//! CR4.OSFXSR, CR4.OSXMMEXCPT; 13.1.3), and XSAVE with the AVX state when
//! CPUID offers them; call `wisec_bare_main(magic, info)` on a 256 KiB
//! stack. Interrupts are enabled only inside the idle loop's `STI; HLT`,
//! with the stack pointer moved past the 128-octet red zone of the System
//! V ABI (which the host target's code uses), so an interrupt frame never
//! overwrites live data; the interrupt stub returns with IF clear. A CPU
//! exception ends the program.

use super::cpu::{self, Gate};
use super::serial::Serial;
use core::fmt::Write;

core::arch::global_asm!(
    r#"
    .section .multiboot, "a"
    .balign 4
    .long 0x1BADB002
    .long 0
    .long -0x1BADB002

    .section .text.boot32, "ax"
    .code32
    .global _start32
_start32:
    cli
    cld
    movl %eax, %ebp
    movl %ebx, %esi
    movl $__bss_start, %edi
    movl $__bss_end, %ecx
    subl %edi, %ecx
    xorl %eax, %eax
    rep stosb
    movl $wisec_pdpt, %eax
    orl $3, %eax
    movl %eax, wisec_pml4
    movl $wisec_pd, %eax
    orl $3, %eax
    movl $wisec_pdpt, %edi
    movl $4, %ecx
1:
    movl %eax, (%edi)
    addl $4096, %eax
    addl $8, %edi
    loop 1b
    movl $wisec_pd, %edi
    xorl %ecx, %ecx
2:
    movl %ecx, %eax
    shll $21, %eax
    orl $0x83, %eax
    cmpl $1536, %ecx
    jb 3f
    orl $0x18, %eax
3:
    movl %eax, (%edi,%ecx,8)
    incl %ecx
    cmpl $2048, %ecx
    jb 2b
    movl %cr4, %eax
    orl $0x20, %eax
    movl %eax, %cr4
    movl $wisec_pml4, %eax
    movl %eax, %cr3
    movl $0xC0000080, %ecx
    rdmsr
    orl $0x100, %eax
    wrmsr
    movl %cr0, %eax
    orl $0x80000001, %eax
    movl %eax, %cr0
    lgdt wisec_gdt_ptr
    ljmp $0x08, $wisec_start64

    .code64
wisec_start64:
    movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    xorw %ax, %ax
    movw %ax, %fs
    movw %ax, %gs
    movl %ebp, %r12d
    movl %esi, %r13d
    leaq wisec_stack_top(%rip), %rsp
    movq %cr0, %rax
    andq $~4, %rax
    orq $2, %rax
    movq %rax, %cr0
    movq %cr4, %rax
    orq $0x600, %rax
    movq %rax, %cr4
    movl $1, %eax
    cpuid
    btl $26, %ecx
    jnc 4f
    movq %cr4, %rax
    orq $0x40000, %rax
    movq %rax, %cr4
    movl $3, %eax
    btl $28, %ecx
    jnc 5f
    orl $4, %eax
5:
    xorl %edx, %edx
    xorl %ecx, %ecx
    xsetbv
4:
    movl %r12d, %edi
    movl %r13d, %esi
    call wisec_bare_main
6:
    cli
    hlt
    jmp 6b

    .macro WISEC_VEC n, err
wisec_vec_\n:
    .if \err == 0
    pushq $0
    .endif
    pushq $\n
    jmp wisec_fault_common
    .endm
    WISEC_VEC 0, 0
    WISEC_VEC 1, 0
    WISEC_VEC 2, 0
    WISEC_VEC 3, 0
    WISEC_VEC 4, 0
    WISEC_VEC 5, 0
    WISEC_VEC 6, 0
    WISEC_VEC 7, 0
    WISEC_VEC 8, 1
    WISEC_VEC 9, 0
    WISEC_VEC 10, 1
    WISEC_VEC 11, 1
    WISEC_VEC 12, 1
    WISEC_VEC 13, 1
    WISEC_VEC 14, 1
    WISEC_VEC 15, 0
    WISEC_VEC 16, 0
    WISEC_VEC 17, 1
    WISEC_VEC 18, 0
    WISEC_VEC 19, 0
    WISEC_VEC 20, 0
    WISEC_VEC 21, 1
    WISEC_VEC 22, 0
    WISEC_VEC 23, 0
    WISEC_VEC 24, 0
    WISEC_VEC 25, 0
    WISEC_VEC 26, 0
    WISEC_VEC 27, 0
    WISEC_VEC 28, 0
    WISEC_VEC 29, 1
    WISEC_VEC 30, 1
    WISEC_VEC 31, 0
    // The PIC's sixteen vectors (0x20-0x2f): end of interrupt to both
    // controllers, and back with IF clear in the saved RFLAGS, so the code
    // after the idle loop's HLT runs with interrupts off again (the NIC's
    // level-triggered line stays asserted until the driver reads ICR).
wisec_irq:
    pushq %rax
    movb $0x20, %al
    outb %al, $0xa0
    outb %al, $0x20
    andq $~0x200, 24(%rsp)
    popq %rax
    iretq
wisec_fault_common:
    movq (%rsp), %rdi
    movq 8(%rsp), %rsi
    movq 16(%rsp), %rdx
    movq %cr2, %rcx
    andq $-16, %rsp
    call wisec_bare_fault
7:
    cli
    hlt
    jmp 7b

    .section .text.wisec_mem, "ax"
    .global memcpy
memcpy:
    movq %rdi, %rax
    movq %rdx, %rcx
    rep movsb
    ret
    .global memmove
memmove:
    movq %rdi, %rax
    movq %rdx, %rcx
    cmpq %rsi, %rdi
    jbe 1f
    leaq -1(%rsi,%rdx), %rsi
    leaq -1(%rdi,%rdx), %rdi
    std
    rep movsb
    cld
    ret
1:
    rep movsb
    ret
    .global memset
memset:
    movq %rdi, %r9
    movl %esi, %eax
    movq %rdx, %rcx
    rep stosb
    movq %r9, %rax
    ret
    .global memcmp
    .global bcmp
memcmp:
bcmp:
    xorl %eax, %eax
    testq %rdx, %rdx
    jz 2f
1:
    movzbl (%rdi), %eax
    movzbl (%rsi), %ecx
    subl %ecx, %eax
    jnz 2f
    incq %rdi
    incq %rsi
    decq %rdx
    jnz 1b
2:
    ret

    .section .rodata.wisec_vectors, "a"
    .balign 8
    .global wisec_bare_vectors
wisec_bare_vectors:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .quad wisec_vec_\n
    .endr
    .rept 16
    .quad wisec_irq
    .endr

    .section .data.wisec_gdt, "aw"
    .balign 16
wisec_gdt:
    .quad 0
    .quad 0x00AF9A000000FFFF
    .quad 0x00CF92000000FFFF
wisec_gdt_ptr:
    .word wisec_gdt_ptr - wisec_gdt - 1
    .long wisec_gdt

    .section .bss.wisec_boot, "aw", @nobits
    .balign 4096
wisec_pml4:
    .skip 4096
wisec_pdpt:
    .skip 4096
wisec_pd:
    .skip 16384
    .balign 16
wisec_stack:
    .skip 262144
wisec_stack_top:
"#,
    options(att_syntax)
);

extern "C" {
    static wisec_bare_vectors: [u64; 48];
}

static mut IDT: [Gate; 48] = [Gate::ZERO; 48];

/// Installs gates for the 32 exception vectors, so that a fault is
/// reported on the console instead of resetting the machine, and for the
/// PIC's 16 interrupt vectors (the idle loop's wake-up).
pub fn install_idt() {
    // SAFETY: `wisec_bare_vectors` is the table of 48 stub addresses the
    // assembly above defines, read-only. `IDT` is written here once, at
    // boot, before it is loaded and before anything else could read it;
    // it is never written again, so the shared reference handed to LIDT
    // stays valid and unaliased by writes for the rest of the program.
    let table = &raw mut IDT;
    let idt: &'static [Gate; 48] = unsafe {
        let vectors: &[u64; 48] = &wisec_bare_vectors;
        for (i, v) in vectors.iter().enumerate() {
            (*table)[i] = Gate::new(*v);
        }
        &*table
    };
    cpu::load_idt(idt);
}

const EXCEPTIONS: [&str; 21] = [
    "divide error",
    "debug",
    "NMI",
    "breakpoint",
    "overflow",
    "bound range",
    "invalid opcode",
    "device not available",
    "double fault",
    "coprocessor segment overrun",
    "invalid TSS",
    "segment not present",
    "stack fault",
    "general protection",
    "page fault",
    "reserved",
    "x87 floating point",
    "alignment check",
    "machine check",
    "SIMD floating point",
    "virtualisation",
];

/// Called by the exception stubs: reports the fault and stops.
#[no_mangle]
extern "C" fn wisec_bare_fault(vector: u64, error: u64, rip: u64, cr2: u64) -> ! {
    let mut con = Serial::init();
    let name = EXCEPTIONS
        .get(vector as usize)
        .copied()
        .unwrap_or("exception");
    let _ = writeln!(
        con,
        "fatal: CPU exception {vector} ({name}), error code {error:#x}, rip {rip:#x}, cr2 {cr2:#x}"
    );
    cpu::exit(4)
}

/// The Rust entry point, called by the boot code in 64-bit mode.
#[no_mangle]
extern "C" fn wisec_bare_main(magic: u32, info: u32) -> ! {
    super::run(magic, info)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut con = Serial::init();
    let _ = writeln!(con, "fatal: panic: {info}");
    cpu::exit(3)
}
