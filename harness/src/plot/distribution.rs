//! The distribution SVG: every measured launch's wall time, one row per mode
//! (and engine), on a log axis so a 7 ms launch and a 7 s one share a
//! picture; the median is the tall black tick (with its value), p90 the
//! short one, and the triangle the median floor (the mocked latency that
//! launch had to wait for, whatever the launcher).

use std::path::Path;

use plotters::prelude::*;

use super::{SKY, SKYPILOT, axis_text, duration_text, plot_error};
use crate::engine::Mode;
use crate::error::Result;
use crate::stats::Stats;

/// One row of the plot.
#[derive(Debug, Clone)]
pub struct Series {
    /// The mode (label and colour).
    pub mode: Mode,
    /// Wall time of every measured launch, ms, in run order.
    pub wall_ms: Vec<f64>,
    /// Median floor, ms.
    pub floor_ms: f64,
}

/// Draws `series` (top to bottom) into `out`.
pub fn draw(series: &[Series], title: &str, subtitle: &str, out: &Path) -> Result<()> {
    let n = series.len().max(1);
    let err = |e: &dyn std::fmt::Display| plot_error(out, e);
    let all: Vec<f64> = series
        .iter()
        .flat_map(|s| s.wall_ms.iter().copied().chain(std::iter::once(s.floor_ms)))
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .clamp(0.01, 1.0)
        / 1.6;
    let hi = all.iter().copied().fold(1.0, f64::max) * 5.0;
    let height = 190 + 64 * n as u32;
    let root = SVGBackend::new(out, (WIDTH_PX, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, body) = root.split_vertically(78);
    header(&top, title, subtitle).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&body)
        .margin_left(8)
        .margin_right(24)
        .margin_bottom(8)
        .x_label_area_size(44)
        .y_label_area_size(230)
        .build_cartesian_2d((lo..hi).log_scale(), 0f64..n as f64)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_desc("wall time per launch, spawn to exit (log scale)")
        .x_label_formatter(&|v| axis_text(*v))
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .draw()
        .map_err(|e| err(&e))?;
    let small = ("sans-serif", 12).into_font();
    for (k, s) in series.iter().enumerate() {
        // Row k (0 = top) spans y in [n-1-k, n-k]; its centre line:
        let y = (n - 1 - k) as f64 + 0.5;
        let colour = if s.mode.is_skypilot() { SKYPILOT } else { SKY };
        if k > 0 {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(lo, y + 0.5), (hi, y + 0.5)],
                    RGBColor(0xdd, 0xdd, 0xdd),
                )))
                .map_err(|e| err(&e))?;
        }
        chart
            .plotting_area()
            .draw(
                &(EmptyElement::at((lo, y))
                    + Text::new(
                        s.mode.label().to_string(),
                        (-222, -7),
                        ("sans-serif", 14).into_font(),
                    )),
            )
            .map_err(|e| err(&e))?;
        let stats = Stats::of(&s.wall_ms);
        // Every launch a point, spread vertically (deterministically) so they do not hide each other.
        chart
            .draw_series(s.wall_ms.iter().enumerate().map(|(i, w)| {
                let dy = ((i * 7) % 11) as i32 * 2 - 10;
                EmptyElement::at((w.max(lo), y))
                    + Circle::new((0, dy), 4, colour.mix(0.55).filled())
            }))
            .map_err(|e| err(&e))?;
        if stats.n == 0 {
            continue;
        }
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((stats.median.max(lo), y))
                    + PathElement::new(vec![(0, -18), (0, 18)], BLACK.stroke_width(3))
                    + Text::new(
                        format!("median {}", duration_text(stats.median)),
                        (6, -28),
                        small.clone().style(FontStyle::Bold),
                    ),
            ))
            .map_err(|e| err(&e))?;
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((stats.p90.max(lo), y))
                    + PathElement::new(vec![(0, -10), (0, 10)], BLACK.stroke_width(1))
                    + Text::new(
                        format!("p90 {}", duration_text(stats.p90)),
                        (4, 10),
                        small.clone(),
                    ),
            ))
            .map_err(|e| err(&e))?;
        if s.floor_ms > 0.0 {
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((s.floor_ms.max(lo), y))
                        + TriangleMarker::new((0, 20), 6, FLOOR.filled())
                        + Text::new(
                            format!("floor {}", duration_text(s.floor_ms)),
                            (-70, 14),
                            small.clone().color(&FLOOR),
                        ),
                ))
                .map_err(|e| err(&e))?;
        }
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Colour of the floor markers.
const FLOOR: RGBColor = RGBColor(0x2e, 0x7d, 0x32);
/// Width of the SVG, px.
const WIDTH_PX: u32 = 1280;

/// Title, subtitle and the legend, above the plot.
fn header<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    subtitle: &str,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    super::title_block(area, title, subtitle)?;
    let font = ("sans-serif", 13).into_font();
    let y = 60;
    let mut x = 12;
    for (text, colour) in [
        ("one launch of sky", SKY),
        ("one launch of SkyPilot 0.14.1", SKYPILOT),
    ] {
        area.draw(&Circle::new((x + 6, y), 4, colour.mix(0.55).filled()))?;
        area.draw(&Text::new(text.to_string(), (x + 16, y - 7), font.clone()))?;
        x += 40 + 8 * text.len() as i32;
    }
    area.draw(&PathElement::new(
        vec![(x + 6, y - 8), (x + 6, y + 8)],
        BLACK.stroke_width(3),
    ))?;
    area.draw(&Text::new(
        "median".to_string(),
        (x + 14, y - 7),
        font.clone(),
    ))?;
    x += 80;
    area.draw(&PathElement::new(
        vec![(x + 6, y - 5), (x + 6, y + 5)],
        BLACK.stroke_width(1),
    ))?;
    area.draw(&Text::new("p90".to_string(), (x + 12, y - 7), font.clone()))?;
    x += 60;
    area.draw(&TriangleMarker::new((x + 6, y), 6, FLOOR.filled()))?;
    area.draw(&Text::new(
        "floor: mocked latency the launch had to wait for (median)".to_string(),
        (x + 16, y - 7),
        font,
    ))?;
    Ok(())
}
