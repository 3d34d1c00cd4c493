//! Scenario files: a good file with every section, each kind of bad file
//! with the file, line and field in the message, and `--set` overrides.

use wisec_lab::scenario::{self, Scenario, ScenarioError, SuiteName, TrafficKind};

const FULL: &str = r#"
name = "full"
description = "every section"
experiment = "saturation"
seed = 7
trials = 3

[params]
stations = [1, 2]

[phy]
standard = "g"
rate = 54.0
non_erp = true
protection = "cts-to-self"

[mac]
rts_threshold = 500
short_retry_limit = 7

[security]
suite = "ccmp128"
akm = "psk"
passphrase = "correct horse"
ssid = "lab"
pmf = true
discosec = "fast"

[[profiles]]
name = "router"
clock_mhz = 200.0
aes_instructions = false
arch_factor = 4.0

[[nodes]]
name = "ap"
role = "ap"
profile = "router"

[[nodes]]
name = "sta"
role = "sta"
count = 3
profile = "cube"

[[nodes]]
name = "server"
role = "host"

[[nodes]]
name = "mallory"
role = "attacker"

[topology]
hidden = [["sta1", "sta3"]]
loss = [{ from = "sta2", to = "ap", p = 0.1, both_ways = true }]
wired = [{ a = "ap", b = "server", rate_mbps = 100.0, delay_ms = 2.0 }]

[[traffic]]
kind = "tcp-bulk"
from = "server"
to = "sta1"
bytes = 1024000

[[traffic]]
kind = "ping"
from = "sta2"
to = "server"

[[attacks]]
kind = "deauth"
from = "mallory"
target = "sta1"
rate_per_s = 10.0
start = 1.0

[output]
pcap = "all"
plots = false
"#;

fn bad(text: &str) -> ScenarioError {
    Scenario::parse("bad.toml", text).expect_err("the file should be rejected")
}

/// The message names the file, the line and the field.
fn assert_at(e: &ScenarioError, line: usize, field: &str, words: &str) {
    let msg = e.to_string();
    assert_eq!(e.position.map(|p| p.0), Some(line), "{msg}");
    assert_eq!(e.field.as_deref(), Some(field), "{msg}");
    assert!(msg.starts_with(&format!("bad.toml:{line}:")), "{msg}");
    assert!(msg.contains(field), "{msg}");
    assert!(msg.contains(words), "{msg}");
}

const HEAD: &str = "name = \"x\"\nexperiment = \"saturation\"\n";

#[test]
fn a_file_with_every_section_parses() {
    let s = Scenario::parse("full.toml", FULL).unwrap();
    assert_eq!(s.seed, 7);
    assert_eq!(s.trials, Some(3));
    assert_eq!(
        s.security.as_ref().unwrap().get_ref().suite,
        SuiteName::Ccmp128
    );
    assert_eq!(
        s.node_names(),
        ["ap", "sta1", "sta2", "sta3", "server", "mallory"]
    );
    assert_eq!(s.traffic[0].get_ref().kind, TrafficKind::TcpBulk);
    assert_eq!(s.output.pcap, scenario::CaptureMode::All);
    // saturation builds its own nodes: the fields of [phy] and [mac] and
    // the sections it does not read are refused when the experiment is
    // created, at their line.
    let e = s.create_experiment().err().unwrap();
    assert!(
        e.to_string().starts_with("full.toml:14:1: phy.non_erp:"),
        "{e}"
    );
    assert!(e.to_string().contains("does not read this field"), "{e}");
    let mut s = s;
    if let Some(p) = s.phy.as_mut() {
        let p = p.get_mut();
        p.non_erp = false;
        p.protection = None;
    }
    let e = s.create_experiment().err().unwrap();
    assert!(
        e.to_string()
            .starts_with("full.toml:18:1: mac.rts_threshold:"),
        "{e}"
    );
    if let Some(m) = s.mac.as_mut() {
        m.get_mut().rts_threshold = None;
    }
    let e = s.create_experiment().err().unwrap();
    assert!(
        e.to_string().starts_with("full.toml:21:1: security:"),
        "{e}"
    );
    assert!(e.to_string().contains("does not read this section"), "{e}");
}

#[test]
fn the_builtin_scenarios_parse_and_create_their_experiment() {
    for b in scenario::BUILTIN {
        let s = Scenario::parse(b.path, b.text).unwrap();
        assert_eq!(s.name, b.name);
        let e = s.create_experiment().unwrap();
        assert_eq!(e.name(), s.experiment.get_ref());
        assert!(!e.plan().is_empty());
        // The copy under scenarios/ is the one compiled in.
        let on_disk = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(b.path),
        )
        .unwrap();
        assert_eq!(on_disk, b.text);
    }
}

#[test]
fn syntax_errors_give_line_and_column() {
    let e = bad(&format!("{HEAD}[phy\nstandard = \"b\"\n"));
    assert_eq!(e.position, Some((3, 5)), "{e}");
    assert!(e.to_string().starts_with("bad.toml:3:5: "), "{e}");
}

#[test]
fn unknown_fields_are_named_with_the_valid_ones() {
    let e = bad(&format!("{HEAD}[phy]\nstandard = \"b\"\nrat = 2\n"));
    assert_at(
        &e,
        5,
        "phy.rat",
        "unknown field `rat`, expected one of `standard`, `rate`",
    );
    let e = bad(&format!("{HEAD}colour = 1\n"));
    assert_at(
        &e,
        3,
        "colour",
        "expected one of `name`, `description`, `experiment`",
    );
    let e = bad(&format!(
        "{HEAD}[[nodes]]\nname = \"a\"\nrole = \"ap\"\n\n[[nodes]]\nname = \"b\"\nrole = \"sta\"\nprofle = \"cube\"\n"
    ));
    assert_at(&e, 10, "nodes[1].profle", "unknown field `profle`");
}

#[test]
fn wrong_types_bad_variants_and_missing_fields() {
    let e = bad(&format!("{HEAD}seed = \"abc\"\n"));
    assert_at(&e, 3, "seed", "invalid type: string \"abc\", expected u64");
    let e = bad(&format!("{HEAD}[phy]\nstandard = \"n\"\n"));
    assert_at(
        &e,
        4,
        "phy.standard",
        "unknown variant `n`, expected one of `b`, `g`, `a`",
    );
    let e = bad(&format!("{HEAD}[security]\nsuite = \"wep256\"\n"));
    assert_at(&e, 4, "security.suite", "unknown variant `wep256`");
    let e = bad("experiment = \"saturation\"\n");
    assert_eq!(e.field.as_deref(), Some("name"), "{e}");
    assert!(e.to_string().contains("missing field `name`"), "{e}");
    let e = bad(&format!(
        "{HEAD}[[traffic]]\nkind = \"ping\"\nfrom = \"a\"\n"
    ));
    assert_eq!(e.field.as_deref(), Some("traffic[0].to"), "{e}");
}

#[test]
fn meaning_errors_point_at_the_field() {
    let e = bad(&format!("{HEAD}[phy]\nstandard = \"b\"\nrate = 54.0\n"));
    assert_at(&e, 5, "phy.rate", "54 Mb/s is not a rate of 802.11b");
    let e = bad("name = \"x\"\nexperiment = \"nosuch\"\n");
    assert_at(
        &e,
        2,
        "experiment",
        "no experiment `nosuch` (there is: saturation",
    );
    let e = bad(&format!(
        "{HEAD}[[nodes]]\nname = \"a\"\nrole = \"ap\"\nprofile = \"toaster\"\n"
    ));
    assert_at(
        &e,
        6,
        "nodes[0].profile",
        "no device profile `toaster` (there is: host, cube",
    );
    let e = bad(&format!(
        "{HEAD}[[nodes]]\nname = \"a\"\nrole = \"ap\"\n[[traffic]]\nkind = \"ping\"\nfrom = \"a\"\nto = \"b\"\n"
    ));
    assert_at(&e, 6, "traffic[0]", "no node `b` (nodes: a)");
    let e = bad(&format!(
        "{HEAD}[[nodes]]\nname = \"a\"\nrole = \"ap\"\n[[traffic]]\nkind = \"udp-cbr\"\nfrom = \"a\"\nto = \"a\"\n"
    ));
    assert_at(&e, 6, "traffic[0].rate_mbps", "needs `rate_mbps`");
    let e = bad(&format!(
        "{HEAD}[security]\nsuite = \"ccmp128\"\npassphrase = \"short\"\n"
    ));
    assert_at(&e, 5, "security.passphrase", "8 to 63");
    let e = bad(&format!(
        "{HEAD}[[nodes]]\nname = \"a\"\nrole = \"sta\"\n[[attacks]]\nkind = \"deauth\"\nfrom = \"a\"\n"
    ));
    assert_at(
        &e,
        8,
        "attacks[0].from",
        "not a node with role = \"attacker\"",
    );
    let e = bad(&format!(
        "{HEAD}[topology]\nloss = [{{ from = \"a\", to = \"a\", p = 2.0 }}]\n[[nodes]]\nname = \"a\"\nrole = \"ap\"\n"
    ));
    assert_eq!(e.field.as_deref(), Some("topology.loss[0].p"), "{e}");
    let e = bad(&format!("{HEAD}trials = 0\n"));
    assert_at(&e, 3, "trials", "1 to 10000");
}

#[test]
fn experiment_parameter_errors_are_located_in_the_file() {
    let s = Scenario::parse(
        "bad.toml",
        &format!("{HEAD}[params]\nseconds = 1.0\nstations = [0, 5]\n"),
    )
    .unwrap();
    let e = s.create_experiment().err().unwrap();
    assert_at(&e, 5, "params.stations", "station counts from 1 to 1000");
    let s = Scenario::parse("bad.toml", &format!("{HEAD}[params]\nwidth = 3\n")).unwrap();
    let e = s.create_experiment().err().unwrap();
    assert!(
        e.to_string().contains("saturation has no such parameter"),
        "{e}"
    );
    assert_eq!(e.position.map(|p| p.0), Some(4), "{e}");
}

#[test]
fn overrides_set_fields_and_are_checked() {
    let b = scenario::builtin("saturation").unwrap();
    let s = Scenario::parse(b.path, b.text).unwrap();
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let t = s
        .with_overrides(&[
            o("phy.standard", "g"),
            o("phy.rate", "24"),
            o("params.stations", "[3, 4]"),
            o("trials", "2"),
            o("seed", "99"),
        ])
        .unwrap();
    assert_eq!(t.seed, 99);
    assert_eq!(t.trials, Some(2));
    assert_eq!(t.phy.as_ref().unwrap().get_ref().rate, Some(24.0));
    let exp = t.create_experiment().unwrap();
    // Two station counts × two access methods × two trials.
    assert_eq!(exp.plan().len(), 8);
    assert!(t.to_toml().contains("stations = [3, 4]"), "{}", t.to_toml());

    let e = s.with_overrides(&[o("phy.bogus", "1")]).unwrap_err();
    assert!(e.to_string().contains("--set phy.bogus=1"), "{e}");
    assert!(e.to_string().contains("unknown field `bogus`"), "{e}");
    let e = s.with_overrides(&[o("phy.rate", "fast")]).unwrap_err();
    assert!(e.to_string().contains("phy.rate: invalid type"), "{e}");
    let e = s.with_overrides(&[o("nodes.3.name", "x")]).unwrap_err();
    assert!(e.to_string().contains("past the list"), "{e}");
    let e = s.with_overrides(&[o("seed.x", "1")]).unwrap_err();
    assert!(e.to_string().contains("not a table"), "{e}");
    let e = s.with_overrides(&[o("params.seconds", "-1")]).unwrap();
    let e = e.create_experiment().err().unwrap();
    assert_eq!(e.field.as_deref(), Some("params.seconds"), "{e}");
}

#[test]
fn set_values_are_toml_or_else_strings() {
    assert_eq!(scenario::parse_value("3"), toml::Value::Integer(3));
    assert_eq!(scenario::parse_value("g"), toml::Value::String("g".into()));
    assert_eq!(
        scenario::parse_value("\"g\""),
        toml::Value::String("g".into())
    );
    assert!(scenario::parse_value("[1, 2]").is_array());
}

/// An unknown parameter lists every parameter with its range; a bad value
/// names the range — for every experiment.
#[test]
fn parameter_errors_list_the_parameters_and_their_ranges() {
    use wisec_lab::experiment::{create, RunOptions};
    let opts = |k: &str, v: &str| RunOptions {
        seed: 1,
        trials: None,
        quick: true,
        overrides: vec![(k.to_string(), v.to_string())],
        live: false,
    };
    for (exp, some_param, range) in [
        ("saturation", "short_retry_limit", "1 to 255 or none"),
        ("overhead", "iperf_seconds", "1 to 600"),
        ("ccm-udp", "packets", "1 to 100000"),
        ("discosec", "ampdu", "1 to 64"),
        ("attacks", "forge_rate", "1 to 5000"),
        ("congestion", "mcs", "0 to 7"),
        ("configs", "attenuation", "0 to 60"),
    ] {
        let e = create(exp, &opts("frobnicate", "1")).err().unwrap().0;
        assert!(e.starts_with("frobnicate: "), "{e}");
        assert!(e.contains(&format!("{some_param} (")), "{exp}: {e}");
        assert!(e.contains(range), "{exp}: {e}");
        let e = create(exp, &opts(some_param, "-7")).err().unwrap().0;
        assert!(e.starts_with(&format!("{some_param}: ")), "{e}");
        assert!(e.contains(range), "{exp}: {e}");
    }
}

/// The MAC settings of saturation are independent: each of the retry
/// limits and the post-collision IFS can be set alone, from `[mac]` or
/// `[params]`, and `model_assumptions` is only a preset under them.
#[test]
fn saturation_mac_settings_are_independent() {
    use wisec_lab::experiment::saturation::{CollisionIfs, Counted, Saturation};
    use wisec_lab::experiment::RunOptions;
    let sat = |text: &str| {
        let s = Scenario::parse("s.toml", &format!("{HEAD}{text}")).unwrap();
        s.create_experiment().map_err(|e| e.to_string())?;
        let o: RunOptions = s.run_options();
        Saturation::new(&o).map(|x| x.cfg).map_err(|e| e.0)
    };
    let c = sat("[mac]\nshort_retry_limit = 3\n").unwrap();
    assert_eq!(c.short_retry_limit, Some(3));
    assert_eq!(c.long_retry_limit, None);
    assert_eq!(c.collision_ifs, CollisionIfs::Difs);
    let c = sat("[mac]\neifs = true\n").unwrap();
    assert_eq!(
        (c.short_retry_limit, c.collision_ifs),
        (None, CollisionIfs::Eifs)
    );
    let c = sat("[params]\nmodel_assumptions = false\ncollision_ifs = \"difs\"\n").unwrap();
    assert_eq!(c.short_retry_limit, Some(7));
    assert_eq!(c.long_retry_limit, Some(4));
    assert_eq!(c.collision_ifs, CollisionIfs::Difs);
    let c = sat("[params]\nlong_retry_limit = \"none\"\nthroughput = \"udp\"\nudp_len = 1500\n")
        .unwrap();
    assert_eq!((c.long_retry_limit, c.ip_len), (None, 1528));
    assert_eq!(c.throughput, Counted::Udp);
    let c = sat("[phy]\nstandard = \"b\"\nbasic_rates = [2, 1]\n").unwrap();
    assert_eq!(
        c.basic_rates,
        Some(vec![wisec_lab::Rate::DSSS_1, wisec_lab::Rate::DSSS_2])
    );
    let e = sat("[phy]\nstandard = \"b\"\nbasic_rates = [6]\n").unwrap_err();
    assert!(
        e.contains("s.toml:5:") && e.contains("phy.basic_rates"),
        "{e}"
    );
    assert!(e.contains("6 Mb/s is not a rate of this PHY"), "{e}");
    let e = sat("[mac]\nlong_retry_limit = 0\n").unwrap_err();
    assert!(
        e.contains("mac.long_retry_limit") && e.contains("1 to 255"),
        "{e}"
    );
}

/// The basic rate set decides the rate of Ack, CTS and RTS (10.6.6.5.2):
/// with {1} every control frame of an 11 Mb/s exchange goes at 1 Mb/s,
/// with {1, 2} at 2 Mb/s, with {1, 2, 5.5, 11} at 11 Mb/s.
#[test]
fn basic_rates_decide_the_control_rate() {
    use wisec_lab::{PhyProfile, PhyTiming, Rate};
    for (set, want) in [
        (vec![Rate::DSSS_1], Rate::DSSS_1),
        (vec![Rate::DSSS_1, Rate::DSSS_2], Rate::DSSS_2),
        (Rate::DSSS_RATES.to_vec(), Rate::CCK_11),
    ] {
        let mut p = PhyProfile::b();
        p.basic_rates = set;
        assert_eq!(p.response_rate(Rate::CCK_11), want);
        // The CTS answering an RTS at that rate goes at the same rate.
        assert_eq!(p.response_rate(want), want);
    }
    let mut g = PhyProfile::g();
    g.basic_rates = vec![Rate::OFDM_6];
    assert_eq!(g.response_rate(Rate::OFDM_54), Rate::OFDM_6);
    g.basic_rates = vec![Rate::OFDM_6, Rate::OFDM_12, Rate::OFDM_24];
    assert_eq!(g.response_rate(Rate::OFDM_54), Rate::OFDM_24);
}
