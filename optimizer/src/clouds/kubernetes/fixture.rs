//! Offline mode: node and pod listings read from `NodeList` / `PodList`
//! files instead of API servers, for tests, benchmarks and demos without a
//! cluster.

use std::path::Path;

use planner::catalog::kubernetes::{
    KubeContext, parse_node_list, parse_pod_list, unreachable_api_message,
    unreachable_timeout_message,
};
use planner::gpus::kubernetes::Pods;

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
            let nodes = match std::fs::read(&json) {
                Ok(bytes) => parse_node_list(&bytes)
                    .map_err(|e| unreachable_api_message(name, &e.to_string())),
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

/// Offline mode: a context's pods from `<dir>/<context>.pods.json` (a
/// `PodList`, filtered by phase as the API server's field selector does);
/// `<dir>/<context>.pods.forbidden` answers 403; neither: no pods.
pub fn pods_from_fixture_dir(dir: &Path, context: &str) -> Pods {
    let stem = context.replace('/', "_");
    if dir.join(format!("{stem}.pods.forbidden")).exists() {
        return Pods::Forbidden;
    }
    match std::fs::read(dir.join(format!("{stem}.pods.json"))) {
        Err(_) => Pods::Listed(Vec::new()),
        Ok(bytes) => match parse_pod_list(&bytes) {
            Ok(pods) => Pods::Listed(pods),
            Err(e) => Pods::Failed(
                unreachable_api_message(context, &e.to_string())
                    .replace("get node info", "get pod info")
                    .replace("kubectl get nodes", "kubectl get pods"),
            ),
        },
    }
}
