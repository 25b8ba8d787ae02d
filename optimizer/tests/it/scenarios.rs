//! Data-driven table scenarios: every `fixtures/scenarios/<case>/scenario.toml`
//! runs the real `sky` binary offline and snapshots what it prints.
//!
//! The snapshot holds the exit code, stdout and stderr (ANSI-free: stdout is
//! not a terminal). Update with `INSTA_UPDATE=always cargo nextest run -p optimizer`
//! (or `just snap-accept`) and review the diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    description: String,
    #[serde(default)]
    args: Vec<String>,
    clouds: Vec<String>,
    task: Option<String>,
    config: Option<String>,
    #[serde(default)]
    exit_code: i32,
    kubernetes: Option<Kube>,
    /// SSH Node Pools: the `ssh-<pool>` contexts that are up.
    ssh: Option<Kube>,
    /// Extra environment for this case.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Run without `--dryrun -y` (for prompt tests); stdin gets this text.
    stdin: Option<String>,
    /// Files put into the fresh home first: path below home → file,
    /// relative to the scenario folder (a catalog SkyPilot built there).
    #[serde(default)]
    home_files: BTreeMap<String, String>,
    /// The case's own catalogs: a copy of `fixtures/catalogs/` changed as
    /// this says, passed as `SKY_CATALOG_DIR` (otherwise `sky` runs on its
    /// bundled catalogs, the same files).
    catalogs: Option<Catalogs>,
    /// A CLI-level case: the words after `sky` (e.g. `gpus list`), run
    /// with `args` instead of `sky launch -c sky-test --dryrun -y`.
    command: Option<String>,
    /// The folder `sky` runs in, relative to the scenario folder: a corpus
    /// case runs from a repository tree under `fixtures/corpus/`, as a user
    /// launches from their checkout (its `workdir` and local mounts are
    /// relative to it); `task` is then relative to this folder too.
    cwd: Option<String>,
    /// Where a corpus case's task file comes from (public repository, path,
    /// commit); named in the snapshot's header.
    source: Option<Source>,
    /// What of SkyPilot's output varies from run to run for this case, and
    /// the comparison rules `harness/conformance/compare.py` applies for it;
    /// named in the snapshot's header (our own output must not vary).
    nondeterministic: Option<Nondeterministic>,
}

/// SkyPilot's non-determinism for a case (`[nondeterministic]`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Nondeterministic {
    /// Why SkyPilot's text varies (e.g. a set visited in memory order).
    why: String,
    /// compare.py's rules: `notices`, `alternatives`.
    rules: Vec<String>,
}

/// The public origin of a corpus case's task file: a repository file at a
/// commit, or a task a user posted in an issue thread of that repository.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Source {
    /// `owner/name` on GitHub.
    repo: String,
    /// The file's path in that repository (or the name the user ran).
    path: String,
    /// The commit the file was read at.
    commit: Option<String>,
    /// The issue or pull request thread the task was posted in.
    issue: Option<String>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Catalogs {
    /// A folder of the case whose files replace or add to the catalog tree.
    overlay: Option<String>,
    /// Clouds whose `vms.csv` is removed.
    #[serde(default)]
    remove: Vec<String>,
    /// Removed files the oracle's hosted catalog serves (the fixture file,
    /// which `sky` bundles); `sky` itself reads the folder as it is.
    #[serde(default)]
    #[allow(dead_code)]
    hosted: Vec<String>,
}

/// Copies the files of `from` below `to`, creating folders.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// The catalog tree a case with `[catalogs]` runs on, below `root`.
fn scenario_catalogs(dir: &Path, spec: &Catalogs, root: &Path) -> PathBuf {
    let tree = root.join("catalogs");
    copy_tree(&fixtures().join("catalogs"), &tree);
    for cloud in &spec.remove {
        let file = tree.join(cloud).join("vms.csv");
        if file.exists() {
            std::fs::remove_file(file).unwrap();
        }
    }
    if let Some(overlay) = &spec.overlay {
        copy_tree(&dir.join(overlay), &tree);
    }
    tree
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Kube {
    contexts: Vec<String>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

pub(crate) fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let dir = fixtures().join("scenarios");
    for entry in std::fs::read_dir(&dir).expect("fixtures/scenarios exists") {
        let path = entry.expect("readable dir entry").path();
        if path.join("scenario.toml").is_file() {
            out.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                path,
            ));
        }
    }
    out.sort();
    out
}

/// Runs one case; returns its snapshot text and, on an unexpected exit code, a failure message.
fn run_case(dir: &Path) -> (String, Option<String>) {
    run_case_with(dir, &[]).0
}

/// Whether a case runs `sky launch` (not another subcommand).
pub(crate) fn is_launch(dir: &Path) -> bool {
    let text = std::fs::read_to_string(dir.join("scenario.toml")).unwrap();
    let scenario: Scenario = toml::from_str(&text).unwrap();
    scenario.command.is_none()
}

/// [`run_case`] with `extra` flags after the case's own; also the raw
/// stdout of the first run.
pub(crate) fn run_case_with(dir: &Path, extra: &[&str]) -> ((String, Option<String>), String) {
    let text = std::fs::read_to_string(dir.join("scenario.toml")).unwrap();
    let scenario: Scenario = toml::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: invalid scenario.toml: {e}", dir.display()));
    let home = tempfile::tempdir().unwrap();
    let run_dir = dir.join(scenario.cwd.as_deref().unwrap_or("."));
    // A corpus case's working directory as `<cwd>` (compare.py and oracle.py
    // do the same): messages may quote an absolute path below it.
    let scrub_cwd = |text: &str| match (&scenario.cwd, run_dir.canonicalize()) {
        (Some(_), Ok(real)) => text.replace(&real.display().to_string(), "<cwd>"),
        _ => text.to_owned(),
    };
    for (dest, src) in &scenario.home_files {
        let dest = home.path().join(dest);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(dir.join(src), &dest)
            .unwrap_or_else(|e| panic!("{}: home_files {src}: {e}", dir.display()));
    }
    if let Some(cfg) = &scenario.config {
        std::fs::create_dir_all(home.path().join(".sky")).unwrap();
        std::fs::copy(dir.join(cfg), home.path().join(".sky/config.yaml")).unwrap();
    }
    // Each case runs twice in one HOME: the first launch parses the CSVs and
    // stores their images, the second decodes only the rows its request can
    // match (`planner::catalog::selection`). Both must print the same.
    let run_once = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sky"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .env("USER", "tester")
            .env("NO_COLOR", "1")
            .env("RUST_BACKTRACE", "0")
            // The example catalogs built into `sky`: no folder, no network.
            .env("SKY_BUNDLED_CATALOGS", "1")
            .env("SKY_ENABLED_CLOUDS", scenario.clouds.join(","));
        if let Some(k) = &scenario.kubernetes {
            cmd.env("SKY_KUBE_NODES_DIR", dir.join("kube"))
                .env("SKY_KUBE_CONTEXTS", k.contexts.join(","));
        }
        // Offline API answers, as `harness/conformance/compare.py` passes them.
        for (cloud, var) in [("oci", "SKY_OCI_API_DIR"), ("nebius", "SKY_NEBIUS_API_DIR")] {
            if scenario.clouds.iter().any(|c| c == cloud) && dir.join(cloud).is_dir() {
                cmd.env(var, dir.join(cloud));
            }
        }
        if let Some(spec) = &scenario.catalogs {
            cmd.env("SKY_CATALOG_DIR", scenario_catalogs(dir, spec, home.path()));
        }
        let clouds = |name: &str| scenario.clouds.iter().any(|c| c == name);
        if clouds("ssh") {
            // Offline SSH Node Pools: the pools file where SkyPilot reads it, the
            // contexts that are up, their NodeLists.
            let pools = dir.join("ssh_node_pools.yaml");
            if pools.is_file() {
                std::fs::create_dir_all(home.path().join(".sky")).unwrap();
                std::fs::copy(&pools, home.path().join(".sky/ssh_node_pools.yaml")).unwrap();
            }
            let contexts = scenario.ssh.as_ref().map(|s| s.contexts.join(","));
            cmd.env("SKY_SSH_NODES_DIR", dir.join("kube"))
                .env("SKY_SSH_CONTEXTS", contexts.unwrap_or_default());
        }
        if clouds("slurm") {
            // Offline Slurm: the clusters file where SkyPilot reads it, and the
            // fake `ssh` answering from the scenario's login nodes.
            let clusters = dir.join("slurm/config");
            if clusters.is_file() {
                std::fs::create_dir_all(home.path().join(".slurm")).unwrap();
                std::fs::copy(&clusters, home.path().join(".slurm/config")).unwrap();
            }
            cmd.env("SKY_SLURM_SSH", fixtures().join("slurm/fake-ssh"))
                .env("SKY_SLURM_FIXTURE_DIR", dir.join("slurm/hosts"));
        }
        for (k, v) in &scenario.env {
            cmd.env(k, v);
        }
        match &scenario.command {
            Some(command) => {
                cmd.args(command.split_whitespace());
            }
            None => {
                cmd.arg("launch").arg("-c").arg("sky-test");
                if scenario.stdin.is_none() {
                    cmd.arg("--dryrun").arg("-y");
                }
            }
        }
        cmd.args(&scenario.args).args(extra);
        if let Some(task) = &scenario.task {
            // Relative path so the "YAML to run:" line is stable.
            cmd.current_dir(&run_dir).arg(task);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("sky runs");
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            if let Some(input) = &scenario.stdin {
                stdin.write_all(input.as_bytes()).unwrap();
            }
        }
        let output = child.wait_with_output().unwrap();
        let code = output.status.code().unwrap_or(-1);
        // The temporary HOME as `~/` (compare.py and oracle.py do the same):
        // some messages name a file under it, e.g. a Slurm cluster's key file.
        let scrub = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let mut homes = vec![home.path().to_path_buf()];
            if let Ok(real) = home.path().canonicalize() {
                homes.push(real);
            }
            homes.iter().fold(text, |t, h| {
                t.replace(
                    &format!("{}/", h.display().to_string().trim_end_matches('/')),
                    "~/",
                )
            })
        };
        (code, scrub(&output.stdout), scrub(&output.stderr))
    };
    let (code, stdout, stderr) = run_once();
    let (stdout, stderr) = (scrub_cwd(&stdout), scrub_cwd(&stderr));
    let warm = run_once();
    let warm = (warm.0, scrub_cwd(&warm.1), scrub_cwd(&warm.2));
    let mut failure = None;
    let comparable = |text: &str| {
        // What varies run to run (the snapshot filters below).
        let t = regex::Regex::new(r"\d+\.\d+ ms")
            .unwrap()
            .replace_all(text, "[T] ms");
        regex::Regex::new(r"critical path: \S+ \(")
            .unwrap()
            .replace_all(&t, "critical path: [CLOUD] (")
            .into_owned()
    };
    if (warm.0, comparable(&warm.1), comparable(&warm.2))
        != (code, comparable(&stdout), comparable(&stderr))
    {
        failure = Some(format!(
            "{}: the second launch (catalog images) differs from the first (CSVs):\n--- first (exit {code})\n{stdout}{stderr}--- second (exit {})\n{}{}",
            dir.display(),
            warm.0,
            warm.1,
            warm.2
        ));
    }
    if code != scenario.exit_code {
        failure = Some(format!(
            "{}: exit code {code}, expected {}",
            dir.display(),
            scenario.exit_code
        ));
    }
    if stderr.contains("panicked") {
        failure = Some(format!("{}: sky panicked:\n{stderr}", dir.display()));
    }
    if let Some(n) = &scenario.nondeterministic {
        for rule in &n.rules {
            assert!(
                ["notices", "alternatives"].contains(&rule.as_str()),
                "{}: unknown [nondeterministic] rule {rule:?}",
                dir.display()
            );
        }
    }
    let upstream_varies = match &scenario.nondeterministic {
        Some(n) => format!("# SkyPilot's output varies: {}\n", n.why),
        None => String::new(),
    };
    let source = match &scenario.source {
        Some(s) => format!(
            "# source: {} {} @ {}\n",
            s.repo,
            s.path,
            s.commit.as_deref().or(s.issue.as_deref()).unwrap_or("?")
        ),
        None => String::new(),
    };
    let snapshot = format!(
        "# {}\n{source}{upstream_varies}exit: {code}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        scenario.description
    );
    ((snapshot, failure), stdout)
}

#[test]
fn table_scenarios() {
    let cases = cases();
    assert!(
        cases.len() >= 30,
        "expected the scenario corpus, found {} cases",
        cases.len()
    );
    // Run the processes two at a time: each is independent.
    let results: Vec<(String, (String, Option<String>))> = std::thread::scope(|s| {
        let chunks: Vec<&[(String, PathBuf)]> = cases.chunks(cases.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(name, dir)| (name.clone(), run_case(dir)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("scenario thread"))
            .collect()
    });
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    // --timings output varies run to run.
    settings.add_filter(r"\d+\.\d+ ms", "[T] ms");
    // Which of two sub-millisecond checks finished last is a coin toss.
    settings.add_filter(r"critical path: \S+ \(", "critical path: [CLOUD] (");
    let failures: Vec<String> = results.iter().filter_map(|(_, (_, f))| f.clone()).collect();
    assert!(
        failures.is_empty(),
        "{} scenario(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    settings.bind(|| {
        for (name, (snapshot, _)) in results {
            insta::assert_snapshot!(name, snapshot);
        }
    });
}
