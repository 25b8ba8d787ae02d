//! Checks shared by the tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use quick_xml::events::Event;

/// Held by tests that time things and by tests that load the machine, so the
/// two kinds never run at the same time (cargo runs a binary's tests in parallel).
pub static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`TIMING`], ignoring poisoning by a failed test.
pub fn timing_lock() -> std::sync::MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Fails unless `path` is well-formed XML whose root element is `<svg>`.
pub fn assert_svg(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = quick_xml::Reader::from_str(&text);
    reader.config_mut().check_end_names = true;
    let mut depth = 0usize;
    let mut root = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                if depth == 0 {
                    root = Some(String::from_utf8_lossy(e.name().as_ref()).into_owned());
                }
                depth += 1;
            }
            Ok(Event::End(_)) => {
                depth = depth
                    .checked_sub(1)
                    .unwrap_or_else(|| panic!("{}: unbalanced end tag", path.display()));
            }
            Ok(Event::Empty(e)) if depth == 0 => {
                root = Some(String::from_utf8_lossy(e.name().as_ref()).into_owned());
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!(
                "{}: not well-formed XML at byte {}: {e}",
                path.display(),
                reader.error_position()
            ),
        }
    }
    assert_eq!(depth, 0, "{}: unclosed elements", path.display());
    assert_eq!(
        root.as_deref(),
        Some("svg"),
        "{}: root element",
        path.display()
    );
}

/// One async slice of a Chrome trace.
#[derive(Debug)]
pub struct Slice {
    pub name: String,
    pub id: u64,
    pub begin: f64,
    pub end: f64,
}

/// Parses a Chrome trace (JSON array format), checks every record's shape and
/// pairs async `b`/`e` events into slices.
pub fn chrome_slices(path: &Path) -> Vec<Slice> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    let events = v.as_array().expect("Chrome JSON array format");
    assert!(!events.is_empty(), "empty trace");
    let mut open: BTreeMap<(u64, String), f64> = BTreeMap::new();
    let mut slices = Vec::new();
    for e in events {
        let ph = e["ph"]
            .as_str()
            .unwrap_or_else(|| panic!("event without ph: {e}"));
        assert!(e["pid"].is_u64() && e["name"].is_string(), "bad event {e}");
        if ph == "M" {
            continue;
        }
        let ts = e["ts"]
            .as_f64()
            .unwrap_or_else(|| panic!("event without ts: {e}"));
        if ph == "b" || ph == "e" {
            let id = e["id"]
                .as_u64()
                .unwrap_or_else(|| panic!("async event without id: {e}"));
            let name = e["name"].as_str().unwrap_or_default().to_string();
            if ph == "b" {
                open.insert((id, name), ts);
            } else {
                let begin = open
                    .remove(&(id, name.clone()))
                    .unwrap_or_else(|| panic!("`e` without `b`: {e}"));
                assert!(ts >= begin, "slice ends before it begins: {e}");
                slices.push(Slice {
                    name,
                    id,
                    begin,
                    end: ts,
                });
            }
        }
    }
    assert!(open.is_empty(), "unclosed async slices: {open:?}");
    slices
}

/// For each `launch <mode>` slice: the cloud-check tracks inside it, cloud → ids.
pub fn tracks_per_launch(slices: &[Slice]) -> BTreeMap<String, BTreeMap<String, BTreeSet<u64>>> {
    let mut out = BTreeMap::new();
    for launch in slices.iter().filter(|s| s.name.starts_with("launch ")) {
        let mut clouds: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
        for s in slices.iter().filter(|s| {
            s.name.starts_with("cloud_check ") && s.begin >= launch.begin && s.end <= launch.end
        }) {
            let cloud = s.name.trim_start_matches("cloud_check ").to_string();
            clouds.entry(cloud).or_default().insert(s.id);
        }
        out.insert(launch.name.clone(), clouds);
    }
    out
}
