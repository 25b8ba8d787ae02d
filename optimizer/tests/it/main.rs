//! Integration tests: one binary, modules per area.
mod kubernetes;
// Exec-plugin credentials kept until they expire, across launches.
mod kube_exec;
// The secure on-disk state (private folders, cache key, entries, locks).
mod state;
// The AWS adapter against a wiremock STS (identity cache, failures, concurrency).
mod aws_identity;
// Table scenarios from fixtures/scenarios, snapshotted with insta.
mod scenarios;
// `sky launch --explain` on every launch scenario, its section snapshotted.
mod explain;
// `sky gpus list` against Kubernetes API mocks: pods, 403, failures, node cache.
mod gpus_realtime;
// Whole launches against the mocks: fan-out, caches, partial tables, secrets.
mod fanout;
// GCP reservations against the GCP mock: lookup, free reserved nodes, cache, failures, secrets.
mod gcp_reservations;
// Pre-indexed catalog images in the state folder.
mod catalog_index;
// Catalog downloads into SkyPilot's folder and AWS zone names, against the mocks.
mod catalog_download;
// Offline and firewalled machines: failed downloads remembered, one warning (issue 26).
mod offline;
// The download path against every way a catalog host can misbehave (issue 26).
mod catalog_faults;
// A body over an adapter's cap names its host and the cap (issue 26).
mod body_caps;
// SkyPilot 0.14.1 and `sky` on one catalog folder at once (needs SKY_CONFORMANCE_VENV).
mod catalog_shared;
// OCI region subscriptions against the OCI mock: signing, filtering, cache, failures.
mod oci;
// Nebius tenant prices against the gRPC mock: tokens, pricing, cache, failures.
mod nebius;
// Hostile input and faulty clouds: generated inputs, signals, secrets, caps (issue 12).
mod hostile;
// Catalogs SkyPilot builds on the user's machine (vSphere).
mod local_catalogs;
// The Slurm adapter against fake login nodes: deadlines, bounds, failures, cache.
mod slurm;
// Many Slurm login nodes sending without end: one output budget (issue 26).
mod slurm_flood;
// The SSH Node Pools adapter: pools, contexts kept apart from Kubernetes, offline mode.
mod ssh;
// What sky draws on a terminal (a pseudo-terminal) and never in a pipe.
mod terminal;
// Man pages and completions generated from the CLI definition.
mod cli_docs;
// Flag errors through the binary: SkyPilot's error kinds, exit codes, what is said first.
mod cli_errors;
// The exit-code rule as a table (fixtures/exit-codes.toml) through the binary.
mod cli_exit_codes;
// A launch's trace covers the process: every phase has its span.
mod trace_coverage;
// `sky check` layouts as 0.14.1 prints them.
mod check_report;
// `sky offers`: snapshots per option, and every offer is one the launch accepts.
mod offers;
// SkyPilot behind `sky`: pass-through, the hand-off of a confirmed launch, finding its CLI.
mod handoff;
// The usual run's log (no SKY_LOG, no trace): the same lines as SKY_LOG=warn's.
mod log_default;
