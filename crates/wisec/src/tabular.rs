//! Tables as CSV (RFC 4180) and JSON with the same column names: a
//! command that prints a table offers both, `--csv` for spreadsheets and
//! `--json` for programs.

use serde::Serialize;
use serde_json::Value;

/// How a command prints its table.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TableFormat {
    /// Print the table as JSON (an array of objects, one per row).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the table as CSV (RFC 4180), with a header line of the same
    /// column names as the JSON's fields.
    #[arg(long)]
    pub csv: bool,
}

/// One CSV field: quoted when it holds a comma, a quote or a line break
/// (RFC 4180, 2.6 and 2.7).
fn field(v: &Value) -> String {
    let s = match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// The cells of `v`'s field `c`: one, or for an array the columns
/// `c.0`, `c.1`, ... and for an object `c.KEY` for each key (the JSON path
/// of each value), nested as deep as the value is.
fn cells(v: &Value, c: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    flatten(c.to_string(), v.get(c).unwrap_or(&Value::Null), &mut out);
    out
}

fn flatten(path: String, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                flatten(format!("{path}.{i}"), x, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                flatten(format!("{path}.{k}"), x, out);
            }
        }
        x => out.push((path, x.clone())),
    }
}

/// `rows` as CSV with the columns `columns` (field names of each row's
/// JSON form; an array or object field becomes one column per value,
/// named by its JSON path, `name.0` or `name.key`, over every row: a row
/// without a value there has an empty cell), CRLF line ends as RFC 4180
/// writes them.
pub fn csv<T: Serialize>(columns: &[&str], rows: &[T]) -> Result<String, serde_json::Error> {
    let values: Vec<Vec<(String, Value)>> = rows
        .iter()
        .map(|r| {
            let v = serde_json::to_value(r)?;
            Ok(columns.iter().flat_map(|c| cells(&v, c)).collect())
        })
        .collect::<Result<_, serde_json::Error>>()?;
    // Every path, in the order first met; a null where other rows have
    // nested values gives way to their paths.
    let mut header: Vec<String> = Vec::new();
    for c in columns {
        for row in &values {
            for (path, _) in row {
                let of_c = path == c || path.starts_with(&format!("{c}."));
                if of_c && !header.contains(path) {
                    header.push(path.clone());
                }
            }
        }
        if !values.iter().any(|r| {
            r.iter()
                .any(|(p, _)| p == c || p.starts_with(&format!("{c}.")))
        }) {
            header.push(c.to_string());
        }
    }
    let nested = |p: &String| header.iter().any(|q| q.starts_with(&format!("{p}.")));
    let header: Vec<String> = header.iter().filter(|p| !nested(p)).cloned().collect();
    let mut out = header.join(",");
    out.push_str("\r\n");
    for row in &values {
        let line: Vec<String> = header
            .iter()
            .map(|h| {
                row.iter()
                    .find(|(p, _)| p == h)
                    .map_or(String::new(), |(_, v)| field(v))
            })
            .collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    Ok(out)
}

/// Prints `rows` as `f` asks: CSV, or the JSON of `report` (the whole
/// report whose table `rows` is); `None` when neither was asked.
pub fn print<T: Serialize, R: Serialize>(
    f: TableFormat,
    report: &R,
    columns: &[&str],
    rows: &[T],
) -> Option<Result<(), crate::error::Failure>> {
    let enc = |e: serde_json::Error| {
        crate::error::Failure::Runtime(anyhow::anyhow!("encoding the report: {e}"))
    };
    if f.csv {
        return Some(csv(columns, rows).map_err(enc).map(|s| {
            crate::out!("{s}");
        }));
    }
    if f.json {
        return Some(serde_json::to_string_pretty(report).map_err(enc).map(|s| {
            crate::outln!("{s}");
        }));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct R {
        a: &'static str,
        b: Option<u32>,
        c: f64,
    }

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        let rows = [
            R {
                a: "plain",
                b: Some(1),
                c: 0.5,
            },
            R {
                a: "with, comma and \"quotes\"",
                b: None,
                c: 2.0,
            },
        ];
        assert_eq!(
            csv(&["a", "b", "c"], &rows).unwrap(),
            "a,b,c\r\nplain,1,0.5\r\n\"with, comma and \"\"quotes\"\"\",,2.0\r\n"
        );
    }

    #[derive(Serialize)]
    struct A {
        n: u32,
        spread: [f64; 3],
    }

    #[derive(Serialize)]
    struct S {
        median: f64,
    }

    #[derive(Serialize)]
    struct O {
        id: u8,
        s: Option<S>,
    }

    #[test]
    fn a_missing_nested_value_is_an_empty_cell() {
        let rows = [
            O { id: 1, s: None },
            O {
                id: 2,
                s: Some(S { median: 0.5 }),
            },
        ];
        assert_eq!(
            csv(&["id", "s"], &rows).unwrap(),
            "id,s.median\r\n1,\r\n2,0.5\r\n"
        );
    }

    #[test]
    fn arrays_become_one_column_per_element() {
        let rows = [A {
            n: 1,
            spread: [2.0, 1.0, 3.5],
        }];
        assert_eq!(
            csv(&["n", "spread"], &rows).unwrap(),
            "n,spread.0,spread.1,spread.2\r\n1,2.0,1.0,3.5\r\n"
        );
    }
}
