//! Small readers shared by the experiments: a trial's parameters, list
//! overrides and means.

use super::{ExperimentError, TrialSpec, Value};

/// The trial's parameter `k` as text, if it is a string.
pub(crate) fn text<'a>(spec: &'a TrialSpec, k: &str) -> Option<&'a str> {
    spec.params.get(k).and_then(Value::as_str)
}

/// The trial's parameter `k` as a number, if it is one.
pub(crate) fn num(spec: &TrialSpec, k: &str) -> Option<f64> {
    spec.params.get(k).and_then(Value::as_f64)
}

/// The error of a trial whose parameters do not fit its experiment.
pub(crate) fn bad_params(spec: &TrialSpec) -> ExperimentError {
    ExperimentError(format!("trial {}: bad parameters", spec.label))
}

/// The mean of `v`, `None` when it is empty.
pub(crate) fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The mean and the sample standard deviation of `v` (NaN, NaN when it
/// is empty; the deviation is 0 for one value).
pub(crate) fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (m, sd)
}

/// An override's value, read as a `T` within `range`; the error names the
/// parameter `what` and the range.
pub(crate) fn in_range<T>(
    what: &str,
    v: &str,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, ExperimentError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    v.trim()
        .parse::<T>()
        .ok()
        .filter(|x| range.contains(x))
        .ok_or_else(|| {
            ExperimentError(format!(
                "{what}: '{v}' ({} to {})",
                range.start(),
                range.end()
            ))
        })
}

/// An override's comma-separated list (`[a,b]`, `a,b`, quoted or not), each
/// item read by `f`; `what` names the override in the error.
pub(crate) fn list<T>(
    v: &str,
    what: &str,
    f: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>, ExperimentError> {
    v.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|x| {
            let x = x.trim().trim_matches('"');
            f(x).ok_or_else(|| ExperimentError(format!("{what}: '{x}' is not valid")))
        })
        .collect()
}

/// One parameter an experiment takes: its name and the values it accepts.
pub(crate) type ParamRange = (&'static str, &'static str);

/// The error for a parameter `k` that experiment `exp` does not take,
/// listing those it does take with their ranges.
pub(crate) fn no_such(exp: &str, k: &str, all: &[ParamRange]) -> ExperimentError {
    let list: Vec<String> = all.iter().map(|(n, r)| format!("{n} ({r})")).collect();
    ExperimentError(format!(
        "{k}: {exp} has no such parameter; it takes: {}",
        list.join("; ")
    ))
}

/// The error for a value `v` that parameter `k` does not accept, naming
/// what it accepts (from `all`).
pub(crate) fn invalid(k: &str, v: &str, all: &[ParamRange]) -> ExperimentError {
    match all.iter().find(|(n, _)| *n == k) {
        Some((_, range)) => ExperimentError(format!("{k}: '{v}' is not valid ({range})")),
        None => ExperimentError(format!("{k}: '{v}' is not valid")),
    }
}
