//! `render/framed-table`: the "Considered resources" table of an H100:8
//! plan across all clouds (prettytable layout, display widths), in thread
//! CPU time.

use benches::budget::Budget;
use benches::clock::ThreadCpuTime;
use benches::ops::Op;
use benches::record_cpu_clock;
use criterion::Criterion;

/// The `render` group.
pub fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let mut g = c.benchmark_group("render");
    Budget::new(20, 500, 1000).apply(&mut g, "render/framed-table", false);
    crate::record(record_cpu_clock(&Op::Render.id()));
    g.bench_function("framed-table", |b| {
        b.iter(|| Op::Render.run(crate::inputs()))
    });
    g.finish();
}
