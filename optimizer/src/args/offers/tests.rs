//! `sky offers`' flags: the request is the launch's, the rest the listing.

use clap::Parser;
use planner::offers::{GroupBy, Market, SortKey};

use super::super::flags::Command;
use super::super::{Converted, Environment, Invocation, Launch, convert};
use super::Offers;

#[derive(Parser)]
struct Sky {
    #[command(subcommand)]
    command: Command,
}

fn environment() -> Environment {
    Environment {
        vars: [("HOME", "/nonexistent-home"), ("SET_HERE", "here")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        home: "/nonexistent-home".into(),
        current_dir: None,
    }
}

fn converted(words: &[&str]) -> Converted {
    let command = Sky::try_parse_from(std::iter::once("sky").chain(words.iter().copied()))
        .unwrap_or_else(|e| panic!("clap refuses {words:?}: {e}"))
        .command;
    convert(command, environment())
}

fn offers(words: &[&str]) -> Offers {
    match converted(words).invocation {
        Ok(Invocation::Offers(o)) => *o,
        other => panic!("{words:?}: {other:?}"),
    }
}

fn launch(words: &[&str]) -> Launch {
    match converted(words).invocation {
        Ok(Invocation::Launch(l)) => *l,
        other => panic!("{words:?}: {other:?}"),
    }
}

#[test]
fn the_request_is_the_launch_s() {
    let request = [
        "--gpus",
        "H100:8",
        "--cpus",
        "16+",
        "--memory",
        "64+",
        "--infra",
        "aws/us-east-1",
        "--num-nodes",
        "2",
        "--disk-size",
        "256",
        "--disk-tier",
        "high",
        "-t",
        "p5.48xlarge",
        "--env",
        "SET_HERE",
        "--ports",
        "8080",
        "task.yaml",
    ];
    let o = offers(&[&["offers"][..], &request[..]].concat());
    let l = launch(&[&["launch"][..], &request[..]].concat());
    assert_eq!(format!("{:?}", o.request), format!("{:?}", l.request));
    assert!(!o.json);
}

#[test]
fn markets_set_the_request_s_spot_flag() {
    let cases: [(&[&str], Market, Option<bool>); 6] = [
        (&[], Market::AsRequested, None),
        (&["--spot"], Market::Spot, Some(true)),
        (&["--use-spot"], Market::Spot, Some(true)),
        (&["--on-demand"], Market::OnDemand, Some(false)),
        (&["--no-use-spot"], Market::OnDemand, Some(false)),
        (&["--any-market"], Market::Any, None),
    ];
    for (flags, market, use_spot) in cases {
        let o = offers(&[&["offers", "--gpus", "A100"][..], flags].concat());
        assert_eq!(o.market, market, "{flags:?}");
        assert_eq!(o.request.overrides.use_spot, use_spot, "{flags:?}");
    }
}

#[test]
fn listing_flags() {
    let o = offers(&["offers"]);
    assert_eq!(o.query, planner::offers::Query::default());
    assert_eq!(o.query.max_offers, 20);
    let o = offers(&[
        "offers",
        "--max-offers",
        "5",
        "--sort-by",
        "gpu-price",
        "--desc",
        "--group-by",
        "region",
        "--max-price",
        "$2.50/h",
        "--min-gpu-memory",
        "80GB",
        "--min-total-gpu-memory",
        "640",
        "-o",
        "json",
    ]);
    assert_eq!(o.query.max_offers, 5);
    assert_eq!(o.query.sort, SortKey::GpuPrice);
    assert!(o.query.desc);
    assert_eq!(o.query.group_by, Some(GroupBy::Region));
    assert_eq!(o.query.filters.max_price, Some(2.5));
    assert_eq!(o.query.filters.min_gpu_memory_gb, Some(80.0));
    assert_eq!(o.query.filters.min_total_gpu_memory_gb, Some(640.0));
    assert!(o.json);
    for (flag, key) in [
        ("price", SortKey::Price),
        ("vcpus", SortKey::Vcpus),
        ("memory", SortKey::Memory),
        ("gpu-memory", SortKey::GpuMemory),
    ] {
        assert_eq!(offers(&["offers", "--sort-by", flag]).query.sort, key);
    }
    for (flag, by) in [
        ("gpu", GroupBy::Gpu),
        ("cloud", GroupBy::Cloud),
        ("count", GroupBy::Count),
    ] {
        assert_eq!(
            offers(&["offers", "--group-by", flag]).query.group_by,
            Some(by)
        );
    }
}

#[test]
fn bad_values_name_the_flag_and_the_form() {
    let cases: [(&[&str], &str); 8] = [
        (&["--sort-by", "prcie"], "a similar value exists: 'price'"),
        (&["--group-by", "clouds"], "a similar value exists: 'cloud'"),
        (
            &["--max-price=-1"],
            "expected a non-negative number of dollars per hour",
        ),
        (&["--max-price", "cheap"], "'--max-price <USD>'"),
        (&["--max-price", "inf"], "got 'inf'"),
        (
            &["--min-gpu-memory", "lots"],
            "expected a non-negative number of GB",
        ),
        (&["--max-offers", "0"], "'--max-offers <N>'"),
        (&["--spot", "--on-demand"], "cannot be used with"),
    ];
    for (flags, want) in cases {
        let words: Vec<&str> = [&["sky", "offers"][..], flags].concat();
        let err = match Sky::try_parse_from(&words) {
            Ok(_) => panic!("{words:?} parsed"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(want), "{words:?}: {err}");
    }
    // The request's own checks are the launch's.
    let e = converted(&["offers", "--num-nodes", "0"])
        .invocation
        .unwrap_err();
    assert_eq!(e.flag(), Some("--num-nodes"));
}
