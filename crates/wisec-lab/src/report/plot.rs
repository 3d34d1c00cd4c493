//! PNG line plots of a report's figures, drawn with `plotters` on its
//! bitmap backend.
//!
//! Text needs a font. `plotters` is built without fontconfig, so the lab
//! loads a TrueType font itself at run time: `$WISEC_FONT` when set, else
//! DejaVu Sans from Debian's `fonts-dejavu-core` (installed by
//! `scripts/prereqs.sh`) under `/usr/share/fonts`. Without a font the plots
//! are still drawn — axes, grid and series — but with no text; the report
//! says so and its tables carry the numbers.

use crate::experiment::{Plot, PlotKind};
use plotters::prelude::*;
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

/// Title font size in pixels, and the smallest it shrinks to before the
/// title is broken into lines.
const TITLE_PX: u32 = 22;
const TITLE_MIN_PX: u32 = 16;
/// Margin around the chart, pixels.
const MARGIN: u32 = 16;

/// True for a series that carries a seed's published values: drawn as
/// hollow markers (lines) or hatched-looking outlined bars, so that the
/// seed's values stand beside the lab's.
pub fn is_seed(label: &str) -> bool {
    label.to_ascii_lowercase().starts_with("seed")
}

/// The colour index of series `i`: a seed's series takes the colour of the
/// lab series it stands beside (the one whose label its own ends with,
/// after "seed NNN "), so that a pair reads as one.
pub fn colour_index(series: &[crate::experiment::Series], i: usize) -> usize {
    let Some(s) = series.get(i) else {
        return i;
    };
    if !is_seed(&s.label) {
        return i;
    }
    let rest: String = s
        .label
        .split_whitespace()
        .skip(2)
        .collect::<Vec<_>>()
        .join(" ");
    if rest.is_empty() {
        return i;
    }
    series
        .iter()
        .position(|o| {
            !is_seed(&o.label) && (o.label == rest || o.label.ends_with(&format!(" {rest}")))
        })
        .unwrap_or(i)
}

/// The largest font size, 14 down to 8 pixels, at which every category
/// label fits its share of the x axis, so that neighbours do not touch.
pub fn category_px(categories: &[String]) -> u32 {
    let _ = font();
    let share = f64::from(WIDTH - 2 * MARGIN - 72) / categories.len().max(1) as f64;
    for px in (8..=14u32).rev() {
        let widest = categories
            .iter()
            .map(|c| {
                ("sans-serif", px)
                    .into_font()
                    .box_size(c)
                    .map(|(w, _)| w)
                    .unwrap_or((c.chars().count() as f64 * f64::from(px) * 0.6) as u32)
            })
            .max()
            .unwrap_or(0);
        if f64::from(widest) <= 0.9 * share {
            return px;
        }
    }
    8
}

/// The title as lines that fit `width` pixels at `px` (measured with the
/// loaded font), and that size: the largest size from `TITLE_PX` down
/// to `TITLE_MIN_PX` on one line, else word-wrapped lines at the
/// smallest.
pub fn title_lines(title: &str, width: u32) -> (Vec<String>, u32) {
    // Register the font (once) so that the measurements use it.
    let _ = font();
    let measure = |t: &str, px: u32| -> u32 {
        ("sans-serif", px)
            .into_font()
            .box_size(t)
            .map(|(w, _)| w)
            // No font: a generous average advance of 0.6 em.
            .unwrap_or((t.chars().count() as f64 * f64::from(px) * 0.6) as u32)
    };
    for px in (TITLE_MIN_PX..=TITLE_PX).rev() {
        if measure(title, px) <= width {
            return (vec![title.to_string()], px);
        }
    }
    let px = TITLE_MIN_PX;
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for w in title.split_whitespace() {
        let next = if cur.is_empty() {
            w.to_string()
        } else {
            format!("{cur} {w}")
        };
        if !cur.is_empty() && measure(&next, px) > width {
            lines.push(std::mem::take(&mut cur));
            cur = w.to_string();
        } else {
            cur = next;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    (lines, px)
}

/// Draws `plot` into `path` as a PNG of [`WIDTH`] × [`HEIGHT`] pixels.
/// With `text` false (or no font available) no text is drawn. The title is
/// shrunk or wrapped to fit the width; the value axis leaves room above
/// the data for the legend, so that the legend covers no bar or point.
pub fn render(plot: &Plot, path: &Path, text: bool) -> Result<(), String> {
    let text = text && font().is_some();
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<_>| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(e)?;
    let root = if text && !plot.title.is_empty() {
        let (lines, px) = title_lines(&plot.title, WIDTH - 2 * MARGIN);
        let line_h = px + px / 3;
        for (i, l) in lines.iter().enumerate() {
            let style = ("sans-serif", px).into_font().color(&BLACK).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Top,
                ),
            );
            root.draw(&Text::new(
                l.clone(),
                ((WIDTH / 2) as i32, (MARGIN + line_h * i as u32) as i32),
                style,
            ))
            .map_err(e)?;
        }
        let used = MARGIN + line_h * lines.len() as u32;
        root.split_vertically(used).1
    } else {
        root
    };
    let legend_rows = if text { plot.series.len() } else { 0 };
    let bars = plot.kind == PlotKind::Bars;
    let xs = if bars {
        let n = plot
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .fold(plot.categories.len() as f64 - 1.0, f64::max)
            .max(0.0);
        (-0.5, n + 0.5)
    } else {
        range(
            plot.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
            false,
        )
    };
    let mut ys = range(
        plot.series.iter().flat_map(|s| {
            s.points.iter().enumerate().map(|(i, p)| {
                p.1 + s
                    .errors
                    .as_ref()
                    .and_then(|e| e.get(i).copied())
                    .filter(|v| v.is_finite())
                    .unwrap_or(0.0)
            })
        }),
        true,
    );
    if legend_rows > 0 {
        // The legend (about 20 px a row and its frame) sits in the upper
        // right corner of the plotting area, about 400 px high: raise the
        // top of the axis so that the data stays below it.
        let frac = ((legend_rows as f64 * 20.0 + 24.0) / 400.0).min(0.6);
        ys.1 = ys.0 + (ys.1 - ys.0) / (1.0 - frac);
    }
    let mut builder = ChartBuilder::on(&root);
    builder.margin(MARGIN);
    if text {
        builder.x_label_area_size(48).y_label_area_size(72);
    } else {
        builder.x_label_area_size(8).y_label_area_size(8);
    }
    let mut chart = builder
        .build_cartesian_2d(xs.0..xs.1, ys.0..ys.1)
        .map_err(e)?;
    let categories = plot.categories.clone();
    let category = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            categories.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc(plot.x_label.as_str())
            .y_desc(plot.y_label.as_str())
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16));
        if bars {
            mesh.x_labels(plot.categories.len().max(1) * 2 + 1)
                .x_label_formatter(&category)
                .x_label_style(("sans-serif", category_px(&plot.categories)))
                .disable_x_mesh();
        }
    } else {
        mesh.x_labels(0).y_labels(0);
    }
    mesh.draw().map_err(e)?;
    let k = plot.series.len().max(1) as f64;
    for (i, s) in plot.series.iter().enumerate() {
        let c = COLOURS[colour_index(&plot.series, i) % COLOURS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        // Bars of one category side by side, 0.8 wide in all.
        let shift = |x: f64| {
            if bars {
                x - 0.4 + 0.8 * (i as f64 + 0.5) / k
            } else {
                x
            }
        };
        let seed = is_seed(&s.label);
        // A seed's bars: outlined in the colour over a light fill; its
        // points: hollow diamonds without a line (the seed gives points,
        // not a curve through them).
        let style = if seed {
            c.mix(0.25).filled()
        } else {
            c.filled()
        };
        let drawn = if bars {
            let w = 0.8 / k * 0.9;
            chart
                .draw_series(pts.iter().map(|&(x, y)| {
                    let x = shift(x);
                    Rectangle::new([(x - w / 2.0, 0.0), (x + w / 2.0, y)], style)
                }))
                .map_err(e)?
        } else if seed {
            chart
                .draw_series(pts.iter().map(|&p| {
                    EmptyElement::at(p)
                        + Polygon::new(vec![(0, -8), (8, 0), (0, 8), (-8, 0)], c.mix(0.25).filled())
                        + PathElement::new(
                            vec![(0, -8), (8, 0), (0, 8), (-8, 0), (0, -8)],
                            c.stroke_width(2),
                        )
                }))
                .map_err(e)?
        } else {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                .map_err(e)?
        };
        if text {
            drawn.label(s.label.as_str()).legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + Rectangle::new([(0, -5), (18, 5)], style)
                    + Rectangle::new([(0, -5), (18, 5)], c.stroke_width(1))
            });
        }
        if bars && seed {
            let w = 0.8 / k * 0.9;
            chart
                .draw_series(pts.iter().map(|&(x, y)| {
                    let x = shift(x);
                    Rectangle::new([(x - w / 2.0, 0.0), (x + w / 2.0, y)], c.stroke_width(2))
                }))
                .map_err(e)?;
        }
        if !bars && !seed {
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(e)?;
        }
        let errors = s.errors.as_deref().unwrap_or(&[]);
        for (p, &sd) in s.points.iter().zip(errors) {
            if sd.is_finite() && sd > 0.0 && p.0.is_finite() && p.1.is_finite() {
                let x = shift(p.0);
                chart
                    .draw_series(std::iter::once(ErrorBar::new_vertical(
                        x,
                        p.1 - sd,
                        p.1,
                        p.1 + sd,
                        BLACK.stroke_width(1),
                        8,
                    )))
                    .map_err(e)?;
            }
        }
    }
    if text && !plot.series.is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Series;

    fn png_size(b: &[u8]) -> (u32, u32) {
        // PNG signature, then the IHDR chunk: width and height big-endian.
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&b[12..16], b"IHDR");
        let w = u32::from_be_bytes([b[16], b[17], b[18], b[19]]);
        let h = u32::from_be_bytes([b[20], b[21], b[22], b[23]]);
        (w, h)
    }

    #[test]
    fn lines_and_bars_with_and_without_text() {
        let dir = tempfile::tempdir().unwrap();
        for (kind, text) in [
            (PlotKind::Line, true),
            (PlotKind::Line, false),
            (PlotKind::Bars, true),
            (PlotKind::Bars, false),
        ] {
            let plot = Plot {
                name: "p".into(),
                title: "A plot".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                kind,
                categories: vec!["open".into(), "ccmp".into()],
                series: vec![
                    Series {
                        label: "lab".into(),
                        points: vec![(0.0, 5.0), (1.0, 4.5)],
                        errors: Some(vec![0.2, f64::NAN]),
                    },
                    Series {
                        label: "seed".into(),
                        points: vec![(0.0, 5.5), (1.0, f64::INFINITY)],
                        errors: None,
                    },
                ],
            };
            let path = dir.path().join(format!("{kind:?}-{text}.png"));
            render(&plot, &path, text).unwrap();
            let b = std::fs::read(&path).unwrap();
            assert_eq!(png_size(&b), (WIDTH, HEIGHT));
        }
        // An empty plot still draws.
        let empty = Plot {
            name: "e".into(),
            title: "empty".into(),
            x_label: String::new(),
            y_label: String::new(),
            kind: PlotKind::Line,
            categories: Vec::new(),
            series: Vec::new(),
        };
        render(&empty, &dir.path().join("e.png"), true).unwrap();
    }

    #[test]
    fn long_titles_shrink_then_wrap_within_the_width() {
        let short = "Throughput";
        let (l, px) = title_lines(short, WIDTH - 2 * MARGIN);
        assert_eq!((l, px), (vec![short.to_string()], TITLE_PX));
        let long =
            "UDP throughput against offered load, by AP profile and mode (seed 003 Figure 6 \
gives only the saturated point: see the table above), without and with aggregation";
        let (lines, px) = title_lines(long, WIDTH - 2 * MARGIN);
        assert_eq!(px, TITLE_MIN_PX);
        assert!(lines.len() >= 2, "{lines:?}");
        // Every word kept, in order.
        assert_eq!(
            lines.join(" "),
            long.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        if font().is_some() {
            for l in &lines {
                let (w, _) = ("sans-serif", px).into_font().box_size(l).unwrap();
                assert!(w <= WIDTH - 2 * MARGIN, "{l}: {w}");
            }
        }
        assert!(is_seed("seed 001 TCP") && is_seed("Seed 003") && !is_seed("wisec lab"));
        let series = |l: &[&str]| -> Vec<Series> {
            l.iter()
                .map(|x| Series {
                    label: (*x).into(),
                    points: Vec::new(),
                    errors: None,
                })
                .collect()
        };
        let v = series(&[
            "TCP",
            "UDP",
            "seed 001 TCP",
            "seed 001 UDP",
            "seed 003 Cube",
        ]);
        let idx: Vec<usize> = (0..v.len()).map(|i| colour_index(&v, i)).collect();
        assert_eq!(idx, [0, 1, 0, 1, 4]);
        // Ten suites on one axis: a smaller font than three.
        let names = |l: &[&str]| l.iter().map(|x| (*x).to_string()).collect::<Vec<_>>();
        let few = names(&["Open", "WEP-40", "CCMP-128"]);
        let many = names(&[
            "Open",
            "WEP-40",
            "WEP-104",
            "TKIP",
            "CCMP-128",
            "CCMP-256",
            "GCMP-128",
            "GCMP-256",
            "DiscoSec fast",
            "DiscoSec full",
        ]);
        assert_eq!(category_px(&few), 14);
        assert!(category_px(&many) < 14);
        let v = series(&["wisec lab bare-bare", "seed 000 bare-bare"]);
        assert_eq!(colour_index(&v, 1), 0);
    }
}
