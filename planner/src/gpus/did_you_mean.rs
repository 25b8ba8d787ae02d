//! "Did you mean": close accelerator names for a GPU that matched nothing
//! (ours; SkyPilot says only that it was not found).

use super::CloudGpuRows;

/// Every accelerator name the catalogs offer (for "did you mean").
pub fn accelerator_names(catalogs: &[&CloudGpuRows]) -> Vec<String> {
    let mut names: Vec<String> = catalogs
        .iter()
        .flat_map(|c| c.rows())
        .filter(|r| r.gpu_info.is_some())
        .filter_map(|r| r.accelerator_name.map(str::to_string))
        .collect();
    // A catalog read through its summary has no rows: the summary keeps them.
    names.extend(
        catalogs
            .iter()
            .filter_map(|c| c.summary.as_ref())
            .flat_map(|s| s.names.iter().cloned()),
    );
    names.sort();
    names.dedup();
    names
}

/// Close accelerator names for an unknown one: `difflib.get_close_matches`
/// (n=5, cutoff 0.6) on the upper-cased names, sorted — the rule SkyPilot's
/// catalog uses for regions (`common.py::validate_region_zone_impl`).
pub fn suggestions(name: &str, names: &[String]) -> Vec<String> {
    let upper: Vec<String> = names.iter().map(|n| n.to_uppercase()).collect();
    let close = crate::pytext::difflib::close_matches(
        &name.to_uppercase(),
        upper.iter().map(String::as_str),
        5,
        0.6,
    );
    let mut out: Vec<String> = close
        .iter()
        .filter_map(|c| upper.iter().position(|u| u == c).map(|i| names[i].clone()))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean() {
        let names = vec!["H100".to_string(), "H200".to_string(), "A100".to_string()];
        let s = suggestions("h1000", &names);
        assert!(s.contains(&"H100".to_string()), "{s:?}");
    }
}
