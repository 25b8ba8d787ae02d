//! The report's plots, drawn with plotters' SVG backend (no font files, no
//! bitmaps: text stays text, so GitHub shows the SVGs inline and a browser
//! opens them offline):
//!
//! * [`timeline`]: where each mode's launch spent its time, one row per
//!   cloud check and phase, on a shared time axis (and one zoomed SVG per
//!   mode on its own axis);
//! * [`distribution`]: every measured launch's wall time per mode and
//!   engine on a log axis, with the median, p90 and floor marked.
//!
//! Output is deterministic (fixed sizes, colours from names, no timestamps).

pub mod distribution;
pub mod timeline;

use plotters::style::RGBColor;

use crate::error::HarnessError;

/// A duration for a label: `850 µs`, `12.3 ms`, `1.24 s`.
pub fn duration_text(ms: f64) -> String {
    if ms == 0.0 {
        "0 ms".into()
    } else if ms < 1.0 {
        format!("{:.0} µs", ms * 1000.0)
    } else if ms < 100.0 {
        format!("{ms:.1} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// A round axis value: `1 ms`, `10 ms`, `1 s`, `100 s` (and `0.5 ms`).
pub fn axis_text(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{} s", trim_number(ms / 1000.0))
    } else {
        format!("{} ms", trim_number(ms))
    }
}

fn trim_number(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Colour of `sky`'s points and bars.
pub const SKY: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// Colour of SkyPilot's points and bars.
pub const SKYPILOT: RGBColor = RGBColor(0xe3, 0x6c, 0x0a);
/// Colour of the mocked waits.
pub const WAIT: RGBColor = RGBColor(0x30, 0x30, 0x30);

/// A stable colour for a row label (cloud names get their own).
pub fn row_colour(label: &str) -> RGBColor {
    match label {
        "process" => RGBColor(0xc8, 0xc8, 0xc8),
        "start-up" => RGBColor(0x9e, 0x9e, 0x9e),
        "aws" => RGBColor(0xff, 0x99, 0x00),
        "gcp" => RGBColor(0x42, 0x85, 0xf4),
        "kubernetes" => RGBColor(0x32, 0x6c, 0xe5),
        "azure" => RGBColor(0x00, 0x9f, 0xd4),
        "catalogs" => RGBColor(0xa8, 0x6c, 0xc1),
        "plan & print" => RGBColor(0x4c, 0xaf, 0x50),
        other => {
            // FNV-1a over the name: the same label, the same colour, everywhere.
            let h = other.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            RGBColor(
                0x60 + (h & 0x7f) as u8,
                0x60 + ((h >> 8) & 0x7f) as u8,
                0x60 + ((h >> 16) & 0x7f) as u8,
            )
        }
    }
}

/// A plot's title (bold) and its grey subtitle line, top left: the
/// heading the timeline and the distribution share.
pub(crate) fn title_block<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    subtitle: &str,
) -> std::result::Result<(), plotters::prelude::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    area.draw(&Text::new(
        title.to_string(),
        (12, 8),
        ("sans-serif", 20).into_font().style(FontStyle::Bold),
    ))?;
    area.draw(&Text::new(
        subtitle.to_string(),
        (12, 32),
        ("sans-serif", 13)
            .into_font()
            .color(&RGBColor(0x55, 0x55, 0x55)),
    ))?;
    Ok(())
}

/// A plotters failure as a report error naming the file.
pub(crate) fn plot_error(path: &std::path::Path, e: impl std::fmt::Display) -> HarnessError {
    HarnessError::Render {
        what: path.display().to_string(),
        detail: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration_text(0.25), "250 µs");
        assert_eq!(duration_text(7.04), "7.0 ms");
        assert_eq!(duration_text(350.4), "350 ms");
        assert_eq!(duration_text(3210.0), "3.21 s");
        assert_eq!(row_colour("some-cloud"), row_colour("some-cloud"));
        assert_eq!(axis_text(10000.0), "10 s");
        assert_eq!(axis_text(0.5), "0.5 ms");
        assert_eq!(axis_text(100.0), "100 ms");
    }
}

#[cfg(test)]
mod render_tests {
    use crate::engine::Mode;
    use crate::timeline::{Bar, BarKind, LaunchTimeline, Row};

    fn bar(s: f64, e: f64, kind: BarKind) -> Bar {
        Bar {
            start_ms: s,
            end_ms: e,
            kind,
            what: "x".into(),
        }
    }

    pub(crate) fn sample_timelines() -> Vec<LaunchTimeline> {
        let ours = LaunchTimeline {
            mode: Mode::Concurrent,
            wall_ms: 1840.0,
            floor_ms: 1800.0,
            rows: vec![
                Row {
                    label: "process".into(),
                    bars: vec![bar(0.0, 1840.0, BarKind::Work)],
                },
                Row {
                    label: "start-up".into(),
                    bars: vec![bar(0.0, 3.0, BarKind::Work)],
                },
                Row {
                    label: "aws".into(),
                    bars: vec![
                        bar(4.0, 1290.0, BarKind::Work),
                        bar(5.0, 1005.0, BarKind::Wait),
                        bar(1006.0, 1206.0, BarKind::Wait),
                        bar(1207.0, 1287.0, BarKind::Wait),
                    ],
                },
                Row {
                    label: "gcp".into(),
                    bars: vec![
                        bar(4.0, 1810.0, BarKind::Work),
                        bar(5.0, 105.0, BarKind::Wait),
                        bar(106.0, 1806.0, BarKind::Wait),
                    ],
                },
                Row {
                    label: "catalogs".into(),
                    bars: vec![bar(4.0, 40.0, BarKind::Work)],
                },
                Row {
                    label: "plan & print".into(),
                    bars: vec![bar(1812.0, 1838.0, BarKind::Work)],
                },
            ],
        };
        let warm = LaunchTimeline {
            mode: Mode::Warm,
            wall_ms: 7.0,
            floor_ms: 0.0,
            rows: vec![Row {
                label: "process".into(),
                bars: vec![bar(0.0, 7.0, BarKind::Work)],
            }],
        };
        let sp = LaunchTimeline {
            mode: Mode::SkyPilot,
            wall_ms: 9400.0,
            floor_ms: 4200.0,
            rows: vec![
                Row {
                    label: "process".into(),
                    bars: vec![bar(0.0, 9400.0, BarKind::Work)],
                },
                Row {
                    label: "start-up".into(),
                    bars: vec![bar(0.0, 3100.0, BarKind::Work)],
                },
                Row {
                    label: "aws".into(),
                    bars: vec![
                        bar(3300.0, 6900.0, BarKind::Work),
                        bar(4000.0, 5000.0, BarKind::Wait),
                    ],
                },
                Row {
                    label: "gcp".into(),
                    bars: vec![
                        bar(3310.0, 3400.0, BarKind::Work),
                        bar(7000.0, 8800.0, BarKind::Work),
                        bar(7010.0, 8710.0, BarKind::Wait),
                    ],
                },
            ],
        };
        vec![ours, warm, sp]
    }

    #[test]
    fn plots_render_to_files() {
        let dir = std::env::var("HARNESS_PLOT_DEBUG_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| std::env::temp_dir());
        let t = sample_timelines();
        super::timeline::draw(
            &t,
            "Where each launch spends its time",
            "scenario · rev",
            None,
            &dir.join("t.svg"),
        )
        .unwrap();
        let series: Vec<super::distribution::Series> = t
            .iter()
            .map(|l| super::distribution::Series {
                mode: l.mode,
                wall_ms: (0..10)
                    .map(|i| l.wall_ms * (1.0 + i as f64 / 50.0))
                    .collect(),
                floor_ms: l.floor_ms,
            })
            .collect();
        super::distribution::draw(
            &series,
            "Wall time of every launch",
            "10 runs per mode",
            &dir.join("d.svg"),
        )
        .unwrap();
    }
}
