//! Tests of the row parser: numbers, integer cells, field comparison,
//! malformed rows, trimming, `HostingType`, fields taken from the row
//! above.

use super::*;
use crate::catalog::{CloudCatalog, Schema};
use crate::cloud::CloudId;

const HEADER: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n";

/// A xorshift generator from `seed`: the tests' random cells, the same on
/// every run.
fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[test]
fn plain_decimals_parse_to_the_same_f64_as_str_parse() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15_u64);
    let mut cases: Vec<String> = [
        "0",
        "0.0",
        "1.0",
        "0.1",
        "3.06",
        "17.15",
        "98.32",
        "0.0001",
        "123456789012345",
        "12345678901234.5",
        "0.000000000000001",
        "2.675",
        "007.50",
        "1.",
        ".5",
        "1e3",
        "-1",
        "1.2.3",
        "1234567890123456",
        "inf",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..20_000 {
        let int_digits = 1 + next() % 9;
        let frac_digits = next() % 8;
        let mut text = (0..int_digits)
            .map(|_| char::from(b'0' + (next() % 10) as u8))
            .collect::<String>();
        if frac_digits > 0 {
            text.push('.');
            text.extend((0..frac_digits).map(|_| char::from(b'0' + (next() % 10) as u8)));
        }
        cases.push(text);
    }
    cases.extend(
        [
            "1.",
            "12.",
            "..",
            "1..",
            "1234567890123456",
            "123456789012345.6",
            "+5",
            "-5",
            "00000000000000001",
            "9999999999999999",
            ".",
            "1.2.",
            "12a",
        ]
        .map(String::from),
    );
    let mut fast = 0;
    for case in &cases {
        // The one-pass reading agrees with both readings, bit for bit.
        let (integer, plain) = integer_and_plain(case.as_bytes());
        assert_eq!(integer, is_integer(case.as_bytes()), "{case}");
        assert_eq!(
            plain.map(f64::to_bits),
            plain_decimal(case.as_bytes()).map(f64::to_bits),
            "{case}"
        );
        if let Some(v) = plain_decimal(case.as_bytes()) {
            fast += 1;
            assert_eq!(
                v.to_bits(),
                case.parse::<f64>().unwrap().to_bits(),
                "{case}"
            );
        }
    }
    assert!(fast > 19_000, "only {fast} took the fast path");
    for refused in [".5", "1e3", "-1", "1.2.3", "1234567890123456", "inf", ""] {
        assert_eq!(plain_decimal(refused.as_bytes()), None, "{refused}");
    }
}

#[test]
fn integer_cells_are_those_i64_parses_and_fields_compare_as_bytes() {
    for cell in [
        "0",
        "7",
        "+5",
        "-0",
        "-12",
        "007",
        "",
        "+",
        "-",
        "+-5",
        "1.0",
        "1e3",
        " 1",
        "١",
        "999999999999999999",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "12345678901234567890",
    ] {
        let want = !cell.is_empty() && cell.parse::<i64>().is_ok();
        assert_eq!(is_integer(cell.as_bytes()), want, "{cell:?}");
    }
    let long = "{'Gpus': [{'Name': 'H100', 'Count': 8}], 'TotalGpuMemoryInMiB': 655360}";
    for (a, b) in [
        ("", ""),
        ("a", "a"),
        ("a", "b"),
        ("abcdefgh", "abcdefgh"),
        (long, long),
    ] {
        assert_eq!(
            same_bytes(a.as_bytes(), b.as_bytes()),
            a == b,
            "{a:?} {b:?}"
        );
    }
    // Every length, every byte changed: unequal; the same bytes: equal,
    // and so are their keys (while a field fits one).
    for len in 0..=long.len() {
        let a = &long.as_bytes()[..len];
        assert!(same_bytes(a, a));
        assert_eq!(number_key(a).is_some(), len <= 16);
        for i in 0..len {
            let mut other = a.to_vec();
            other[i] ^= 1;
            assert!(!same_bytes(a, &other), "len {len}, byte {i}");
            if len <= 16 {
                assert_ne!(number_key(a), number_key(&other), "len {len}, byte {i}");
            }
        }
        assert!(!same_bytes(long.as_bytes(), a) || len == long.len());
    }
    assert_ne!(number_key(b"1"), number_key(b"1\0"));
}

#[test]
fn malformed_rows_are_skipped_with_file_and_line() {
    let csv = format!(
        "{HEADER}m6i.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\nbad.row,,,two,8,,0.1,,us-east-1,use1-az1,x86_64\np3.2xlarge,V100,1,8,61,,3.06,0.9,us-east-1,use1-az2,x86_64\n,,,,,,,,,,\n"
    );
    let (cat, warnings) =
        CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws/vms.csv").unwrap();
    assert_eq!(cat.rows.len(), 2);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].line, 3);
    assert!(
        warnings[0]
            .to_string()
            .starts_with("aws/vms.csv:3: skipped malformed row: vCPUs is not a number"),
        "{}",
        warnings[0]
    );
    assert_eq!(warnings[1].line, 5);
    assert_eq!(cat.schema, Schema::V8);
    assert_eq!(
        cat.accelerator_of("p3.2xlarge"),
        Some(("V100".to_string(), 1.0))
    );
}

#[test]
fn bad_numbers_are_skipped_with_file_and_line() {
    let rows = [
        ("-0.5", "Price is negative: -0.5"),
        ("nan", "Price is not a finite number: \"nan\""),
        ("NaN", "Price is not a finite number: \"NaN\""),
        ("inf", "Price is not a finite number: \"inf\""),
        ("-inf", "Price is not a finite number: \"-inf\""),
        ("1e300", "Price is implausibly large: 1e300"),
    ];
    let mut csv = String::from(HEADER);
    csv.push_str("ok.large,,,2,8,,0.096,0.03,us-east-1,use1-az1,x86_64\n");
    for (price, _) in rows {
        csv.push_str(&format!("bad,,,2,8,,{price},,us-east-1,use1-az1,x86_64\n"));
    }
    csv.push_str("huge,,,2,1e30,,1,,us-east-1,use1-az1,x86_64\n");
    csv.push_str("neg,,-1,2,8,,1,,us-east-1,use1-az1,x86_64\n");
    let (cat, warnings) =
        CloudCatalog::from_reader(CloudId::Aws, csv.as_bytes(), "aws/vms.csv").unwrap();
    assert_eq!(cat.rows.len(), 1, "only the good row survives");
    assert_eq!(warnings.len(), rows.len() + 2, "{warnings:?}");
    for (i, (_, want)) in rows.iter().enumerate() {
        let w = warnings[i].to_string();
        assert!(
            w.starts_with(&format!(
                "aws/vms.csv:{}: skipped malformed row: {want}",
                i + 3
            )),
            "{w}"
        );
    }
    assert!(
        warnings[rows.len()]
            .message
            .starts_with("MemoryGiB is implausibly large")
    );
    assert!(
        warnings[rows.len() + 1]
            .message
            .starts_with("AcceleratorCount is negative")
    );
}

#[test]
fn cells_are_trimmed_of_ascii_whitespace_at_either_end() {
    // A cell of one space is empty; one character is itself; spaces
    // or tabs at either end go, those inside stay.
    let csv = "InstanceType,AcceleratorName,vCPUs,Price,Region,AvailabilityZone\n\
        \ta.b ,  ,4 ,\t1.5,r 1, z\n\
        c, ,\t8, 2 ,r,z\n\
        d,V,1,3,r,\t\n";
    let (cat, warnings) =
        CloudCatalog::from_bytes(CloudId::Lambda, csv.as_bytes(), "t.csv").unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let cells: Vec<_> = cat
        .rows
        .iter()
        .map(|r| {
            (
                r.instance_type.as_deref().map(str::to_string),
                r.accelerator_name.as_deref().map(str::to_string),
                r.vcpus.get(),
                r.price.get(),
                r.region.to_string(),
                r.zone.as_deref().map(str::to_string),
            )
        })
        .collect();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        cells,
        [
            (s("a.b"), None, Some(4.0), Some(1.5), "r 1".into(), s("z")),
            (s("c"), None, Some(8.0), Some(2.0), "r".into(), s("z")),
            (s("d"), s("V"), Some(1.0), Some(3.0), "r".into(), None),
        ]
    );
}

#[test]
fn hosting_type_is_read_as_datacenter_or_not() {
    let csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,HostingType\r\n\
        a,RTX4090,1,32,64,0.4,\"Texas, US, NA\",1\r\n\
        b,RTX4090,1,32,64,0.3,\"Germany, DE, EU\",0\r\n\
        c,RTX4090,1,32,64,0.5,\"Utah, US, NA\",\r\n\
        d,RTX4090,1,32,64,0.5,\"Utah, US, NA\",2\r\n\
        e,RTX4090,1,32,64,0.5,\"Utah, US, NA\",yes\r\n";
    let (cat, warnings) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
    let flags: Vec<_> = cat.rows.iter().map(|r| r.datacenter).collect();
    assert_eq!(flags, [Some(true), Some(false), Some(false), Some(true)]);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].message.contains("HostingType"), "{warnings:?}");
    assert_eq!(&*cat.rows[0].region, "Texas, US, NA");
    // Without the column nothing is known.
    let csv = "InstanceType,Price,Region\na,1,r\n";
    let (cat, _) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
    assert_eq!(cat.rows[0].datacenter, None);
    // The flag survives the pre-indexed image.
    let csv = "InstanceType,Price,Region,HostingType\na,1,r,1\nb,1,r,0\nc,1,r,0\nd,1,r\n";
    let (cat, w) = CloudCatalog::from_bytes(CloudId::Vast, csv.as_bytes(), "v").unwrap();
    let (back, _) = CloudCatalog::from_image(CloudId::Vast, &cat.to_image(&w), "v").unwrap();
    assert_eq!(back.rows, cat.rows);
}

/// Every record of `csv` parsed twice, with the splitter's word on which
/// fields repeat and with every field read anew: the same rows, the same
/// errors, the same integer columns, for both stores.
fn repeats_change_nothing(cloud: CloudId, csv: &[u8]) -> (usize, usize) {
    use crate::catalog::csv_parse::{Header, split::Splitter};
    let Ok((header, body)) = Header::read(cloud, csv, "t.csv") else {
        return (0, 0);
    };
    let mut split = Splitter::new(&csv[body..]);
    let (mut texts, mut texts_anew) = (
        RowParser::<Texts>::new(header.columns),
        RowParser::<Texts>::new(header.columns),
    );
    let (mut ids, mut ids_anew) = (
        RowParser::<PieceStrings>::new(header.columns),
        RowParser::<PieceStrings>::new(header.columns),
    );
    let strings = |parser: &RowParser<PieceStrings>, row: &RawRow| {
        let store = parser.store();
        let cells: Vec<String> = row
            .cells
            .iter()
            .enumerate()
            .map(|(i, &id)| match id {
                0 => String::new(),
                id => store.table(i == 5).get(id).to_string(),
            })
            .collect();
        let numbers: Vec<Option<u64>> = row
            .numbers
            .iter()
            .map(|n| n.get().map(f64::to_bits))
            .collect();
        (cells, numbers, row.nvme, row.datacenter)
    };
    let (mut records, mut skipped) = (0, 0);
    while let Ok(Some((_, record))) = split.next() {
        let plain = record.without_repeats();
        let row = texts.parse(&record);
        assert_eq!(row, texts_anew.parse(&plain), "record {records}");
        skipped += usize::from(row.is_err());
        let (a, b) = (ids.parse(&record), ids_anew.parse(&plain));
        match (&a, &b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(strings(&ids, a), strings(&ids_anew, b), "record {records}")
            }
            _ => assert_eq!(a.as_ref().err(), b.as_ref().err(), "record {records}"),
        }
        records += 1;
    }
    assert_eq!(texts.integer_bits(), texts_anew.integer_bits());
    assert_eq!(ids.integer_bits(), ids_anew.integer_bits());
    (records, skipped)
}

#[test]
#[allow(clippy::disallowed_methods)] // reads the fixture catalogs
fn fields_taken_from_the_row_above_are_those_read_anew() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(csv) = std::fs::read(path.join("vms.csv")) else {
            continue;
        };
        let name = path.file_name().unwrap().to_str().unwrap();
        let cloud: CloudId = name.parse().unwrap_or(CloudId::Aws);
        compared += repeats_change_nothing(cloud, &csv).0;
    }
    assert!(compared > 40_000, "{compared} records");
}

/// Runs of like rows broken by bad ones: a bad number, an empty region
/// with and without an instance type, a short row, a row of spaces, a bad
/// `HostingType`; quoted cells, CR LF line ends, cells to trim. The row
/// after a skipped one repeats its fields.
#[test]
fn fields_after_a_skipped_row_are_read_anew() {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d_u64);
    let header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone,LocalDiskType,NVMeSupported,HostingType,GpuInfo\n";
    let good = [
        "p4d.24xlarge,A100,8,96,1152,32.77,9.8,us-east-1,use1-az1,ssd,True,1,\"{'Gpus': []}\"",
        "p4d.24xlarge,A100,8,96,1152,32.77,9.9,us-east-1,use1-az2,ssd,True,1,\"{'Gpus': []}\"",
        "p4d.24xlarge,A100,8,96,1152,32.77,,us-west-2,usw2-az1,ssd,True,0,\"{'Gpus': []}\"",
        "m6i.large,,,2,8,0.096,0.03,us-west-2,usw2-az1,,False,,",
        "m6i.large,,,2,8,0.096,0.03,,usw2-az2,,False,,",
        // Quoted cells, a line end of CR LF, cells with spaces around.
        "m6i.large,,,2,8,0.096,0.03,\"us-west-2\",usw2-az1,,False,,\r",
        "m6i.large,,,2,8,0.096,0.03,\"us-west-2\",usw2-az2,,False,,\r",
        "m6i.large , , ,2,8,0.096, 0.04,us-west-2 ,usw2-az2,,False,,",
    ];
    let bad = [
        "p4d.24xlarge,A100,8,ninety,1152,32.77,9.8,us-east-1,use1-az1,ssd,True,1,\"{'Gpus': []}\"",
        ",A100,8,96,1152,32.77,9.8,,use1-az1,ssd,True,1,\"{'Gpus': []}\"",
        // The row above but its instance type: its empty region repeats.
        ",,,2,8,0.096,0.03,,usw2-az2,,False,,",
        "p4d.24xlarge,A100,8,96,1152,-1,9.8,us-east-1,use1-az1,ssd,True,1,\"{'Gpus': []}\"",
        "p4d.24xlarge,A100,8,96",
        "m6i.large,,,2,8,0.096,0.03,us-west-2,usw2-az1,,False,x,",
        " , , , , , , , , , , , , ",
    ];
    let (mut records, mut skipped) = (0, 0);
    for _ in 0..40 {
        let mut csv = String::from(header);
        for _ in 0..200 {
            let line = if next().is_multiple_of(7) {
                bad[next() as usize % bad.len()]
            } else {
                good[next() as usize % good.len()]
            };
            for _ in 0..=next() % 3 {
                csv.push_str(line);
                csv.push('\n');
            }
        }
        let (r, s) = repeats_change_nothing(CloudId::Vast, csv.as_bytes());
        records += r;
        skipped += s;
    }
    assert!(
        records > 10_000 && skipped > 1_000,
        "{records} records, {skipped} skipped"
    );
}

/// After [`RowParser::forget_strings`] (a new piece's strings), a record
/// whose fields repeat the one before is read whole: its cells are ids
/// into the emptied store, not the old one's.
#[test]
fn fields_after_the_strings_are_forgotten_are_read_anew() {
    use crate::catalog::csv_parse::{Header, split::Splitter};
    let csv = format!(
        "{HEADER}p3.2xlarge,V100,1,8,61,,3.06,0.9,us-east-1,use1-az1,x86_64\n\
         p3.2xlarge,V100,1,8,61,,3.06,0.8,us-east-1,use1-az2,x86_64\n"
    );
    let (header, body) = Header::read(CloudId::Aws, csv.as_bytes(), "t.csv").unwrap();
    let mut split = Splitter::new(&csv.as_bytes()[body..]);
    let mut parser = RowParser::<PieceStrings>::new(header.columns);
    let (_, first) = split.next().unwrap().unwrap();
    parser.parse(&first).unwrap();
    let (_, second) = split.next().unwrap().unwrap();
    assert_ne!(second.repeating(), 0, "the splitter says fields repeat");
    parser.parse(&second).unwrap();
    parser.forget_strings().clear();
    let row = parser.parse(&second).unwrap();
    let store = parser.store();
    let cells: Vec<&str> = row.cells[..4]
        .iter()
        .map(|&id| {
            if id == 0 {
                ""
            } else {
                store.table(false).get(id)
            }
        })
        .collect();
    assert_eq!(cells, ["p3.2xlarge", "V100", "us-east-1", "use1-az2"]);
}
