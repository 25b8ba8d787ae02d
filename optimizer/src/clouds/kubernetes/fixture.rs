//! Offline mode: node listings read from `NodeList` files instead of API
//! servers, for tests, benchmarks and demos without a cluster.

use std::path::Path;

use planner::catalog::kubernetes::{
    KubeContext, parse_node_list, unreachable_api_message, unreachable_timeout_message,
};

use super::listing::{list_nodes_span, record_outcome};

/// Offline mode: each context's nodes from `<dir>/<context>.json` (a
/// `NodeList` as `kubectl get nodes -o json` prints it; `/` in a context
/// name becomes `_`). A missing file makes that context unreachable with
/// SkyPilot's timeout message, unless `<dir>/<context>.error` exists, whose
/// text is then the error; an unparsable file gives the API-error message.
pub fn contexts_from_fixture_dir(dir: &Path, contexts: &[String]) -> Vec<KubeContext> {
    contexts
        .iter()
        .map(|name| {
            let span = list_nodes_span(name);
            let _entered = span.enter();
            let stem = name.replace('/', "_");
            let json = dir.join(format!("{stem}.json"));
            let nodes = match std::fs::File::open(&json) {
                Ok(file) => {
                    parse_node_list(file).map_err(|e| unreachable_api_message(name, &e.to_string()))
                }
                Err(_) => match std::fs::read_to_string(dir.join(format!("{stem}.error"))) {
                    Ok(text) => Err(text.trim().to_string()),
                    Err(_) => Err(unreachable_timeout_message(name)),
                },
            };
            record_outcome(&nodes, "fixture");
            KubeContext {
                name: name.clone(),
                nodes,
            }
        })
        .collect()
}
