//! What SkyPilot prints through Python's standard library, reproduced so that
//! messages and tables match byte for byte: string and number formats
//! ([`format`](mod@format)), `json.dumps`' string literals ([`json`]),
//! `difflib.get_close_matches` ([`difflib`]), `textwrap.wrap`
//! ([`textwrap`]) and `ast.literal_eval` of catalog cells ([`pylit`]).

pub mod difflib;
pub mod format;
pub mod json;
pub mod pylit;
pub mod textwrap;

pub use difflib::{close_matches, sequence_ratio};
pub use format::{
    format_fixed, format_float, py_float_str, py_list, py_num, py_repr_list, py_str_repr,
};
pub use json::py_json_str;
pub use textwrap::wrap;
