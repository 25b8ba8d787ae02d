//! Rendering in one place, on the planner's top floor: every table and
//! message `sky` prints, from plain data. Nothing else in the planner
//! imports this module; it reads the data the lower layers return and the
//! leaf helpers of [`text`](crate::text) and [`pytext`](crate::pytext).
//!
//! One view per file: [`launch`] is a whole `sky launch` (header, notices,
//! tables, errors, timings), [`notices`] what the optimizer and the clouds
//! log before the tables, [`optimizer`] the optimizer's log with its plan
//! tables and instance hints, [`json`] the `-o json` plan document,
//! [`timings`] `--timings`, [`check`] the `sky check` report, [`gpus`]
//! `sky gpus list`, [`catalog`] `sky catalog refresh`, [`handoff`] the line before SkyPilot takes a confirmed launch, [`explain`]
//! `--explain`, [`overrides`] the
//! CLI overrides a multi-task YAML ignores (SkyPilot's dict text). Text carries
//! SkyPilot's ANSI colours; [`text::strip_ansi`](crate::text::strip_ansi)
//! removes them where colour is off.

pub mod catalog;
pub mod check;
pub mod explain;
pub mod gpus;
pub mod handoff;
pub mod json;
pub mod launch;
pub mod notices;
pub mod offers;
pub mod optimizer;
pub mod overrides;
pub mod pipeline;
pub mod timings;
