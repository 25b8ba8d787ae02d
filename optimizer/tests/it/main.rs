//! Integration tests: one binary, modules per area.
mod kubernetes;
// The secure on-disk state (private folders, cache key, entries, locks).
mod state;
// The AWS adapter against a wiremock STS (identity cache, failures, concurrency).
mod aws_identity;
// Table scenarios from fixtures/scenarios, snapshotted with insta.
mod scenarios;
// Whole launches against the mocks: fan-out, caches, partial tables, secrets.
mod fanout;
// GCP reservations against the GCP mock: lookup, free reserved nodes, cache, failures, secrets.
mod gcp_reservations;
// Pre-indexed catalog images in the state folder.
mod catalog_index;
// What sky draws on a terminal (a pseudo-terminal) and never in a pipe.
mod terminal;
// Man pages and completions generated from the CLI definition.
mod cli_docs;
