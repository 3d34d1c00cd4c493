//! PNG line plots of a report's figures, drawn with `plotters` on its
//! bitmap backend.
//!
//! Text needs a font. `plotters` is built without fontconfig, so the lab
//! loads a TrueType font itself at run time: `$WISEC_FONT` when set, else
//! DejaVu Sans from Debian's `fonts-dejavu-core` (installed by
//! `scripts/prereqs.sh`) under `/usr/share/fonts`. Without a font the plots
//! are still drawn — axes, grid and series — but with no text; the report
//! says so and its tables carry the numbers.

use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where DejaVu Sans lives on Debian and its derivatives.
pub const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Plot width in pixels.
pub const WIDTH: u32 = 900;
/// Plot height in pixels.
pub const HEIGHT: u32 = 560;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeriesStyle {
    /// Lines through the points, with markers (measurements).
    LinePoints,
    /// A plain line (an analytical model).
    Line,
    /// Markers only (published reference values).
    Points,
}

/// One series of a figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// (x, y) points, in x order.
    pub points: Vec<(f64, f64)>,
    /// Per point, the half-height of an error bar (a standard deviation);
    /// empty for none.
    #[serde(default)]
    pub error: Vec<f64>,
    /// How it is drawn.
    pub style: SeriesStyle,
}

/// A figure of a report: one PNG file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// File name in the output directory, ending in `.png`.
    pub file: String,
    /// The caption.
    pub title: String,
    /// X axis label with unit.
    pub x_label: String,
    /// Y axis label with unit.
    pub y_label: String,
    /// The series.
    pub series: Vec<Series>,
}

fn font_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("WISEC_FONT") {
        return Some(PathBuf::from(p));
    }
    FONT_CANDIDATES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// Loads and registers the font once per process; the file it came from,
/// or `None` when no usable font was found.
pub fn font() -> Option<&'static Path> {
    static FONT: OnceLock<Option<PathBuf>> = OnceLock::new();
    FONT.get_or_init(|| {
        let path = font_path()?;
        let bytes = std::fs::read(&path).ok()?;
        // plotters keeps fonts for the life of the process.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).ok()?;
        Some(path)
    })
    .as_deref()
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn range(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    let span = (hi - lo).abs().max(1e-9);
    (
        lo - if from_zero && lo == 0.0 {
            0.0
        } else {
            0.05 * span
        },
        hi + 0.08 * span,
    )
}

/// Draws `fig` into `path` as a PNG of [`WIDTH`] × [`HEIGHT`] pixels.
/// With `text` false (or no font available) no text is drawn.
pub fn render(fig: &Figure, path: &Path, text: bool) -> Result<(), String> {
    let text = text && font().is_some();
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(e)?;
    let xs = range(
        fig.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        false,
    );
    let ys = range(
        fig.series.iter().flat_map(|s| {
            s.points
                .iter()
                .enumerate()
                .map(|(i, p)| p.1 + s.error.get(i).copied().unwrap_or(0.0))
        }),
        true,
    );
    let mut builder = ChartBuilder::on(&root);
    builder.margin(16);
    if text {
        builder
            .caption(&fig.title, ("sans-serif", 22))
            .x_label_area_size(48)
            .y_label_area_size(64);
    } else {
        builder.x_label_area_size(8).y_label_area_size(8);
    }
    let mut chart = builder
        .build_cartesian_2d(xs.0..xs.1, ys.0..ys.1)
        .map_err(e)?;
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc(fig.x_label.as_str())
            .y_desc(fig.y_label.as_str())
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16));
    } else {
        mesh.x_labels(0).y_labels(0);
    }
    mesh.draw().map_err(e)?;
    for (i, s) in fig.series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let pts = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite());
        let mut drawn = match s.style {
            SeriesStyle::Line | SeriesStyle::LinePoints => chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(e)?,
            SeriesStyle::Points => chart
                .draw_series(pts.clone().map(|p| TriangleMarker::new(p, 7, c.filled())))
                .map_err(e)?,
        };
        if text {
            drawn = drawn.label(s.name.as_str()).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
            });
        }
        let _ = drawn;
        if s.style == SeriesStyle::LinePoints {
            chart
                .draw_series(pts.clone().map(|p| Circle::new(p, 4, c.filled())))
                .map_err(e)?;
        }
        for (j, p) in s.points.iter().enumerate() {
            if let Some(&sd) = s.error.get(j).filter(|v| v.is_finite() && **v > 0.0) {
                chart
                    .draw_series(std::iter::once(ErrorBar::new_vertical(
                        p.0,
                        p.1 - sd,
                        p.1,
                        p.1 + sd,
                        c.stroke_width(1),
                        8,
                    )))
                    .map_err(e)?;
            }
        }
    }
    if text {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}
