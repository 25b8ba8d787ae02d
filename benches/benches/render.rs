//! `render/framed-table`: the "Considered resources" table of an H100:8
//! plan across all clouds (prettytable layout, display widths), in thread
//! CPU time.

use std::time::Duration;

use benches::clock::ThreadCpuTime;
use benches::ops::Op;
use benches::record_cpu_clock;
use criterion::Criterion;

/// The `render` group.
pub fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let mut g = c.benchmark_group("render");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1));
    crate::record(record_cpu_clock(&Op::Render.id()));
    g.bench_function("framed-table", |b| {
        b.iter(|| Op::Render.run(crate::inputs()))
    });
    g.finish();
}
