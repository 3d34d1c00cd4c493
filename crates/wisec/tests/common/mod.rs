//! Helpers shared by the integration tests: run the built binary, write
//! sample captures, read captures back.
#![allow(dead_code)]

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use wisec::capture::{CaptureReader, Format, Interface, Packet, Record};
use wisec::sample::{write_sample, SampleOptions};

pub const K16: &str = "000102030405060708090a0b0c0d0e0f";
pub const K32: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
pub const IGTK16: &str = "4ea9543e09cf2b1eca66ffc58bdecbcf";
pub const IGTK32: &str = "4ea9543e09cf2b1eca66ffc58bdecbcf000102030405060708090a0b0c0d0e0f";
pub const WEP40: &str = "0102030405";
pub const WEP104: &str = "0102030405060708090a0b0c0d";

/// Every data suite with a key, and whether it can protect management
/// frames.
pub const SUITES: [(&str, &str, bool); 7] = [
    ("wep40", WEP40, false),
    ("wep104", WEP104, false),
    ("tkip", K32, false),
    ("ccmp", K16, true),
    ("ccmp256", K32, true),
    ("gcmp", K16, true),
    ("gcmp256", K32, true),
];

pub fn wisec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("run wisec")
}

pub fn ok(args: &[&str]) -> String {
    let out = wisec(args);
    assert!(
        out.status.success(),
        "wisec {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    serde_json::from_str(&ok(&a)).expect("JSON summary")
}

pub fn sample(dir: &Path, name: &str, opts: SampleOptions) -> PathBuf {
    let path = dir.join(name);
    let f = BufWriter::new(File::create(&path).unwrap());
    if name.ends_with(".gz") {
        let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        write_sample(gz, opts).unwrap().finish().unwrap();
    } else {
        write_sample(f, opts).unwrap();
    }
    path
}

pub fn opts(format: Format, link_type: u16, fcs: bool) -> SampleOptions {
    SampleOptions {
        format,
        link_type,
        fcs,
        announce_fcs: true,
        data_frames: 8,
    }
}

/// The interfaces and packets of a capture.
pub fn read(path: &Path) -> (Vec<Interface>, Vec<Packet>) {
    let mut r = CaptureReader::open(path).unwrap();
    let mut ifaces = Vec::new();
    let mut packets = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        match rec {
            Record::Interface(i) => ifaces.push(i),
            Record::Packet(p) => packets.push(p),
            Record::Section => {}
        }
    }
    (ifaces, packets)
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Files in `dir` other than `keep`.
pub fn leftovers(dir: &Path, keep: &[&Path]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !keep.contains(&p.as_path()))
        .map(|p| p.display().to_string())
        .collect()
}

/// Writes a `wisec synth` capture `name` in `dir` with the passphrase and
/// SSID given and the options `extra`.
pub fn synth_capture(dir: &Path, name: &str, pass: &str, ssid: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut a = vec!["synth", p(&path), "--ssid", ssid, "--passphrase", pass];
    a.extend_from_slice(extra);
    ok(&a);
    path
}

/// CSV output read back by Python's csv module and compared with JSON.
pub mod csv {
    use serde_json::Value;
    use std::io::Write;
    use std::process::{Command, Stdio};

    /// The CSV as Python's csv module reads it: the header and the rows.
    fn python_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
        let mut child = Command::new("python3")
            .args([
                "-c",
                "import csv, json, sys\n\
                 rows = list(csv.reader(sys.stdin, strict=True))\n\
                 json.dump(rows, sys.stdout)",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let mut rows: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
        assert!(!rows.is_empty(), "no header: {text}");
        let header = rows.remove(0);
        for r in &rows {
            assert_eq!(r.len(), header.len(), "{r:?}");
        }
        (header, rows)
    }

    /// A JSON row as (path, value) pairs, nested values by their path.
    fn paths(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    paths(&format!("{prefix}.{i}"), x, out);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    paths(&p, x, out);
                }
            }
            x => out.push((prefix.to_string(), x.clone())),
        }
    }

    /// A CSV cell holds the JSON value: text as it is, null empty, numbers
    /// equal as numbers.
    fn same(cell: &str, v: &Value) -> bool {
        match v {
            Value::Null => cell.is_empty(),
            Value::String(s) => cell == s,
            // Within an ulp or two: serde_json's default float parsing is not
            // correctly rounded.
            Value::Number(n) => match (cell.parse::<f64>(), n.as_f64()) {
                (Ok(a), Some(b)) => a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
                _ => false,
            },
            Value::Bool(b) => cell == b.to_string(),
            _ => false,
        }
    }

    /// Checks the CSV against the JSON rows: the same rows, every column a
    /// field path of the JSON, and the fields `exact` (all when `None`) equal.
    pub fn compare(csv: &str, json_rows: &[Value], exact: Option<&[&str]>) {
        let (header, rows) = python_csv(csv);
        assert_eq!(rows.len(), json_rows.len(), "{csv}");
        for (r, j) in rows.iter().zip(json_rows) {
            let mut fields = Vec::new();
            paths("", j, &mut fields);
            for (col, cell) in header.iter().zip(r) {
                let (_, v) = fields
                    .iter()
                    .find(|(p, _)| p == col)
                    .unwrap_or_else(|| panic!("column {col} is no field of {j}"));
                let check = exact.is_none_or(|e| e.contains(&col.as_str()));
                if check {
                    assert!(same(cell, v), "{col}: {cell:?} vs {v}");
                }
            }
        }
    }
}
