//! Integration tests of the harness: report files, trace and SVG shape, the
//! overhead measurement, scenarios, standalone mocks.

mod overhead;
mod report;
mod scenarios;
mod skypilot;
mod util;
