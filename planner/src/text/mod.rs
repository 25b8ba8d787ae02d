//! The leaf text helpers: what SkyPilot's terminal output is made of,
//! below every module that says something. Colorama's ANSI codes and the
//! width of coloured text ([`ansi`]), prettytable's two layouts
//! ([`table`]), and the small formats of numbers and ages ([`format`](mod@format)).
//!
//! It imports nothing of the planner but [`pytext`](crate::pytext) (Python's
//! own text forms, kept apart: that folder reproduces Python's standard
//! library, this one the terminal libraries SkyPilot prints through and its
//! own formatting helpers). Anything may use both: `render` for what `sky`
//! prints, and the lower layers for the text of SkyPilot's exceptions,
//! which SkyPilot builds where it raises them.

pub mod ansi;
pub mod format;
pub mod table;

pub use ansi::{display_width, strip_ansi};
pub use format::{ago, format_number};
pub use table::{borderless_table, framed_table};
