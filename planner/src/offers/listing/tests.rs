use super::*;
use crate::cloud::CloudId;

fn offer(
    cloud: CloudId,
    it: &str,
    region: &str,
    gpu: Option<(&str, f64, f64)>,
    price: f64,
) -> Offer {
    Offer {
        cloud,
        instance_type: it.into(),
        region: Some(region.into()),
        zone: None,
        accelerator: gpu.map(|g| g.0.into()),
        accelerator_count: gpu.map(|g| g.1),
        gpu_memory_gb: gpu.map(|g| g.2),
        use_spot: false,
        vcpus: Some(price * 2.0),
        memory_gb: Some(100.0 - price),
        num_nodes: 1,
        price,
        request_index: 0,
    }
}

fn sample() -> Vec<Offer> {
    vec![
        offer(
            CloudId::Aws,
            "a8",
            "us-east-1",
            Some(("H100", 8.0, 80.0)),
            40.0,
        ),
        offer(
            CloudId::Aws,
            "a1",
            "us-east-1",
            Some(("H100", 1.0, 80.0)),
            6.0,
        ),
        offer(
            CloudId::Gcp,
            "g1",
            "us-central1",
            Some(("A100", 1.0, 40.0)),
            3.0,
        ),
        offer(
            CloudId::Gcp,
            "g1",
            "europe-west4",
            Some(("A100", 1.0, 40.0)),
            3.5,
        ),
        offer(
            CloudId::Azure,
            "z2",
            "eastus",
            Some(("H100", 2.0, 80.0)),
            10.0,
        ),
        offer(CloudId::Azure, "cpu", "eastus", None, 0.5),
    ]
}

fn names(l: &Listing<'_>) -> Vec<String> {
    l.offers
        .iter()
        .map(|o| format!("{}@{}", o.instance_type, o.region.as_deref().unwrap_or("")))
        .collect()
}

#[test]
fn default_is_cheapest_first_capped_with_the_totals() {
    let offers = sample();
    let l = select(
        &offers,
        &Query {
            max_offers: 3,
            ..Query::default()
        },
    );
    assert_eq!(
        names(&l),
        ["cpu@eastus", "g1@us-central1", "g1@europe-west4"]
    );
    assert_eq!((l.enumerated, l.matched), (6, 6));
    assert_eq!(l.price_range, Some((0.5, 40.0)));
}

#[test]
fn each_sort_key_and_desc() {
    let offers = sample();
    let cases: [(SortKey, bool, &[&str]); 6] = [
        (SortKey::Price, true, &["a8", "z2", "a1", "g1", "g1", "cpu"]),
        // $/GPU-h: a8 5, z2 5, a1 6, g1 3/3.5; no GPU last.
        (
            SortKey::GpuPrice,
            false,
            &["g1", "g1", "z2", "a8", "a1", "cpu"],
        ),
        (SortKey::Vcpus, true, &["a8", "z2", "a1", "g1", "g1", "cpu"]),
        (
            SortKey::Memory,
            true,
            &["cpu", "g1", "g1", "a1", "z2", "a8"],
        ),
        (
            SortKey::GpuMemory,
            true,
            &["a8", "z2", "a1", "g1", "g1", "cpu"],
        ),
        (
            SortKey::GpuMemory,
            false,
            &["g1", "g1", "a1", "z2", "a8", "cpu"],
        ),
    ];
    for (sort, desc, want) in cases {
        let l = select(
            &offers,
            &Query {
                sort,
                desc,
                ..Query::default()
            },
        );
        let got: Vec<&str> = l.offers.iter().map(|o| o.instance_type.as_str()).collect();
        assert_eq!(got, want, "{sort:?} desc={desc}");
    }
}

#[test]
fn filters_leave_offers_out_before_the_count() {
    let offers = sample();
    let q = |filters| Query {
        filters,
        ..Query::default()
    };
    let l = select(
        &offers,
        &q(Filters {
            max_price: Some(6.0),
            ..Filters::default()
        }),
    );
    assert_eq!(l.matched, 4);
    assert_eq!(l.price_range, Some((0.5, 6.0)));
    let l = select(
        &offers,
        &q(Filters {
            min_gpu_memory_gb: Some(80.0),
            ..Filters::default()
        }),
    );
    assert_eq!(names(&l), ["a1@us-east-1", "z2@eastus", "a8@us-east-1"]);
    let l = select(
        &offers,
        &q(Filters {
            min_total_gpu_memory_gb: Some(160.0),
            ..Filters::default()
        }),
    );
    assert_eq!(names(&l), ["z2@eastus", "a8@us-east-1"]);
    let l = select(
        &offers,
        &q(Filters {
            max_price: Some(0.1),
            ..Filters::default()
        }),
    );
    assert_eq!((l.matched, l.price_range), (0, None));
}

#[test]
fn groups_count_range_and_cheapest() {
    let offers = sample();
    let q = |group_by| Query {
        group_by: Some(group_by),
        ..Query::default()
    };
    let l = select(&offers, &q(GroupBy::Gpu));
    let got: Vec<(String, usize, f64, f64, &str)> = l
        .groups
        .iter()
        .map(|g| {
            (
                g.key.clone(),
                g.count,
                g.min_price,
                g.max_price,
                g.cheapest.instance_type.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("-".to_string(), 1, 0.5, 0.5, "cpu"),
            ("A100".to_string(), 2, 3.0, 3.5, "g1"),
            ("H100".to_string(), 3, 6.0, 40.0, "a1"),
        ]
    );
    assert!(l.offers.is_empty());
    let keys = |by| -> Vec<String> {
        select(&offers, &q(by))
            .groups
            .into_iter()
            .map(|g| g.key)
            .collect()
    };
    assert_eq!(keys(GroupBy::Cloud), ["Azure", "GCP", "AWS"]);
    assert_eq!(
        keys(GroupBy::Region),
        [
            "Azure/eastus",
            "GCP/us-central1",
            "GCP/europe-west4",
            "AWS/us-east-1"
        ]
    );
    assert_eq!(keys(GroupBy::Count), ["-", "1", "2", "8"]);
    let capped = select(
        &offers,
        &Query {
            max_offers: 2,
            ..q(GroupBy::Count)
        },
    );
    assert_eq!(capped.shown_groups().len(), 2);
    assert_eq!(capped.groups.len(), 4);
}
