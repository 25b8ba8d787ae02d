//! OCI's catalog is the tenancy's: `sky/catalog/oci_catalog.py::_get_df`
//! lists the tenancy's region subscriptions once and keeps only the
//! `vms.csv` rows of subscribed regions (`df[df['Region'].isin(...)]`), for
//! every query that follows (instance types, regions, prices, defaults,
//! `validate_region_zone`'s list of regions). An empty or failed listing
//! keeps the whole catalog.

use super::CloudCatalog;
use crate::check::OciFacts;

impl CloudCatalog {
    /// Keeps the rows whose region is one of `regions` (exact, case-sensitive
    /// match, as pandas' `isin`), in file order. An empty list keeps every
    /// row: SkyPilot filters only `if subscribed_regions:`.
    pub fn retain_regions(&mut self, regions: &[String]) {
        if regions.is_empty() {
            return;
        }
        self.retain_partial_regions(|region| regions.iter().any(|r| r == region));
        let before = self.rows.len();
        self.rows
            .retain(|row| regions.iter().any(|r| *r == *row.region));
        if self.rows.len() != before {
            self.rows_changed();
        }
    }
}

/// Restricts OCI's catalog to the subscribed regions in `facts`.
pub fn apply_subscriptions(catalog: &mut CloudCatalog, facts: &OciFacts) {
    catalog.retain_regions(&facts.subscribed_regions);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::CloudId;

    const CSV: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\r\n\
        VM.Standard.E4.Flex$_8_32,,,8,32,,0.148,0.074,af-casablanca-1,AF-CASABLANCA-1-AD-1\r\n\
        VM.GPU3.1,V100,1,12,90,,2.95,1.475,af-casablanca-1,AF-CASABLANCA-1-AD-1\r\n\
        VM.Standard.E4.Flex$_8_32,,,8,32,,0.148,0.074,us-chicago-1,US-CHICAGO-1-AD-1\r\n\
        VM.GPU3.1,V100,1,12,90,,2.95,1.475,us-chicago-1,US-CHICAGO-1-AD-2\r\n";

    fn catalog() -> CloudCatalog {
        CloudCatalog::from_bytes(CloudId::Oci, CSV.as_bytes(), "oci/vms.csv")
            .unwrap()
            .0
    }

    fn regions(cat: &CloudCatalog) -> Vec<String> {
        cat.rows.iter().map(|r| r.region.to_string()).collect()
    }

    #[test]
    fn only_subscribed_regions_stay_and_the_index_follows() {
        let mut cat = catalog();
        // Build the index first: filtering must rebuild it.
        assert_eq!(cat.instance_rows("VM.GPU3.1").count(), 2);
        apply_subscriptions(
            &mut cat,
            &OciFacts {
                subscribed_regions: vec!["us-chicago-1".into(), "us-ashburn-1".into()],
                unavailable: None,
            },
        );
        assert_eq!(regions(&cat), ["us-chicago-1", "us-chicago-1"]);
        assert_eq!(cat.instance_rows("VM.GPU3.1").count(), 1);
        assert_eq!(cat.all_regions_lower(), ["us-chicago-1"]);
    }

    #[test]
    fn an_empty_or_foreign_list_behaves_as_skypilot() {
        let mut cat = catalog();
        cat.retain_regions(&[]);
        assert_eq!(cat.rows.len(), 4);
        // Region names are compared exactly, as `isin` does.
        cat.retain_regions(&["US-CHICAGO-1".into()]);
        assert!(cat.rows.is_empty());
    }
}
