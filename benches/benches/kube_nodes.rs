//! `kubernetes/parse-node-pages-64`: `parse_node_page` of the 64 node lists
//! of scenario `64-contexts-50ms`; `kubernetes/encode-nodes-64`: the node
//! cache's encoding of their nodes (`to_raw_value`);
//! `kubernetes/read-kubeconfig-64`: that scenario's kubeconfig read and
//! parsed (`KubernetesCloud::load_kubeconfig`). All in thread CPU time.

use benches::budget::Budget;
use benches::clock::ThreadCpuTime;
use benches::ops::Op;
use benches::record_cpu_clock;
use criterion::Criterion;

/// The `kubernetes` group.
pub fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let mut g = c.benchmark_group("kubernetes");
    Budget::new(20, 300, 1000).apply(&mut g, "kubernetes/*", false);
    for (name, op) in [
        ("parse-node-pages-64", Op::ParseNodePages),
        ("encode-nodes-64", Op::EncodeNodes),
        ("read-kubeconfig-64", Op::ReadKubeconfig),
    ] {
        crate::record(record_cpu_clock(&op.id()));
        g.bench_function(name, |b| b.iter(|| op.run(crate::inputs())));
    }
    g.finish();
}
