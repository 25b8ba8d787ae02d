//! The timeline SVG: for each mode, one header row (mode, wall time, floor)
//! and one row per phase and cloud check of its traced launch; light bars
//! are the launcher at work (spans of its trace), dark inner bars are mocked
//! requests outstanding. One shared time axis, so modes compare by length.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{WAIT, duration_text, plot_error, row_colour};
use crate::error::Result;
use crate::timeline::{BarKind, LaunchTimeline};

/// Height of one row, px.
const ROW_PX: u32 = 22;
/// Width of the SVG, px.
const WIDTH_PX: u32 = 1280;

/// One line of the plot: a mode's header or one of its rows.
enum Line<'a> {
    Header(&'a LaunchTimeline),
    Row(&'a LaunchTimeline, usize),
}

/// Longest row label drawn, characters (the label area is fixed).
const MAX_LABEL: usize = 34;

fn label(line: &Line<'_>) -> String {
    let text = full_label(line);
    if text.chars().count() > MAX_LABEL {
        let cut: String = text.chars().take(MAX_LABEL - 1).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn full_label(line: &Line<'_>) -> String {
    match line {
        Line::Header(t) => format!("▸ {}", t.mode.label()),
        Line::Row(t, i) => match t.rows[*i].label.as_str() {
            "process" => "    whole launch".to_string(),
            other => format!("    {other}"),
        },
    }
}

/// Draws `timelines` into `out` on one time axis from 0 to `x_max_ms` (the
/// longest launch when `None`).
pub fn draw(
    timelines: &[LaunchTimeline],
    title: &str,
    subtitle: &str,
    x_max_ms: Option<f64>,
    out: &Path,
) -> Result<()> {
    let lines: Vec<Line<'_>> = timelines
        .iter()
        .flat_map(|t| {
            std::iter::once(Line::Header(t)).chain((0..t.rows.len()).map(move |i| Line::Row(t, i)))
        })
        .collect();
    let n = lines.len().max(1);
    let height = 150 + ROW_PX * n as u32;
    let longest = timelines.iter().map(|t| t.wall_ms).fold(1.0, f64::max);
    let x_max = x_max_ms.unwrap_or(longest).max(1.0) * 1.12;
    let root = SVGBackend::new(out, (WIDTH_PX, height)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| plot_error(out, e);
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, body) = root.split_vertically(78);
    caption(&top, title, subtitle).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&body)
        .margin_left(8)
        .margin_right(24)
        .margin_bottom(8)
        .x_label_area_size(40)
        .y_label_area_size(260)
        .build_cartesian_2d(0f64..x_max, 0f64..n as f64)
        .map_err(|e| err(&e))?;
    // Line i (0 = top) spans y in [n-1-i, n-i].
    let y_of = |i: usize| (n - 1 - i) as f64;
    let labels: Vec<String> = lines.iter().map(label).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("ms after the launch started (spawn, for processes)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_labels(0)
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .draw()
        .map_err(|e| err(&e))?;
    let font = ("sans-serif", 13).into_font();
    for (i, line) in lines.iter().enumerate() {
        let y = y_of(i);
        let text_style = match line {
            Line::Header(_) => ("sans-serif", 14)
                .into_font()
                .style(FontStyle::Bold)
                .color(&BLACK),
            Line::Row(..) => font.clone().color(&RGBColor(0x33, 0x33, 0x33)),
        };
        // Row labels sit in the label area, left of the plot.
        chart
            .plotting_area()
            .draw(
                &(EmptyElement::at((0.0, y + 0.5))
                    + Text::new(labels[i].clone(), (-252, -7), text_style)),
            )
            .map_err(|e| err(&e))?;
        match line {
            Line::Header(t) => {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, y), (x_max, y + 1.0)],
                        RGBColor(0xf3, 0xf3, 0xf3).filled(),
                    )))
                    .map_err(|e| err(&e))?;
                let note = format!(
                    "{} from start to exit; floor (mocked latency on its critical path) {}",
                    duration_text(t.wall_ms),
                    if t.floor_ms > 0.0 {
                        duration_text(t.floor_ms)
                    } else {
                        "none".into()
                    }
                );
                chart
                    .plotting_area()
                    .draw(
                        &(EmptyElement::at((0.0, y + 0.5))
                            + Text::new(note, (6, -7), font.clone().color(&BLACK))),
                    )
                    .map_err(|e| err(&e))?;
            }
            Line::Row(t, r) => {
                let row = &t.rows[*r];
                let colour = row_colour(&row.label);
                let (work_pad, wait_pad) = if row.label == "process" {
                    (0.4, 0.45)
                } else {
                    (0.15, 0.33)
                };
                chart
                    .draw_series(
                        row.bars
                            .iter()
                            .filter(|b| b.kind == BarKind::Work)
                            .map(|b| {
                                Rectangle::new(
                                    [
                                        (b.start_ms, y + work_pad),
                                        (
                                            b.end_ms.max(b.start_ms + x_max / 2000.0),
                                            y + 1.0 - work_pad,
                                        ),
                                    ],
                                    colour.filled(),
                                )
                            }),
                    )
                    .map_err(|e| err(&e))?;
                chart
                    .draw_series(
                        row.bars
                            .iter()
                            .filter(|b| b.kind == BarKind::Wait)
                            .map(|b| {
                                Rectangle::new(
                                    [
                                        (b.start_ms, y + wait_pad),
                                        (
                                            b.end_ms.max(b.start_ms + x_max / 2000.0),
                                            y + 1.0 - wait_pad,
                                        ),
                                    ],
                                    WAIT.mix(0.85).filled(),
                                )
                            }),
                    )
                    .map_err(|e| err(&e))?;
                let end = row.bars.iter().map(|b| b.end_ms).fold(0.0, f64::max);
                let note = if row.label == "process" {
                    duration_text(t.wall_ms)
                } else {
                    let busy = row.busy_ms();
                    let waiting = row.waiting_ms();
                    if waiting > 0.0 {
                        format!(
                            "{} ({} waiting)",
                            duration_text(busy.max(waiting)),
                            duration_text(waiting)
                        )
                    } else {
                        duration_text(busy)
                    }
                };
                chart
                    .plotting_area()
                    .draw(
                        &(EmptyElement::at((end, y + 0.5))
                            + Text::new(
                                note,
                                (5, -7),
                                font.clone().color(&RGBColor(0x55, 0x55, 0x55)),
                            )),
                    )
                    .map_err(|e| err(&e))?;
            }
        }
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

fn caption<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    super::title_block(area, title, subtitle)?;
    let font = ("sans-serif", 13).into_font();
    let y = 60;
    area.draw(&Rectangle::new(
        [(12, y - 6), (32, y + 6)],
        row_colour("gcp").filled(),
    ))?;
    area.draw(&Text::new(
        "the launcher at work: a span of its trace (colour: which phase or cloud)".to_string(),
        (40, y - 7),
        font.clone(),
    ))?;
    area.draw(&Rectangle::new([(600, y - 3), (620, y + 3)], WAIT.filled()))?;
    area.draw(&Text::new(
        "waiting on a mocked request (STS, EC2, Kubernetes, GCP)".to_string(),
        (628, y - 7),
        font,
    ))?;
    Ok(())
}
