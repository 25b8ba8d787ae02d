//! `catalog/*`: `load_catalog` of the bundled CSVs (parse + index), all seven
//! catalog clouds together (parsed on scoped threads) and AWS alone; and the
//! seven loaded from their pre-indexed images, as launches after the first do.

use std::time::Duration;

use benches::ops::Op;
use criterion::Criterion;

/// The `catalog` group.
pub fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("catalog");
    g.sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (name, op) in [
        ("load-all-7", Op::LoadAll),
        ("load-aws", Op::LoadAws),
        ("load-all-7-indexed", Op::LoadAllIndexed),
    ] {
        g.bench_function(name, |b| b.iter(|| op.run(crate::inputs())));
    }
    g.finish();
}
