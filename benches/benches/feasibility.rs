//! `feasibility/<cloud>/<request>`: one cloud's `feasible_resources` for
//! H100:8, T4 and the default CPU request; `optimize/<request>`: the whole
//! pure core (enumeration over every enabled cloud, costs, table rows).
//! Both in thread CPU time.

use benches::budget::Budget;
use benches::clock::ThreadCpuTime;
use benches::ops::{KUBE64_NAME, Op, REQUESTS, feasibility_clouds};
use benches::record_cpu_clock;
use criterion::{BenchmarkId, Criterion};

/// The `feasibility` and `optimize` groups.
pub fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let mut g = c.benchmark_group("feasibility");
    Budget::new(20, 300, 1000).apply(&mut g, "feasibility/*", false);
    for cloud in feasibility_clouds() {
        for r in REQUESTS {
            let op = Op::Feasibility(cloud, r);
            crate::record(record_cpu_clock(&op.id()));
            g.bench_function(BenchmarkId::new(cloud.name(), r.name), |b| {
                b.iter(|| op.run(crate::inputs()))
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("optimize");
    Budget::new(20, 500, 2000).apply(&mut g, "optimize/*", false);
    for r in REQUESTS {
        let op = Op::Optimize(r);
        crate::record(record_cpu_clock(&op.id()));
        g.bench_function(r.name, |b| b.iter(|| op.run(crate::inputs())));
    }
    let op = Op::OptimizeKube64;
    crate::record(record_cpu_clock(&op.id()));
    g.bench_function(KUBE64_NAME, |b| b.iter(|| op.run(crate::inputs())));
    g.finish();
}
