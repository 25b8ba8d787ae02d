# Entry points of the sky optimizer workspace. `just` lists them.
# Install just with `pip install rust-just` (or `cargo install just --locked`).

set shell := ["bash", "-euo", "pipefail", "-c"]

[private]
default:
    @just --list --unsorted

# --- run ---------------------------------------------------------------------

# The main job: sky-launch-5s (SkyPilot #3159's slow launch) against mocked clouds in every mode, SkyPilot 0.14.1 too when .venv-skypilot exists; prints the table, the comparison and what it says; report under reports/scratch/.
[group('run')]
demo *ARGS:
    cargo build --release -p optimizer -p harness
    target/release/harness demo {{ARGS}}

# The demo with SkyPilot 0.14.1 beside `sky` (builds .venv-skypilot from PyPI first if missing, ~2-4 min once).
[group('run')]
demo-skypilot *ARGS:
    cargo build --release -p optimizer -p harness
    target/release/harness demo --with-skypilot {{ARGS}}

# Build the SkyPilot engine's venv (.venv-skypilot: skypilot[aws,kubernetes]==0.14.1 + py-spy, from harness/skypilot/requirements.lock).
[group('run')]
skypilot-setup:
    bash harness/skypilot/setup.sh

# Regenerate the committed sample report reports/sample-sky-launch-5s/ (10 runs per sky mode, 5 per SkyPilot mode) from a clean tree.
[group('run')]
report-sample:
    #!/usr/bin/env bash
    set -euo pipefail
    if [ -n "$(git status --porcelain --untracked-files=no)" ]; then echo "report-sample: commit first (the report states its git revision)"; exit 1; fi
    cargo build --release -p optimizer -p harness
    rm -rf reports/sample-sky-launch-5s
    target/release/harness run sky-launch-5s --with-skypilot --runs 10 --skypilot-runs 5 --no-progress --out reports --name sample-sky-launch-5s
    git status --short reports/

# Run the sky CLI (e.g. `just sky launch --dryrun -y --gpus H100:8`).
[group('run')]
sky *ARGS:
    cargo run --release -p optimizer --bin sky -- {{ARGS}}

# Run a harness scenario (serial vs concurrent vs warm cache, 10 runs each; `--with-skypilot` adds SkyPilot 0.14.1) into reports/scratch/.
[group('run')]
harness-run SCENARIO *ARGS:
    cargo build --release -p optimizer -p harness
    target/release/harness run {{SCENARIO}} {{ARGS}}

# Start a scenario's mocks and print the environment to point `sky` at them; Ctrl-C stops.
[group('run')]
mocks SCENARIO:
    cargo run -p harness -- mocks --scenario {{SCENARIO}}

# Man pages (DIR/man/man1) and shell completions (DIR/completions) for `sky`, from its CLI definition.
[group('run')]
man-completions DIR="target/dist":
    cargo build --release -p optimizer --bin sky
    target/release/sky --generate man {{DIR}}/man/man1
    mkdir -p {{DIR}}/completions
    target/release/sky --generate complete-bash > {{DIR}}/completions/sky.bash
    target/release/sky --generate complete-zsh > {{DIR}}/completions/_sky
    target/release/sky --generate complete-fish > {{DIR}}/completions/sky.fish
    target/release/sky --generate complete-powershell > {{DIR}}/completions/_sky.ps1
    target/release/sky --generate complete-elvish > {{DIR}}/completions/sky.elv
    @echo "man: MANPATH={{DIR}}/man man sky-launch   bash: source {{DIR}}/completions/sky.bash"

# --- test --------------------------------------------------------------------

# Everything CI runs: formatting, lints, fixture reproducibility, tests.
[group('test')]
ci: fmt-check clippy core-purity lint-workflows fixtures-check test

# The test suite (what the README's test command runs).
[group('test')]
test:
    INSTA_UPDATE=no cargo nextest run --workspace --no-fail-fast
    cargo test --workspace --doc

# Issue 12's heavy loops (not in CI): the hostile-input generators at full count, 100 SIGKILLed
# writers, 16 processes × 200 writes, 200 signals, canaries at every SKY_LOG level, and the fault
# mocks with peak RSS (< 64 MB) and wall time (deadline + 50 ms) measured on the release binary,
# every host sending without end at once, and SkyPilot 0.14.1's `read_catalog` beside `sky` on one
# catalog folder (the conformance venv: SKY_CONFORMANCE_VENV, default ./.venv-conformance).
[group('test')]
stress:
    cargo build --release -p optimizer --bin sky
    SKY_CONFORMANCE_VENV="${SKY_CONFORMANCE_VENV:-$PWD/.venv-conformance}" SKY_STRESS=1 INSTA_UPDATE=no cargo nextest run --release -p optimizer --test it --no-fail-fast --no-capture -E 'test(/^hostile::/) | test(/^catalog_faults::/) | test(/^catalog_shared::/) | test(/^slurm_flood::/) | test(/^state::(a_writer_killed|concurrent_writers)/)' 2>&1 | grep -E --line-buffered '(PASS|FAIL) \[|[0-9]+ (generated|interrupted|kills|processes)|peak RSS|every host|silent primary|login nodes|skipped:|Summary|panicked|leaked'

# Accept changed insta snapshots after reviewing them with `git diff`.
[group('test')]
snap-accept:
    INSTA_UPDATE=always cargo nextest run --workspace --no-fail-fast || true
    git status --short -- '*.snap'

# Diff our tables against SkyPilot 0.14.1 run offline on the same scenarios (needs PyPI once).
[group('test')]
conformance *CASES:
    cargo build --release -p optimizer --bin sky
    python3 harness/conformance/compare.py --sky target/release/sky {{CASES}}

# The hand-off against SkyPilot 0.14.1 offline: on each request, does SkyPilot pick the row `sky` showed? (needs the conformance venv; skipped without it)
[group('test')]
handoff-agreement *CASES:
    cargo build --release -p optimizer --bin sky
    python3 harness/handoff/agree.py --sky target/release/sky {{CASES}}

# Check that the committed fixture catalogs are exactly what the generator writes.
[group('test')]
fixtures-check:
    cargo run -q -p gen-catalogs -- --check

# Regenerate the fixture catalogs.
[group('test')]
fixtures-gen:
    cargo run -q -p gen-catalogs

# --- bench -------------------------------------------------------------------

# The bench-profile build of the bench recipes. The bench profile unwinds
# (its binaries otherwise inherit release's panic = "abort" and every
# workspace crate is compiled twice; see BENCH_PANIC_ENV in
# benches/src/runner.rs; cargo's "panic setting is ignored" warning means
# the benchmark target only).
bench_build := "CARGO_PROFILE_BENCH_PANIC=unwind cargo bench -p benches --bench main --no-run"
# The report's bench-profile build of the head (benches/src/report/side.rs
# BENCH_BUILD): the criterion executable, bench-ops, bench-gate and the
# harness in one command and one feature set.
report_build := "CARGO_PROFILE_BENCH_PANIC=unwind cargo build --profile bench -p benches -p harness --bench main --bin bench-ops --bin bench-gate --bin harness"

# Run the benchmark suite (+ callgrind instruction counts); with NAME, compare to benches/baselines/NAME.json and exit 1 on a regression.
[group('bench')]
bench NAME="": link-order-check
    {{bench_build}}
    target/release/bench-gate run {{ if NAME == "" { "" } else { "--baseline " + NAME } }}

# SkyPilot 0.14.1 (import + optimize, offline) and `sky launch` on the same catalogs and request, in one run: both medians and the ratio.
[group('bench')]
bench-vs-skypilot *ARGS:
    cargo build --release -p optimizer --bin sky
    python3 harness/conformance/bench_vs_skypilot.py --sky target/release/sky {{ARGS}}

# Whole-process `sky launch --dryrun -y --gpus H100:8` (release, 30 runs): median and peak RSS.
[group('bench')]
bench-process RUNS="30": link-order-check
    {{bench_build}}
    target/release/bench-gate process --runs {{RUNS}}

# Whole-process `sky gpus list --all` on the bundled catalogs (release, 30 runs; goal: median <= 5 ms).
[group('bench')]
bench-gpus-list RUNS="30": link-order-check
    {{bench_build}}
    target/release/bench-gate process --runs {{RUNS}} --command gpus-list-all

# Run the suite and store it as the portable baseline benches/baselines/NAME.json.
[group('bench')]
bench-save NAME: link-order-check
    {{bench_build}}
    target/release/bench-gate save {{NAME}}

# Only the deterministic instruction counts (callgrind), gated against benches/baselines/NAME.json.
[group('bench')]
bench-instructions NAME:
    {{bench_build}}
    target/release/bench-gate instructions --baseline {{NAME}}

# Regenerate optimizer/link/sky.order (the warm commands' functions, placed first in sky's .text): release build with a linker map + callgrind on the warm commands, ~30 s after a release build; rerun after any change to the optimizer crate, its dependencies or its features.
[group('bench')]
link-order:
    python3 optimizer/link/order.py

# Exit 2 when more than 5 of the functions in optimizer/link/sky.order are missing from the release `sky` (rustc renames `<fn>.llvm.<hash>` functions when their codegen unit changes; a stale order cost the warm launch 1.4 MiB of peak RSS). The bench recipes that measure this tree's release `sky` run it first (`just report` measures two trees as they are).
[group('bench')]
link-order-check:
    python3 optimizer/link/order.py --check

# Pull-request report: BASE_REV in a git worktree, bench + harness on both sides, reports/pr-<head>-vs-<base>/report.md (prints where its time went).
[group('bench')]
report BASE_REV="HEAD":
    {{report_build}}
    target/release/bench-gate report {{BASE_REV}}

# The pull-request report end to end at a small scale: two benchmarks, a 1 s profile, 2 harness runs, against HEAD~1.
[group('bench')]
report-smoke BASE_REV="HEAD~1":
    {{report_build}}
    target/release/bench-gate report {{BASE_REV}} --filter '^(render/framed-table|launch/warm-concurrent/latency-0)$' --profile '^render/framed-table$' --profile-seconds 1 --harness-runs 2

# --- check -------------------------------------------------------------------

# Check formatting (CI).
[group('check')]
fmt-check:
    cargo fmt --all --check

# Lints, warnings are errors (CI).
[group('check')]
clippy:
    cargo clippy --workspace --all-targets -- -D warnings

# The pure core links no async runtime, HTTP, TLS, SDK or Kubernetes crate (ARCHITECTURE.md, Invariants).
[group('check')]
core-purity:
    #!/usr/bin/env bash
    set -euo pipefail
    deps=$(cargo tree -e normal -p planner --prefix none --format '{p}' | cut -d' ' -f1 | sort -u)
    bad=$(grep -E '^(tokio|hyper|hyper-util|reqwest|tower|rustls|mio|futures|aws-.*|kube.*|k8s-openapi)$' <<<"$deps" || true)
    if [ -n "$bad" ]; then echo "planner links I/O crates: $bad"; exit 1; fi
    echo "planner: $(wc -l <<<"$deps") crates, none of them I/O"

# Lint the GitHub workflows with actionlint (CI).
[group('check')]
lint-workflows:
    bash .ci/lint-workflows

# Format the workspace.
[group('check')]
fmt:
    cargo fmt --all
