//! `catalog/*`: `load_catalog` of the bundled CSVs (parse + index), all seven
//! catalog clouds together (parsed on scoped threads) and AWS alone; and the
//! seven loaded from their pre-indexed images, as launches after the first do.

use benches::budget::Budget;
use benches::ops::Op;
use criterion::Criterion;

/// The `catalog` group.
pub fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("catalog");
    Budget::new(30, 1000, 3000).apply(&mut g, "catalog/*", false);
    for (name, op) in [
        ("load-all-7", Op::LoadAll),
        ("load-aws", Op::LoadAws),
        ("load-all-7-indexed", Op::LoadAllIndexed),
    ] {
        g.bench_function(name, |b| b.iter(|| op.run(crate::inputs())));
    }
    g.finish();
}
