//! The CLI's order of one GPU's offers (`_show_gpus_impl`) and `--sort-by`.

use super::Offer;
use super::listing::nan_last;

/// The CLI's order of one GPU's offers (`_show_gpus_impl`): clouds by their
/// cheapest on-demand then spot price, then each offer by price and spot
/// price; stable, missing prices last.
pub fn order_for_table(offers: Vec<Offer>) -> Vec<Offer> {
    // Each cloud's cheapest on-demand and spot price, found once (a GPU's
    // offers come from a few clouds; `--all` lists ~1,000 offers).
    let mut mins: Vec<(&str, f64, f64)> = Vec::new();
    let lower = |m: f64, v: Option<f64>| match v {
        Some(v) if m.is_nan() || v < m => v,
        _ => m,
    };
    for o in &offers {
        let i = match mins.iter().position(|(c, _, _)| *c == o.cloud) {
            Some(i) => i,
            None => {
                mins.push((o.cloud, f64::NAN, f64::NAN));
                mins.len() - 1
            }
        };
        let (_, price, spot) = &mut mins[i];
        *price = lower(*price, o.price.get());
        *spot = lower(*spot, o.spot_price.get());
    }
    let min_of = |cloud: &str| {
        mins.iter()
            .find(|(c, _, _)| *c == cloud)
            .map_or((f64::NAN, f64::NAN), |&(_, p, s)| (p, s))
    };
    // Sorted by key and position (the offers themselves are moved once).
    let keys: Vec<[f64; 4]> = offers
        .iter()
        .map(|o| {
            let (price, spot) = min_of(o.cloud);
            [price, spot, o.price.value, o.spot_price.value]
        })
        .collect();
    let mut by: Vec<usize> = (0..offers.len()).collect();
    by.sort_by(|&a, &b| {
        let (a, b) = (&keys[a], &keys[b]);
        nan_last(a[0], b[0])
            .then_with(|| nan_last(a[1], b[1]))
            .then_with(|| nan_last(a[2], b[2]))
            .then_with(|| nan_last(a[3], b[3]))
    });
    let mut slots: Vec<Option<Offer>> = offers.into_iter().map(Some).collect();
    by.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// How `--sort-by` orders one GPU's offers (our extension, upstream #3111).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    /// SkyPilot's order ([`order_for_table`]).
    Cloud,
    /// Cheapest on-demand price first, across clouds.
    Price,
    /// Cheapest spot price first, across clouds (no spot price: last).
    Spot,
}

/// Orders one GPU's offers for the table.
pub fn order(offers: Vec<Offer>, sort: SortBy) -> Vec<Offer> {
    let mut out = order_for_table(offers);
    match sort {
        SortBy::Cloud => {}
        SortBy::Price => out.sort_by(|a, b| {
            nan_last(a.price.value, b.price.value)
                .then_with(|| nan_last(a.spot_price.value, b.spot_price.value))
        }),
        SortBy::Spot => out.sort_by(|a, b| {
            nan_last(a.spot_price.value, b.spot_price.value)
                .then_with(|| nan_last(a.price.value, b.price.value))
        }),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpus::Num;

    #[test]
    fn table_order_groups_clouds_by_their_cheapest_offer() {
        let mk = |cloud, price: f64| Offer {
            cloud,
            instance_type: Some("t".into()),
            accelerator_name: "X".into(),
            accelerator_count: 1.0,
            cpu_count: Num::MISSING,
            device_memory: None,
            memory: Num::MISSING,
            price: Num::float(price),
            spot_price: Num::MISSING,
            region: None,
        };
        let offers = vec![mk("A", 5.0), mk("A", 1.0), mk("B", 2.0)];
        let o = order_for_table(offers.clone());
        let got: Vec<(&str, f64)> = o.iter().map(|o| (o.cloud, o.price.value)).collect();
        assert_eq!(got, vec![("A", 1.0), ("A", 5.0), ("B", 2.0)]);
        let o = order(offers, SortBy::Price);
        let got: Vec<f64> = o.iter().map(|o| o.price.value).collect();
        assert_eq!(got, vec![1.0, 2.0, 5.0]);
    }
}
