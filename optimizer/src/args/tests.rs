//! Flags in, request or error out: each table row is a command line as a
//! user types it, parsed by the real clap definition and converted.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use planner::cloud::{CloudId, Provider, StorageOnly};
use planner::gpus::SortBy;
use planner::task::{Overrides, ProvisionFlags};

use super::flags::Command;
use super::options::MAX_TIMEOUT;
use super::*;
use crate::clouds::EnvMap;

/// `sky` with the library's subcommands (the binary adds only `--version`).
#[derive(Parser)]
struct Sky {
    #[command(subcommand)]
    command: Command,
}

/// A made-up process: `SET_HERE` and `SECRET_HERE` are set, `$HOME` is
/// `home`, and `extra` is added.
fn environment(home: &Path, extra: &[(&str, &str)]) -> Environment {
    let mut vars: EnvMap = [
        ("HOME", home.to_str().unwrap()),
        ("SET_HERE", "here"),
        ("SECRET_HERE", "s3cr3t-value-here"),
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    vars.retain(|_, v| !v.is_empty());
    Environment {
        vars,
        home: home.to_path_buf(),
        current_dir: Some(home.join("project")),
    }
}

/// Parses `words` (after `sky`) and converts them.
fn convert_words(words: &[&str], env: &Environment) -> Converted {
    let command = Sky::try_parse_from(std::iter::once("sky").chain(words.iter().copied()))
        .unwrap_or_else(|e| panic!("clap refuses {words:?}: {e}"))
        .command;
    convert(command, env.clone())
}

fn launch_of(words: &[&str], env: &Environment) -> Launch {
    match convert_words(words, env).invocation {
        Ok(Invocation::Launch(launch)) => *launch,
        other => panic!("{words:?}: expected a launch, got {other:?}"),
    }
}

#[test]
fn launch_flags_become_the_request_s_overrides() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path(), &[]);
    let o = Overrides::default;
    let cases: Vec<(&[&str], Overrides)> = vec![
        (&["launch"], o()),
        (
            &[
                "launch", "--gpus", "H100:8", "--cpus", "8+", "--memory", "32GB",
            ],
            Overrides {
                gpus: Some("H100:8".into()),
                cpus: Some("8+".into()),
                memory: Some("32GB".into()),
                ..o()
            },
        ),
        (
            &["launch", "--infra", "aws/us-east-1", "-t", "p5.48xlarge"],
            Overrides {
                infra: Some("aws/us-east-1".into()),
                instance_type: Some("p5.48xlarge".into()),
                ..o()
            },
        ),
        (
            &[
                "launch",
                "--cloud",
                "aws",
                "--region",
                "us-east-1",
                "--zone",
                "us-east-1a",
            ],
            Overrides {
                cloud: Some("aws".into()),
                region: Some("us-east-1".into()),
                zone: Some("us-east-1a".into()),
                ..o()
            },
        ),
        // Spaces around the count are SkyPilot's `int()`'s to ignore.
        (
            &["launch", "--num-nodes", " 2 "],
            Overrides {
                num_nodes: Some(2),
                ..o()
            },
        ),
        (
            &["launch", "--disk-size", "100"],
            Overrides {
                disk_size: Some(100),
                ..o()
            },
        ),
        (
            &["launch", "--use-spot"],
            Overrides {
                use_spot: Some(true),
                ..o()
            },
        ),
        (
            &["launch", "--no-use-spot"],
            Overrides {
                use_spot: Some(false),
                ..o()
            },
        ),
        // The last of the pair wins.
        (
            &["launch", "--use-spot", "--no-use-spot"],
            Overrides {
                use_spot: Some(false),
                ..o()
            },
        ),
        (
            &["launch", "--no-use-spot", "--use-spot"],
            Overrides {
                use_spot: Some(true),
                ..o()
            },
        ),
        (
            &[
                "launch",
                "--disk-tier",
                "HIGH",
                "--network-tier",
                "best",
                "--image-id",
                "docker:x",
            ],
            Overrides {
                // As typed (clap only matches it case-insensitively).
                disk_tier: Some("HIGH".into()),
                network_tier: Some("best".into()),
                image_id: Some("docker:x".into()),
                ..o()
            },
        ),
        (
            &[
                "launch",
                "--ports",
                "8080",
                "--ports",
                "9000-9010",
                "--priority",
                "none",
            ],
            Overrides {
                ports: vec!["8080".into(), "9000-9010".into()],
                priority: Some("none".into()),
                ..o()
            },
        ),
        (
            &["launch", "-n", "train", "--local-disk", "nvme"],
            Overrides {
                name: Some("train".into()),
                local_disk: Some("nvme".into()),
                ..o()
            },
        ),
        // `KEY` alone is taken from this process; a later flag wins.
        (
            &[
                "launch", "--env", "A=1", "--env", "SET_HERE", "--env", "A=2",
            ],
            Overrides {
                envs: vec![("A".into(), "2".into()), ("SET_HERE".into(), "here".into())],
                ..o()
            },
        ),
        // Only the names of secrets go on.
        (
            &["launch", "--secret", "SECRET_HERE", "--secret", "TOKEN=abc"],
            Overrides {
                secret_names: vec!["SECRET_HERE".into(), "TOKEN".into()],
                ..o()
            },
        ),
        (
            &[
                "launch",
                "--git-url",
                "https://x/y.git",
                "--git-ref",
                "main",
            ],
            Overrides {
                git_url: Some("https://x/y.git".into()),
                git_ref: Some("main".into()),
                ..o()
            },
        ),
        (
            &[
                "launch",
                "-b",
                "CloudVmRay",
                "-d",
                "-i",
                "10",
                "--wait-for",
                "jobs",
                "--down",
            ],
            Overrides {
                provision: ProvisionFlags {
                    backend: Some("cloudvmray".into()),
                    detach_run: true,
                    idle_minutes_to_autostop: Some(10),
                    wait_for: Some("jobs".into()),
                    down: true,
                    ..ProvisionFlags::default()
                },
                ..o()
            },
        ),
        (
            &[
                "launch",
                "--docker",
                "-r",
                "--no-setup",
                "--clone",
                "old",
                "--fast",
                "--async",
            ],
            Overrides {
                provision: ProvisionFlags {
                    backend: Some("docker".into()),
                    retry_until_up: true,
                    no_setup: true,
                    clone_disk_from: Some("old".into()),
                    fast: true,
                    async_call: true,
                    ..ProvisionFlags::default()
                },
                ..o()
            },
        ),
        (
            &["launch", "-c", "c1", "--resize", "--num-nodes", "3"],
            Overrides {
                num_nodes: Some(3),
                provision: ProvisionFlags {
                    resize: true,
                    ..ProvisionFlags::default()
                },
                ..o()
            },
        ),
    ];
    for (words, expected) in cases {
        let launch = launch_of(words, &env);
        assert_eq!(launch.request.overrides, expected, "{words:?}");
        assert!(launch.request.entrypoint.is_empty(), "{words:?}");
    }
}

#[test]
fn launch_flags_set_the_options_and_the_view() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("existing-file"), "").unwrap();
    let existing = home.path().join("existing-file");
    let existing = existing.to_str().unwrap();
    let cluster_is_a_file = ["launch", "-c", existing];
    let env = environment(home.path(), &[]);
    let quiet = environment(home.path(), &[("SKYPILOT_MINIMIZE_LOGGING", "0")]);
    /// What the row checks beyond the overrides.
    #[derive(Debug, PartialEq)]
    struct View {
        entrypoint: Vec<String>,
        cluster: Option<String>,
        looks_like_path: bool,
        deprecated: bool,
        dryrun: bool,
        yes: bool,
        json: bool,
        timings: bool,
        full_logging: bool,
        plan_out: Option<PathBuf>,
        config: Vec<String>,
        workspace: Option<String>,
        cloud_timeout: Duration,
        refresh: bool,
    }
    let base = || View {
        entrypoint: vec![],
        cluster: None,
        looks_like_path: false,
        deprecated: false,
        dryrun: false,
        yes: false,
        json: false,
        timings: false,
        full_logging: false,
        plan_out: None,
        config: vec![],
        workspace: None,
        cloud_timeout: Duration::from_secs(5),
        refresh: false,
    };
    let cases: Vec<(&[&str], &Environment, View)> = vec![
        (&["launch"], &env, base()),
        (
            &[
                "launch",
                "task.yaml",
                "--dryrun",
                "-y",
                "-o",
                "json",
                "--timings",
            ],
            &env,
            View {
                entrypoint: vec!["task.yaml".into()],
                dryrun: true,
                yes: true,
                json: true,
                timings: true,
                ..base()
            },
        ),
        (
            &[
                "launch",
                "echo",
                "hi",
                "-o",
                "table",
                "--plan-out",
                "plan.json",
            ],
            &env,
            View {
                entrypoint: vec!["echo".into(), "hi".into()],
                plan_out: Some("plan.json".into()),
                ..base()
            },
        ),
        (
            &["launch", "-c", "train"],
            &env,
            View {
                cluster: Some("train".into()),
                ..base()
            },
        ),
        // `_warn_if_name_looks_like_file_path`: a YAML-like suffix, or a file.
        (
            &["launch", "-c", "Task.YML"],
            &env,
            View {
                cluster: Some("Task.YML".into()),
                looks_like_path: true,
                ..base()
            },
        ),
        (
            &cluster_is_a_file,
            &env,
            View {
                cluster: Some(existing.into()),
                looks_like_path: true,
                ..base()
            },
        ),
        (
            &["launch", "--zone", "z"],
            &env,
            View {
                deprecated: true,
                ..base()
            },
        ),
        (
            &["launch"],
            &quiet,
            View {
                full_logging: true,
                ..base()
            },
        ),
        (
            &["launch", "--config", "a.b=1", "--config", "c=2", "-w", "ws"],
            &env,
            View {
                config: vec!["a.b=1".into(), "c=2".into()],
                workspace: Some("ws".into()),
                ..base()
            },
        ),
        (
            &["launch", "--cloud-timeout", "0.25", "--refresh"],
            &env,
            View {
                cloud_timeout: Duration::from_millis(250),
                refresh: true,
                ..base()
            },
        ),
        // No deadline, and no panic making one.
        (
            &["launch", "--cloud-timeout", "1e300"],
            &env,
            View {
                cloud_timeout: MAX_TIMEOUT,
                ..base()
            },
        ),
    ];
    for (words, env, expected) in cases {
        let l = launch_of(words, env);
        let got = View {
            entrypoint: l.request.entrypoint,
            cluster: l.cluster,
            looks_like_path: l.cluster_looks_like_path,
            deprecated: l.deprecated_location_flags,
            dryrun: l.dryrun,
            yes: l.yes,
            json: l.json,
            timings: l.timings,
            full_logging: l.full_logging,
            plan_out: l.plan_out,
            config: l.options.config_args,
            workspace: l.options.workspace,
            cloud_timeout: l.options.cloud_timeout,
            refresh: l.options.refresh,
        };
        assert_eq!(got, expected, "{words:?}");
        assert_eq!(
            l.options.fanout.global_deadline,
            crate::clouds::FanOutOptions::global_deadline_for(expected.cloud_timeout),
            "{words:?}: the global deadline follows --cloud-timeout"
        );
        assert_eq!(l.options.project_dir, env.current_dir, "{words:?}");
    }
}

/// One refused command line: the flag named, the message, how SkyPilot
/// raises it, and the notices said before it.
struct Refused {
    words: &'static [&'static str],
    flag: Option<&'static str>,
    message: &'static str,
    raised: Raised,
    notices: Vec<Notice>,
}

#[test]
fn unusable_flags_are_errors_naming_the_flag() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path(), &[]);
    let refused = |words, flag, message, raised| Refused {
        words,
        flag: Some(flag),
        message,
        raised,
        notices: vec![],
    };
    let cases = vec![
        refused(
            &["launch", "--num-nodes", "0"],
            "--num-nodes",
            "num_nodes should be a positive int. Got: 0",
            Raised::Value,
        ),
        refused(
            &["launch", "--num-nodes=-3"],
            "--num-nodes",
            "num_nodes should be a positive int. Got: -3",
            Raised::Value,
        ),
        refused(
            &["launch", "--num-nodes", "two"],
            "--num-nodes",
            "Invalid value for '--num-nodes': 'two' is not a valid integer.",
            Raised::CommandUsage,
        ),
        refused(
            &["launch", "--disk-size=-5"],
            "--disk-size",
            "\"disk_size\" must be a positive integer (in GB). Got: -5.",
            Raised::Value,
        ),
        refused(
            &["launch", "--git-url", "u", "--workdir", "/"],
            "--git-url",
            "Cannot specify both --git-url and --workdir",
            Raised::Usage,
        ),
        refused(
            &["launch", "--workdir", "/no/such/dir"],
            "--workdir",
            "Invalid value for '--workdir': Directory '/no/such/dir' does not exist.",
            Raised::Usage,
        ),
        refused(
            &["launch", "--resize"],
            "--resize",
            "--resize requires -c/--cluster to specify an existing cluster.",
            Raised::Usage,
        ),
        refused(
            &["launch", "-b", "K8S"],
            "--backend",
            "k8s backend is not supported.",
            Raised::Value,
        ),
        refused(
            &["launch", "--env", "NOT_SET"],
            "--env",
            "NOT_SET is not set in local environment.",
            Raised::Usage,
        ),
        refused(
            &["launch", "--secret", "NOT_SET"],
            "--secret",
            "NOT_SET is not set in local environment.",
            Raised::Usage,
        ),
        refused(
            &["launch", "--env-file", "/no/such.env"],
            "--env-file",
            "Dotenv file does not exist: /no/such.env. Provide a path to an existing file, or remove the flag.",
            Raised::Usage,
        ),
        refused(
            &["launch", "--secret-file", "/no/such.env"],
            "--secret-file",
            "Dotenv file does not exist: /no/such.env. Provide a path to an existing file, or remove the flag.",
            Raised::Usage,
        ),
        refused(
            &["launch", "--cloud-timeout", "0"],
            "--cloud-timeout",
            "--cloud-timeout must be a positive number of seconds, got 0",
            Raised::Ours,
        ),
        refused(
            &["check", "--cloud-timeout", "NaN"],
            "--cloud-timeout",
            "--cloud-timeout must be a positive number of seconds, got NaN",
            Raised::Ours,
        ),
        refused(
            &["catalog", "refresh", "--timeout=-1"],
            "--timeout",
            "--timeout must be a positive number of seconds, got -1",
            Raised::Ours,
        ),
        refused(
            &["catalog", "refresh", "aws", "awz"],
            "CLOUD",
            "Unknown cloud \"awz\". Did you mean: aws?",
            Raised::Ours,
        ),
        refused(
            &["check", "aws", "aws//x"],
            "CLOUD",
            "Invalid infra format: aws//x. Format should not contain empty parts (e.g., double slashes \"//\").",
            Raised::Value,
        ),
        refused(
            &["check", "aws/a/b/c"],
            "CLOUD",
            "Invalid infra format: aws/a/b/c. Expected format is \"cloud\", \"cloud/region\", or \"cloud/region/zone\".",
            Raised::Value,
        ),
        refused(
            &["check", "*"],
            "CLOUD",
            "Invalid infra to check: *",
            Raised::Value,
        ),
        Refused {
            notices: vec![Notice::DeprecatedLocationFlags],
            ..refused(
                &["gpus", "list", "--infra", "gcp", "--cloud", "aws"],
                "--infra",
                "Cannot specify both --infra and --cloud, --region, or --zone.",
                Raised::Bare,
            )
        },
        Refused {
            notices: vec![Notice::DeprecatedLocationFlags],
            ..refused(
                &["gpus", "list", "--cloud", "awz"],
                "--cloud",
                "Unknown cloud \"awz\". Did you mean: aws?",
                Raised::Bare,
            )
        },
        refused(
            &["gpus", "list", "H100:0"],
            "ACCELERATOR",
            "Invalid accelerator quantity 0. Expected a positive integer.",
            Raised::CommandUsage,
        ),
        refused(
            &["show-gpus", "A:B:C"],
            "ACCELERATOR",
            "Invalid accelerator string A:B:C. Expected format: <accelerator_name>[:<quantity>].",
            Raised::CommandUsage,
        ),
        refused(
            &["gpus", "list", "--all", "H100"],
            "--region, --all-regions or --all",
            "--all is only allowed without a GPU name.",
            Raised::CommandUsage,
        ),
        // The deprecation line comes first (click's `secho`), the error after.
        Refused {
            notices: vec![Notice::DeprecatedLocationFlags],
            ..refused(
                &["gpus", "list", "--region", "us-east-1"],
                "--region, --all-regions or --all",
                "The --region flag is only valid when the --cloud flag is set.",
                Raised::CommandUsage,
            )
        },
    ];
    for case in cases {
        let converted = convert_words(case.words, &env);
        let error = match converted.invocation {
            Err(e) => e,
            Ok(i) => panic!("{:?}: expected an error, got {i:?}", case.words),
        };
        assert_eq!(error.to_string(), case.message, "{:?}", case.words);
        assert_eq!(error.flag(), case.flag, "{:?}", case.words);
        assert_eq!(error.raised(), case.raised, "{:?}", case.words);
        assert!(!error.expected().is_empty(), "{:?}", case.words);
        assert_eq!(converted.notices, case.notices, "{:?}", case.words);
    }
}

#[test]
fn the_first_error_in_skypilot_s_order_wins() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path(), &[]);
    let cases: &[(&[&str], &str)] = &[
        // The shared options are read before the subcommand's own flags.
        (
            &["launch", "--cloud-timeout", "0", "--num-nodes", "0"],
            "--cloud-timeout",
        ),
        (
            &["launch", "--num-nodes", "0", "--disk-size=-1"],
            "--num-nodes",
        ),
        (&["launch", "--disk-size=-1", "--resize"], "--disk-size"),
        (&["launch", "--resize", "-b", "x"], "--resize"),
        (
            &["launch", "-b", "x", "--env-file", "/no/such"],
            "--backend",
        ),
        (
            &[
                "launch",
                "--env-file",
                "/no/such",
                "--secret-file",
                "/no/such",
            ],
            "--env-file",
        ),
        (
            &["launch", "--secret-file", "/no/such", "--env", "NOT_SET"],
            "--secret-file",
        ),
        (
            &["launch", "--env", "NOT_SET", "--secret", "NOT_SET"],
            "--env",
        ),
        (
            &["catalog", "refresh", "--timeout", "0", "awz"],
            "--timeout",
        ),
        (&["gpus", "list", "--cloud", "awz", "H100:0"], "--cloud"),
        (
            &["gpus", "list", "--all", "H100:0"],
            "--region, --all-regions or --all",
        ),
    ];
    for (words, flag) in cases {
        let error = convert_words(words, &env).invocation.unwrap_err();
        assert_eq!(error.flag(), Some(*flag), "{words:?}: {error}");
    }
}

#[test]
fn dotenv_files_are_read_as_skypilot_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = |list: &[(&str, &str)]| -> dotenv::Vars {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let cases: Vec<(&str, Result<dotenv::Vars, &str>)> = vec![
        ("", Ok(vec![])),
        ("# only a comment\n\n   \n", Ok(vec![])),
        ("A=1\nB=2\n", Ok(pairs(&[("A", "1"), ("B", "2")]))),
        ("export A=1", Ok(pairs(&[("A", "1")]))),
        ("  A = spaced  ", Ok(pairs(&[("A", "spaced")]))),
        ("A=\"double # kept\"", Ok(pairs(&[("A", "double # kept")]))),
        ("A='single'", Ok(pairs(&[("A", "single")]))),
        ("A=\"unbalanced'", Ok(pairs(&[("A", "\"unbalanced'")]))),
        ("A=value # comment", Ok(pairs(&[("A", "value")]))),
        ("A=a#b", Ok(pairs(&[("A", "a#b")]))),
        ("A=x=y", Ok(pairs(&[("A", "x=y")]))),
        ("A=", Ok(pairs(&[("A", "")]))),
        // A key given twice keeps its first place and its last value.
        ("A=1\nB=2\nA=3", Ok(pairs(&[("A", "3"), ("B", "2")]))),
        (
            "A=1\nexport NOVALUE\n",
            Err("f.env:2: NOVALUE has no value (write KEY=VALUE)."),
        ),
    ];
    for (text, expected) in cases {
        let path = dir.path().join("f.env");
        std::fs::write(&path, text).unwrap();
        let got = dotenv::read_file("--env-file", &path).map_err(|e| {
            assert_eq!(e.flag(), Some("--env-file"));
            e.to_string()
                .replace(&format!("{}/", dir.path().display()), "")
        });
        assert_eq!(got, expected.map_err(str::to_string), "{text:?}");
    }
}

#[test]
fn env_and_secret_files_and_flags_merge_as_skypilot_merges_them() {
    let dir = tempfile::tempdir().unwrap();
    let env_file = dir.path().join("env");
    let secret_file = dir.path().join("secrets");
    std::fs::write(&env_file, "A=file\nB=file\n").unwrap();
    std::fs::write(&secret_file, "S=file-secret\nB=from-secrets\n").unwrap();
    let env = environment(dir.path(), &[]);
    let words = [
        "launch",
        "--env-file",
        env_file.to_str().unwrap(),
        "--secret-file",
        secret_file.to_str().unwrap(),
        "--env",
        "B=flag",
        "--secret",
        "T=flag-secret",
    ];
    let overrides = launch_of(&words, &env).request.overrides;
    // Flags win over the file; the secret file is not an env file.
    assert_eq!(
        overrides.envs,
        vec![("A".into(), "file".into()), ("B".into(), "flag".into())]
    );
    // The env file's variables count as secrets too (both files go to
    // `_merge_cli_and_file_vars`), each name once.
    assert_eq!(overrides.secret_names, vec!["A", "B", "S", "T"]);
}

#[test]
fn a_dotenv_file_that_cannot_be_read_safely_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let mode = rustix::fs::Mode::from_raw_mode(0o600);
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).unwrap();
    let huge = dir.path().join("huge.env");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(crate::input::MAX_CONFIG_FILE_BYTES + 1)
        .unwrap();
    let env = environment(dir.path(), &[]);
    // (flag, path, refused as missing: not a regular file at all)
    let cases = [
        ("--env-file", fifo, true),
        ("--secret-file", dir.path().to_path_buf(), true),
        ("--env-file", huge, false),
    ];
    for (flag, path, missing) in cases {
        let words = ["launch", flag, path.to_str().unwrap()];
        let error = convert_words(&words, &env).invocation.unwrap_err();
        assert_eq!(error.flag(), Some(flag), "{path:?}");
        assert_eq!(error.raised(), Raised::Usage, "{path:?}");
        assert_eq!(
            matches!(error, ArgsError::DotenvMissing { .. }),
            missing,
            "{path:?}: {error}"
        );
        assert!(
            error.to_string().contains(path.to_str().unwrap()),
            "{error}"
        );
    }
}

#[test]
fn check_arguments_become_the_declared_clouds_and_providers() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path(), &[("SKY_ENABLED_CLOUDS", "gcp")]);
    struct Expected {
        declared: Option<Vec<CloudId>>,
        storage_only: Vec<StorageOnly>,
        order: Vec<Provider>,
        unknown: Option<&'static str>,
        notices: Vec<Notice>,
        json: bool,
        verbose: bool,
    }
    let none = || Expected {
        declared: None,
        storage_only: vec![],
        order: vec![],
        unknown: None,
        notices: vec![],
        json: false,
        verbose: false,
    };
    let cases: Vec<(&[&str], Expected)> = vec![
        // No names: every cloud is checked, whatever SKY_ENABLED_CLOUDS
        // declares.
        (&["check"], none()),
        (
            &["check", "-o", "json", "-v"],
            Expected {
                json: true,
                verbose: true,
                ..none()
            },
        ),
        (
            &["check", "AWS", "k8s/ctx/with/slashes", "cloudflare", "aws", "nope", "other"],
            Expected {
                declared: Some(vec![CloudId::Aws, CloudId::Kubernetes]),
                storage_only: vec![StorageOnly::Cloudflare],
                order: vec![
                    CloudId::Aws.into(),
                    CloudId::Kubernetes.into(),
                    StorageOnly::Cloudflare.into(),
                    CloudId::Aws.into(),
                ],
                unknown: Some("nope"),
                notices: vec![Notice::CheckLocationIgnored(
                    "Infra k8s/ctx/with/slashes is specified, but `check` only supports checking kubernetes, ignoring ctx/with/slashes".into(),
                )],
                ..none()
            },
        ),
        (
            &["check", "/aws/us-east-1/"],
            Expected {
                declared: Some(vec![CloudId::Aws]),
                order: vec![CloudId::Aws.into()],
                notices: vec![Notice::CheckLocationIgnored(
                    "Infra /aws/us-east-1/ is specified, but `check` only supports checking aws, ignoring aws/us-east-1/".into(),
                )],
                ..none()
            },
        ),
        // Only storage-only providers: no compute cloud is declared.
        (
            &["check", "huggingface"],
            Expected {
                declared: Some(vec![]),
                storage_only: vec![StorageOnly::HuggingFace],
                order: vec![StorageOnly::HuggingFace.into()],
                ..none()
            },
        ),
    ];
    for (words, expected) in cases {
        let converted = convert_words(words, &env);
        let check = match converted.invocation {
            Ok(Invocation::Check(c)) => c,
            other => panic!("{words:?}: expected a check, got {other:?}"),
        };
        let o = &check.options;
        assert_eq!(o.declared_clouds, expected.declared, "{words:?}");
        assert_eq!(o.declared_storage_only, expected.storage_only, "{words:?}");
        assert_eq!(
            o.declared_order.as_ref(),
            Some(&expected.order),
            "{words:?}"
        );
        assert_eq!(o.declared_unknown.as_deref(), expected.unknown, "{words:?}");
        // What SKY_ENABLED_CLOUDS declares is kept apart, whatever is named.
        assert_eq!(
            check.declared_by_env.as_deref(),
            Some(&[CloudId::Gcp][..]),
            "{words:?}"
        );
        assert_eq!(converted.notices, expected.notices, "{words:?}");
        assert_eq!(
            (check.json, check.verbose),
            (expected.json, expected.verbose),
            "{words:?}"
        );
    }
}

#[test]
fn gpus_list_flags_become_the_query() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path(), &[]);
    type Accelerator = Option<(String, Option<u32>)>;
    let h100 = |n: Option<u32>| -> Accelerator { Some(("H100".into(), n)) };
    // (words, accelerator, cloud, region, all, all_regions, sort, json, verbose, notices)
    #[allow(clippy::type_complexity)]
    let cases: Vec<(
        &[&str],
        Accelerator,
        Option<CloudId>,
        Option<&str>,
        (bool, bool),
        SortBy,
        (bool, bool),
        Vec<Notice>,
    )> = vec![
        (
            &["gpus", "list"],
            None,
            None,
            None,
            (false, false),
            SortBy::Cloud,
            (false, false),
            vec![],
        ),
        (
            &[
                "gpus",
                "list",
                "H100:8",
                "--infra",
                "aws/us-east-1",
                "-o",
                "json",
                "-v",
            ],
            h100(Some(8)),
            Some(CloudId::Aws),
            Some("us-east-1"),
            (false, false),
            SortBy::Cloud,
            (true, true),
            vec![],
        ),
        (
            &["show-gpus", "H100", "--all-regions", "--sort-by", "spot"],
            h100(None),
            None,
            None,
            (false, true),
            SortBy::Spot,
            (false, false),
            vec![],
        ),
        // Ours: --all-regions without a GPU name.
        (
            &["gpus", "list", "--all-regions"],
            None,
            None,
            None,
            (false, true),
            SortBy::Cloud,
            (false, false),
            vec![],
        ),
        (
            &[
                "gpus",
                "list",
                "-a",
                "--sort-by",
                "price",
                "--cloud",
                "gcp",
                "--region",
                "us-central1",
            ],
            None,
            Some(CloudId::Gcp),
            Some("us-central1"),
            (true, false),
            SortBy::Price,
            (false, false),
            vec![Notice::DeprecatedLocationFlags],
        ),
        // `*` is any cloud, any region.
        (
            &["gpus", "list", "--cloud", "*", "--region", "*"],
            None,
            None,
            None,
            (false, false),
            SortBy::Cloud,
            (false, false),
            vec![Notice::DeprecatedLocationFlags],
        ),
    ];
    for (words, accelerator, cloud, region, (all, all_regions), sort, (json, verbose), notices) in
        cases
    {
        let converted = convert_words(words, &env);
        let gpus = match converted.invocation {
            Ok(Invocation::GpusList(g)) => g,
            other => panic!("{words:?}: expected a listing, got {other:?}"),
        };
        let q = &gpus.query;
        assert_eq!(q.accelerator, accelerator, "{words:?}");
        assert_eq!(q.cloud, cloud, "{words:?}");
        assert_eq!(q.region.as_deref(), region, "{words:?}");
        assert_eq!((q.all, q.all_regions), (all, all_regions), "{words:?}");
        assert_eq!(q.sort, sort, "{words:?}");
        assert_eq!((gpus.json, gpus.verbose), (json, verbose), "{words:?}");
        assert_eq!(converted.notices, notices, "{words:?}");
    }
}

#[test]
fn catalog_refresh_names_clouds_and_says_the_option_warnings_first() {
    let home = tempfile::tempdir().unwrap();
    let env = environment(home.path(), &[("SKY_ENABLED_CLOUDS", "aws,bogus")]);
    let cases: &[(&[&str], &[CloudId], Duration)] = &[
        (&["catalog", "refresh"], &[], Duration::from_secs(60)),
        (
            &["catalog", "refresh", "aws", "GCP", "--timeout", "2.5"],
            &[CloudId::Aws, CloudId::Gcp],
            Duration::from_millis(2500),
        ),
        // Capped, not a panic in `Duration::from_secs_f64`.
        (
            &["catalog", "refresh", "--timeout", "1e300"],
            &[],
            MAX_TIMEOUT,
        ),
    ];
    for (words, clouds, timeout) in cases {
        let converted = convert_words(words, &env);
        let refresh = match converted.invocation {
            Ok(Invocation::CatalogRefresh(r)) => r,
            other => panic!("{words:?}: expected a refresh, got {other:?}"),
        };
        assert_eq!(refresh.clouds, *clouds, "{words:?}");
        assert_eq!(refresh.timeout, *timeout, "{words:?}");
        assert!(
            matches!(converted.notices.as_slice(), [Notice::OptionWarning(w)] if w.contains("\"bogus\"")),
            "{words:?}: {:?}",
            converted.notices
        );
    }
    // Said even when the flags are then refused.
    let converted = convert_words(&["catalog", "refresh", "awz"], &env);
    assert!(converted.invocation.is_err());
    assert_eq!(converted.notices.len(), 1);
}
