//! Who provides each undefined symbol of a module, and seed 000's groups
//! (Figure 6 of its driver study):
//!
//! - **#KSC**, kernel service calls: undefined symbols the core kernel
//!   (vmlinux) exports;
//! - **#EMC**, external module calls: undefined symbols another loadable
//!   module exports, counted per module;
//! - **#EDO**, data objects: the module's own global data symbols (not
//!   functions), by section (.data, .rodata, .bss,
//!   .gnu.linkonce.this_module…).
//!
//! The modules named in `depends=` are read first (modpost wrote that list
//! from the providers of the module's undefined symbols, so the exports in
//! their own `__ksymtab` are the ground truth), then the kernel's export
//! sources ([`Kernel`]).

use super::kernel::{Kernel, Provider};
use super::module::{Kind, Module};
use serde::Serialize;
use std::collections::HashMap;

/// An undefined symbol with what provides it.
#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    /// Its name.
    pub name: String,
    /// `vmlinux`, a module name, or `null` when nothing provides it.
    pub provider: Option<String>,
    /// `KSC`, `EMC`, or `null` when unresolved.
    pub group: Option<Group>,
    /// Function or data, when known.
    pub kind: Option<Kind>,
    /// Exported with `EXPORT_SYMBOL_GPL`, when known.
    pub gpl_only: Option<bool>,
    /// For core kernel services: the service area its name belongs to.
    pub area: Option<&'static str>,
    /// A weak reference: the module loads without it.
    pub weak: bool,
}

/// Seed 000's groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Group {
    /// Kernel service calls: provided by the core kernel.
    #[serde(rename = "KSC")]
    Ksc,
    /// External module calls: provided by another module.
    #[serde(rename = "EMC")]
    Emc,
    /// The module's own global data objects.
    #[serde(rename = "EDO")]
    Edo,
}

impl Group {
    /// `#KSC`, `#EMC`, `#EDO`.
    pub fn tag(self) -> &'static str {
        match self {
            Group::Ksc => "#KSC",
            Group::Emc => "#EMC",
            Group::Edo => "#EDO",
        }
    }
}

/// The provider name of the core kernel.
pub const VMLINUX: &str = "vmlinux";

/// Classifies every undefined symbol of `module` against `kernel`.
/// Dependencies that cannot be found or read are reported in `notes`.
pub fn resolve(module: &Module, kernel: &Kernel, notes: &mut Vec<String>) -> Vec<Resolved> {
    // Exports of the modules in depends=, read from their own files.
    let mut from_deps: HashMap<String, (String, bool, Option<Kind>)> = HashMap::new();
    for dep in module.modinfo.depends() {
        match kernel.load_module(&dep) {
            Ok(Some(m)) => {
                for e in m.exports {
                    from_deps
                        .entry(e.name)
                        .or_insert((m.name.clone(), e.gpl_only, e.kind));
                }
            }
            Ok(None) => {
                if kernel.dir.is_some() {
                    notes.push(format!(
                        "depends on {dep}, which is not in the kernel directory"
                    ));
                }
            }
            Err(e) => notes.push(format!("depends on {dep}, which cannot be read: {e:#}")),
        }
    }
    module
        .undefined
        .iter()
        .map(|u| {
            let (provider, gpl_only, kind) = if let Some((m, gpl, kind)) = from_deps.get(&u.name) {
                (Some(Provider::Module(m.clone())), Some(*gpl), *kind)
            } else if let Some(e) = kernel.export(&u.name) {
                (Some(e.provider.clone()), e.gpl_only, e.kind)
            } else {
                (None, None, None)
            };
            let (provider, group, area) = match provider {
                Some(Provider::Kernel) => (
                    Some(VMLINUX.to_string()),
                    Some(Group::Ksc),
                    Some(area(&u.name)),
                ),
                Some(Provider::Module(m)) => (Some(m), Some(Group::Emc), None),
                None => (None, None, None),
            };
            Resolved {
                name: u.name.clone(),
                provider,
                group,
                kind,
                gpl_only,
                area,
                weak: u.weak,
            }
        })
        .collect()
}

/// Service areas of the core kernel, told from the symbol's name. Seed 000
/// drew print, skbuff, DMA and LED as boxes of their own in Figure 6; they
/// are part of the core kernel (then and now), so here they are areas of
/// #KSC. The first matching area wins; `*` in a pattern stands for any
/// run of characters.
pub const AREAS: &[(&str, &[&str])] = &[
    (
        "toolchain",
        &[
            "__fentry__",
            "__x86_indirect_thunk_*",
            "__x86_return_thunk",
            "__stack_chk_fail",
            "__stack_chk_guard",
            "fortify_panic",
            "__fortify_panic",
            "__preempt_count",
            "__SCT__*",
            "__SCK__*",
            "__ubsan_*",
            "__asan_*",
            "__kasan_*",
            "__tsan_*",
            "__sanitizer_*",
            "__gnu_mcount_nc",
            "_mcount",
            "mcount",
            "__aeabi_*",
            "__udivdi3",
            "__divdi3",
            "__umoddi3",
            "__moddi3",
            "__list_add_valid*",
            "__list_del_entry_valid*",
            "__tracepoint_*",
            "__traceiter_*",
            "trace_event_*",
            "trace_raw_output_*",
            "perf_trace_*",
            "event_triggers_call",
            "trace_handle_return",
            "trace_print_*",
            "__this_cpu_preempt_check",
            "this_cpu_off",
            "__per_cpu_offset",
            "cpu_number",
            "pcpu_hot",
            "current_task",
            "bpf_trace_run*",
            "__trace_trigger_soft_disabled",
            "do_trace_*",
            "dump_stack",
        ],
    ),
    (
        "print",
        &[
            "printk",
            "_printk",
            "vprintk*",
            "_dev_*",
            "dev_printk*",
            "dev_err_probe",
            "__dynamic_*",
            "__warn_printk",
            "net_ratelimit",
            "printk_ratelimit",
            "__printk_ratelimit",
            "___ratelimit",
            "print_hex_dump*",
            "netdev_err",
            "netdev_warn",
            "netdev_info",
            "netdev_notice",
            "netdev_crit",
            "netdev_printk",
            "wiphy_*_printk",
        ],
    ),
    ("skbuff", &["*skb*"]),
    ("dma", &["dma_*", "dmam_*", "__dma_*"]),
    ("led", &["led_*", "devm_led_*", "*_led_*"]),
    (
        "memory",
        &[
            "kmalloc*",
            "__kmalloc*",
            "kfree*",
            "kvfree*",
            "kvmalloc*",
            "kzalloc*",
            "kcalloc*",
            "krealloc*",
            "kmemdup*",
            "kstrdup*",
            "kstrndup",
            "devm_k*",
            "vmalloc*",
            "vzalloc*",
            "vfree",
            "__vmalloc*",
            "kmem_cache_*",
            "page_offset_base",
            "vmemmap_base",
            "phys_base",
            "is_vmalloc_addr",
            "__get_free_pages",
            "get_zeroed_page",
            "free_pages",
            "__free_pages",
            "alloc_pages*",
            "__alloc_pages*",
            "__page_frag_*",
            "page_frag_*",
            "mem_map",
            "high_memory",
            "__phys_addr",
            "__virt_addr_valid",
            "__alloc_percpu*",
            "free_percpu",
        ],
    ),
    (
        "locking",
        &[
            "_raw_spin_*",
            "_raw_read_*",
            "_raw_write_*",
            "mutex_*",
            "__mutex_init",
            "complete",
            "complete_all",
            "wait_for_completion*",
            "__init_swait_queue_head",
            "__init_waitqueue_head",
            "__wake_up*",
            "prepare_to_wait*",
            "finish_wait",
            "init_wait_entry",
            "autoremove_wake_function",
            "__rcu_read_*",
            "synchronize_rcu*",
            "call_rcu*",
            "rcu_barrier*",
            "__local_bh_enable_ip",
            "local_bh_*",
            "down_*",
            "up_*",
            "__init_rwsem",
            "atomic_*",
            "refcount_*",
        ],
    ),
    (
        "time",
        &[
            "jiffies*",
            "__msecs_to_jiffies",
            "__usecs_to_jiffies",
            "msecs_to_jiffies",
            "msleep*",
            "usleep_range*",
            "__udelay",
            "__const_udelay",
            "__ndelay",
            "init_timer_key",
            "mod_timer*",
            "add_timer*",
            "del_timer*",
            "timer_delete*",
            "timer_shutdown*",
            "round_jiffies*",
            "ktime_get*",
            "schedule_timeout*",
            "hrtimer_*",
            "ns_to_timespec64",
        ],
    ),
    (
        "scheduling",
        &[
            "queue_work_on",
            "queue_delayed_work_on",
            "mod_delayed_work_on",
            "cancel_*work*",
            "flush_work*",
            "flush_delayed_work",
            "delayed_work_timer_fn",
            "system_*wq",
            "alloc_workqueue",
            "destroy_workqueue",
            "tasklet_*",
            "__tasklet_*",
            "schedule",
            "kthread_*",
            "wake_up_process",
            "__cond_resched*",
            "_cond_resched",
            "__cpu_online_mask",
            "__cpu_possible_mask",
            "__num_online_cpus",
            "nr_cpu_ids",
        ],
    ),
    (
        "irq",
        &[
            "request_threaded_irq",
            "request_any_context_irq",
            "free_irq",
            "enable_irq",
            "disable_irq*",
            "synchronize_irq",
            "devm_request_*irq",
        ],
    ),
    (
        "firmware",
        &[
            "request_firmware*",
            "release_firmware",
            "firmware_request_*",
        ],
    ),
    ("pci", &["pci_*", "__pci_*", "pcim_*", "pcie_*"]),
    (
        "io",
        &["ioread*", "iowrite*", "ioremap*", "iounmap", "pci_iomap*"],
    ),
    (
        "device",
        &[
            "dev_driver_string",
            "dev_set_name",
            "device_*",
            "put_device",
            "get_device",
            "devm_*",
            "debugfs_*",
            "seq_*",
            "single_open",
            "single_release",
            "sysfs_*",
            "dmi_*",
            "nvmem_*",
            "hwrng_*",
            "platform_*",
            "driver_*",
            "kobject_*",
            "simple_read_from_buffer",
            "simple_open",
            "default_llseek",
            "capable",
            "class_*",
            "__class_*",
            "dev_coredump*",
            "acpi_*",
            "is_acpi_*",
            "efi",
        ],
    ),
    (
        "module",
        &[
            "param_ops_*",
            "param_array_ops",
            "param_get_*",
            "param_set_*",
            "kernel_param_*",
            "try_module_get",
            "module_put",
            "__module_get",
            "__request_module",
        ],
    ),
    (
        "net",
        &[
            "netif_*",
            "__netif_*",
            "napi_*",
            "__napi_*",
            "netdev_*",
            "*netdevice*",
            "alloc_netdev*",
            "free_netdev",
            "init_dummy_netdev",
            "__dev_get_by_*",
            "dev_get_by_*",
            "__dev_queue_xmit",
            "dev_queue_xmit*",
            "__dev_change_net_namespace",
            "dev_close",
            "dev_open",
            "dev_alloc_name",
            "dev_addr_*",
            "dev_fetch_sw_netstats",
            "__hw_addr_*",
            "eth_*",
            "ether_*",
            "ethtool_*",
            "rtnl_*",
            "nla_*",
            "__nla_*",
            "nlmsg_*",
            "genl*",
            "netlink_*",
            "*inet*addr_notifier",
            "inet_*",
            "sock_*",
            "__sock_*",
            "*_pernet_*",
            "*net_ns*",
            "__put_net",
            "init_net",
            "synchronize_net",
            "tso_*",
            "csum_*",
            "iwe_stream_*",
            "wireless_*",
        ],
    ),
    (
        "crypto",
        &[
            "crypto_*",
            "__crypto_*",
            "fips_enabled",
            "verify_pkcs7_signature",
            "key_*",
            "keyring_*",
        ],
    ),
    (
        "library",
        &[
            "str*",
            "mem*",
            "snprintf",
            "scnprintf",
            "sprintf",
            "vsnprintf",
            "vscnprintf",
            "sscanf",
            "kstrto*",
            "simple_strto*",
            "int_sqrt*",
            "byte_rev_table",
            "__sw_hweight*",
            "crc*",
            "bitrev*",
            "hex_*",
            "_ctype",
            "sort",
            "__bitmap_*",
            "bitmap_*",
            "_find_*bit*",
            "find_*bit*",
            "get_random_*",
            "random_*",
            "sized_strscpy",
            "kasprintf",
            "kvasprintf",
            "idr_*",
            "ida_*",
            "rb_*",
            "rhashtable_*",
            "rht_*",
            "__rht_*",
            "rhltable_*",
            "bsearch",
            "gcd",
            "_bcd2bin",
            "_bin2bcd",
            "sg_*",
            "__sg_*",
        ],
    ),
];

/// The core kernel service area of `name` ([`AREAS`]), `other` when none
/// matches.
pub fn area(name: &str) -> &'static str {
    AREAS
        .iter()
        .find(|(_, pats)| pats.iter().any(|p| matches(p, name)))
        .map(|(a, _)| *a)
        .unwrap_or("other")
}

/// Whether `name` matches `pattern`, where each `*` stands for any run of
/// characters.
fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No '*': the whole name.
        return rest.is_empty();
    };
    for p in middle {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("*skb*", "__dev_kfree_skb_any"));
        assert!(matches("dma_*", "dma_alloc_attrs"));
        assert!(!matches("dma_*", "dmam_alloc_attrs"));
        assert!(matches("complete", "complete"));
        assert!(!matches("complete", "completed"));
        assert!(matches("*_end", "the_end"));
        assert!(matches("cancel_*work*", "cancel_delayed_work_sync"));
        assert!(matches("system_*wq", "system_wq"));
        assert!(!matches("system_*wq", "system_wqx"));
        assert!(matches("a*a", "aa"));
        assert!(!matches("a*a", "a"));
    }

    #[test]
    fn areas_of_known_services() {
        for (name, want) in [
            ("_printk", "print"),
            ("_dev_err", "print"),
            ("__netdev_alloc_skb", "skbuff"),
            ("consume_skb", "skbuff"),
            ("dma_map_page_attrs", "dma"),
            ("led_classdev_register_ext", "led"),
            ("__kmalloc", "memory"),
            ("_raw_spin_lock_irqsave", "locking"),
            ("msleep", "time"),
            ("queue_work_on", "scheduling"),
            ("request_threaded_irq", "irq"),
            ("request_firmware_nowait", "firmware"),
            ("__fentry__", "toolchain"),
            ("__x86_indirect_thunk_rax", "toolchain"),
            ("strscpy", "library"),
            ("cancel_work_sync", "scheduling"),
            ("param_ops_int", "module"),
            ("netif_rx", "net"),
            ("crypto_aead_encrypt", "crypto"),
            ("netdev_err", "print"),
            ("system_wq", "scheduling"),
            ("some_new_service", "other"),
        ] {
            assert_eq!(area(name), want, "{name}");
        }
    }
}
