//! `harness` binary: parses the command line and calls into the harness library.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use harness::catalog_gen;

/// Tooling around the optimizer: fixture generation and (later) benchmarks and reports.
#[derive(Debug, Parser)]
#[command(name = "harness", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Harness subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Generate the deterministic fixture catalogs (or check that they are up to date).
    GenCatalogs(GenCatalogsArgs),
}

/// Arguments of `gen-catalogs`.
#[derive(Debug, Args)]
struct GenCatalogsArgs {
    /// Output directory of the v8 catalog tree.
    #[arg(long, default_value = "fixtures/catalogs")]
    out: PathBuf,
    /// Output directory of the small v6-layout tree.
    #[arg(long, default_value = "fixtures/catalogs-v6")]
    out_v6: PathBuf,
    /// Regenerate in memory and exit 1 if the files on disk differ (writes nothing).
    #[arg(long)]
    check: bool,
}

fn gen_catalogs(args: &GenCatalogsArgs) -> anyhow::Result<ExitCode> {
    let catalogs = catalog_gen::generate().context("generating catalogs")?;
    if args.check {
        let mismatches = catalog_gen::check(&catalogs, &args.out, &args.out_v6)?;
        if mismatches.is_empty() {
            println!("catalogs are up to date");
            return Ok(ExitCode::SUCCESS);
        }
        for m in &mismatches {
            eprintln!("{m}");
        }
        eprintln!("catalogs are stale: run `cargo run -p harness -- gen-catalogs`");
        return Ok(ExitCode::FAILURE);
    }
    catalog_gen::write(&catalogs, &args.out, &args.out_v6)?;
    for (dir, files) in [(&args.out, &catalogs.v8), (&args.out_v6, &catalogs.v6)] {
        for (rel, text) in files {
            println!("{:>10}  {}", text.len(), dir.join(rel).display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match &cli.command {
        Command::GenCatalogs(args) => gen_catalogs(args),
    }
}
