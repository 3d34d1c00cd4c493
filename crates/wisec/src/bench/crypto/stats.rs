//! Order statistics of repeated timing samples.

use serde::Serialize;

/// Median and spread of a set of samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// The median: what the tables report.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// Number of samples.
    pub samples: usize,
}

impl Summary {
    /// Summarises `samples`; `None` when there are none or one is not a
    /// finite number.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        Some(Summary {
            median: quantile(&s, 0.5),
            min: s[0],
            max: s[s.len() - 1],
            q1: quantile(&s, 0.25),
            q3: quantile(&s, 0.75),
            samples: s.len(),
        })
    }

    /// Interquartile range relative to the median.
    pub fn iqr_rel(&self) -> f64 {
        rel(self.q3 - self.q1, self.median)
    }

    /// Full range (max - min) relative to the median.
    pub fn range_rel(&self) -> f64 {
        rel(self.max - self.min, self.median)
    }
}

fn rel(x: f64, median: f64) -> f64 {
    if median > 0.0 {
        x / median
    } else {
        0.0
    }
}

/// The `p`-quantile of sorted, non-empty `s`, interpolating linearly
/// between closest ranks.
fn quantile(s: &[f64], p: f64) -> f64 {
    let pos = p * (s.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    s[lo] + (s[hi] - s[lo]) * frac
}

/// The median of `xs` (for summaries of summaries); `None` when empty.
pub fn median(xs: &[f64]) -> Option<f64> {
    Summary::of(xs).map(|s| s.median)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_by_linear_interpolation() {
        // The same data as numpy.percentile([...], [25, 50, 75]) with its
        // default 'linear' method: 1.75, 2.5, 3.25 for 1..=4.
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.q1, s.median, s.q3), (1.75, 2.5, 3.25));
        assert_eq!((s.min, s.max, s.samples), (1.0, 4.0, 4));
        assert!((s.iqr_rel() - 0.6).abs() < 1e-12);
        assert!((s.range_rel() - 1.2).abs() < 1e-12);
        let one = Summary::of(&[7.0]).unwrap();
        assert_eq!(
            (one.median, one.q1, one.q3, one.iqr_rel()),
            (7.0, 7.0, 7.0, 0.0)
        );
        assert_eq!(median(&[5.0, 1.0, 9.0]), Some(5.0));
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }
}
