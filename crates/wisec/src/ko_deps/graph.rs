//! The system view as a PNG, drawn with `plotters` on its bitmap backend:
//! the module in the middle, its providers around it — the core kernel
//! first, on the left — each edge labelled with its group and count, its
//! width growing with the count, and the module's own data objects (#EDO).
//!
//! Text uses the TrueType font the lab's plots load
//! ([`wisec_lab::report::plot::font`]); without one the graph is drawn
//! without labels and [`render`] says so.

use super::classify::{Group, VMLINUX};
use super::report::{pen_width, Report};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Width of the picture in pixels.
pub const WIDTH: u32 = 1200;
/// Height of the picture in pixels.
pub const HEIGHT: u32 = 820;

const MODULE_FILL: RGBColor = RGBColor(0xdb, 0xe9, 0xf6);
const KERNEL_FILL: RGBColor = RGBColor(0xfd, 0xe2, 0xc8);
const PROVIDER_FILL: RGBColor = RGBColor(0xd9, 0xf0, 0xd3);
const EDO_FILL: RGBColor = RGBColor(0xf3, 0xe6, 0xf7);
const GREY: RGBColor = RGBColor(0x70, 0x70, 0x70);
const UNRESOLVED_FILL: RGBColor = RGBColor(0xee, 0xee, 0xee);

struct Node {
    lines: Vec<String>,
    fill: RGBColor,
    edge: String,
    count: usize,
    dashed: bool,
}

/// Draws `report` into `path` (a `.png` file). Returns whether text could
/// be drawn (a font was found).
pub fn render(report: &Report, path: &Path) -> Result<bool, String> {
    let text = wisec_lab::report::plot::font().is_some();
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    let err = |e: DrawingAreaErrorKind<_>| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(err)?;

    let mut nodes: Vec<Node> = report
        .providers
        .iter()
        .map(|p| {
            let (fill, what) = match p.group {
                Some(Group::Ksc) => (KERNEL_FILL, "core kernel"),
                Some(Group::Emc) => (PROVIDER_FILL, "module"),
                _ => (UNRESOLVED_FILL, "unresolved"),
            };
            let name = if p.provider == VMLINUX {
                format!("{} ({what})", p.provider)
            } else {
                p.provider.clone()
            };
            let mut lines = vec![name];
            if p.provider == VMLINUX {
                // Its service areas, three to a line.
                let areas: Vec<String> = report
                    .kernel_areas
                    .iter()
                    .map(|(a, n)| format!("{a} {n}"))
                    .collect();
                lines.extend(areas.chunks(3).map(|c| c.join(", ")));
            } else {
                lines.push(what.to_string());
            }
            Node {
                lines,
                fill,
                edge: format!("{} {}", p.group.map(Group::tag).unwrap_or("?"), p.total),
                count: p.total,
                dashed: false,
            }
        })
        .collect();
    if report.counts.edo > 0 {
        let mut lines = vec!["data objects".to_string()];
        lines.extend(
            report
                .data_by_section
                .iter()
                .map(|(s, n)| format!("{s} {n}")),
        );
        nodes.push(Node {
            lines,
            fill: EDO_FILL,
            edge: format!("#EDO {}", report.counts.edo),
            count: report.counts.edo,
            dashed: true,
        });
    }

    let size = 16.0;
    let font = ("sans-serif", size).into_font();
    let centred = TextStyle::from(font.clone())
        .pos(Pos::new(HPos::Center, VPos::Center))
        .color(&BLACK);
    let measure = |s: &str| -> (i32, i32) {
        if !text {
            return ((s.chars().count() as i32) * 8, 16);
        }
        root.estimate_text_size(s, &centred)
            .map(|(w, h)| (w as i32, h as i32))
            .unwrap_or(((s.chars().count() as i32) * 8, 16))
    };
    let box_of = |lines: &[String]| -> (i32, i32) {
        let w = lines.iter().map(|l| measure(l).0).max().unwrap_or(40);
        let h = lines.len() as i32 * 22;
        (w / 2 + 12, h / 2 + 8)
    };

    let (cx, cy) = (WIDTH as i32 / 2, HEIGHT as i32 / 2 + 10);
    let c = &report.counts;
    let centre_lines = vec![
        format!("{}.ko", report.name),
        format!("{} undefined symbols", c.undefined),
        format!("{} functions, {} data objects", c.functions, c.edo),
        format!("{} parameters", c.params),
    ];
    let centre_half = box_of(&centre_lines);

    // Providers on an ellipse, starting on the left and going clockwise.
    let (rx, ry) = (f64::from(WIDTH) * 0.36, f64::from(HEIGHT) * 0.34);
    let n = nodes.len().max(1) as f64;
    let places: Vec<(i32, i32)> = (0..nodes.len())
        .map(|i| {
            let a = std::f64::consts::PI + i as f64 * 2.0 * std::f64::consts::PI / n;
            (
                cx + (rx * a.cos()).round() as i32,
                cy - (ry * a.sin()).round() as i32,
            )
        })
        .collect();

    // Edges first, so the boxes cover their ends.
    for (node, &(x, y)) in nodes.iter().zip(&places) {
        let colour = if node.dashed { GREY } else { BLACK };
        let width = pen_width(node.count).round() as u32;
        let style = ShapeStyle::from(&colour).stroke_width(width.max(1));
        if node.dashed {
            for seg in dashes((cx, cy), (x, y), 12.0, 8.0) {
                root.draw(&PathElement::new(seg, style)).map_err(err)?;
            }
        } else {
            root.draw(&PathElement::new(vec![(cx, cy), (x, y)], style))
                .map_err(err)?;
        }
        // An arrowhead where the edge meets the provider's box.
        let half = box_of(&node.lines);
        let tip = border((x, y), (cx, cy), half);
        let head = arrow_head((cx, cy), tip, 10.0 + f64::from(width));
        root.draw(&Polygon::new(head, colour.filled()))
            .map_err(err)?;
    }
    for (node, &(x, y)) in nodes.iter().zip(&places) {
        draw_box(
            &root,
            (x, y),
            box_of(&node.lines),
            node.fill,
            &node.lines,
            text,
            &centred,
        )
        .map_err(err)?;
    }
    draw_box(
        &root,
        (cx, cy),
        centre_half,
        MODULE_FILL,
        &centre_lines,
        text,
        &centred,
    )
    .map_err(err)?;
    if text {
        // Edge labels at 55% of the way out, on a white patch.
        for (node, &(x, y)) in nodes.iter().zip(&places) {
            let lx = cx + ((x - cx) as f64 * 0.55) as i32;
            let ly = cy + ((y - cy) as f64 * 0.55) as i32;
            let (w, h) = measure(&node.edge);
            root.draw(&Rectangle::new(
                [
                    (lx - w / 2 - 4, ly - h / 2 - 3),
                    (lx + w / 2 + 4, ly + h / 2 + 3),
                ],
                WHITE.filled(),
            ))
            .map_err(err)?;
            root.draw(&Text::new(node.edge.clone(), (lx, ly), centred.clone()))
                .map_err(err)?;
        }
        let title = format!(
            "{}.ko: external interface{}",
            report.name,
            report
                .kernel
                .release
                .as_deref()
                .map(|r| format!(" (Linux {r})"))
                .unwrap_or_default()
        );
        let big = TextStyle::from(("sans-serif", 24).into_font())
            .pos(Pos::new(HPos::Center, VPos::Top))
            .color(&BLACK);
        root.draw(&Text::new(title, (cx, 14), big)).map_err(err)?;
        let foot = format!(
            "#KSC kernel services {}   #EMC external module calls {}   #EDO data objects {}{}",
            c.ksc,
            c.emc,
            c.edo,
            if c.unresolved > 0 {
                format!("   unresolved {}", c.unresolved)
            } else {
                String::new()
            }
        );
        let small = TextStyle::from(("sans-serif", 15).into_font())
            .pos(Pos::new(HPos::Center, VPos::Bottom))
            .color(&GREY);
        root.draw(&Text::new(foot, (cx, HEIGHT as i32 - 12), small))
            .map_err(err)?;
    }
    root.present().map_err(err)?;
    Ok(text)
}

fn draw_box<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
    (hw, hh): (i32, i32),
    fill: RGBColor,
    lines: &[String],
    text: bool,
    style: &TextStyle<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.draw(&Rectangle::new(
        [(x - hw, y - hh), (x + hw, y + hh)],
        fill.filled(),
    ))?;
    root.draw(&Rectangle::new(
        [(x - hw, y - hh), (x + hw, y + hh)],
        BLACK.stroke_width(1),
    ))?;
    if text {
        let top = y - (lines.len() as i32 - 1) * 11;
        for (i, l) in lines.iter().enumerate() {
            root.draw(&Text::new(
                l.clone(),
                (x, top + i as i32 * 22),
                style.clone(),
            ))?;
        }
    }
    Ok(())
}

/// Where the segment from `centre` towards `other` leaves the box of half
/// sizes `half` around `centre`.
fn border(centre: (i32, i32), other: (i32, i32), half: (i32, i32)) -> (f64, f64) {
    let dx = f64::from(other.0 - centre.0);
    let dy = f64::from(other.1 - centre.1);
    let tx = if dx == 0.0 {
        f64::INFINITY
    } else {
        f64::from(half.0) / dx.abs()
    };
    let ty = if dy == 0.0 {
        f64::INFINITY
    } else {
        f64::from(half.1) / dy.abs()
    };
    let t = tx.min(ty).min(1.0);
    (f64::from(centre.0) + dx * t, f64::from(centre.1) + dy * t)
}

/// A triangle pointing at `tip`, coming from `from`.
fn arrow_head(from: (i32, i32), tip: (f64, f64), len: f64) -> Vec<(i32, i32)> {
    let dx = tip.0 - f64::from(from.0);
    let dy = tip.1 - f64::from(from.1);
    let d = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / d, dy / d);
    let back = (tip.0 - ux * len, tip.1 - uy * len);
    let w = len * 0.45;
    vec![
        (tip.0.round() as i32, tip.1.round() as i32),
        (
            (back.0 - uy * w).round() as i32,
            (back.1 + ux * w).round() as i32,
        ),
        (
            (back.0 + uy * w).round() as i32,
            (back.1 - ux * w).round() as i32,
        ),
    ]
}

/// The dashes of a dashed line from `a` to `b`.
fn dashes(a: (i32, i32), b: (i32, i32), on: f64, off: f64) -> Vec<Vec<(i32, i32)>> {
    let dx = f64::from(b.0 - a.0);
    let dy = f64::from(b.1 - a.1);
    let d = (dx * dx + dy * dy).sqrt();
    let mut out = Vec::new();
    let mut s = 0.0;
    while s < d {
        let e = (s + on).min(d);
        let p = |t: f64| {
            (
                (f64::from(a.0) + dx * t / d).round() as i32,
                (f64::from(a.1) + dy * t / d).round() as i32,
            )
        };
        out.push(vec![p(s), p(e)]);
        s += on + off;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry() {
        // Leaving a 10x5 half-box to the right and straight down.
        assert_eq!(border((0, 0), (100, 0), (10, 5)), (10.0, 0.0));
        assert_eq!(border((0, 0), (0, 100), (10, 5)), (0.0, 5.0));
        let head = arrow_head((0, 0), (100.0, 0.0), 10.0);
        assert_eq!(head[0], (100, 0));
        assert_eq!(head[1].0, 90);
        assert_eq!(dashes((0, 0), (100, 0), 10.0, 10.0).len(), 5);
    }
}
