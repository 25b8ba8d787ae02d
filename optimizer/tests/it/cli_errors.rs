//! How `sky` reports a flag it cannot use, through the real binary: each
//! kind of error SkyPilot's CLI raises is printed as it prints it (click's
//! `Error:` with or without the usage lines, `ValueError:`, a bare
//! message, ours as `sky: error:`) with its exit code, and what is said
//! before the error (a deprecation line, an option warning) comes first.
//! The conversion's own tables are in `optimizer::args`' unit tests.

use std::process::Command;

/// One command line and what `sky` answers.
struct Case {
    args: &'static [&'static str],
    code: i32,
    stdout: &'static str,
    stderr: String,
}

fn sky(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sky"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("SKY_BUNDLED_CATALOGS", "1")
        .env("SKY_ENABLED_CLOUDS", "lambda,bogus")
        .args(args)
        .output()
        .expect("run sky")
}

/// What `SKY_ENABLED_CLOUDS=lambda,bogus` makes `sky catalog refresh` say first.
const BOGUS: &str = "sky: warning: SKY_ENABLED_CLOUDS: Unknown cloud \"bogus\". Known clouds: aws, gcp, azure, lambda, runpod, paperspace, cudo, kubernetes, do, fluidstack, hyperbolic, ibm, mithril, nebius, oci, primeintellect, scp, seeweb, shadeform, slurm, ssh, vast, verda, vsphere, yotta. Ignoring it.\n";

#[test]
fn each_kind_of_flag_error_prints_as_skypilot_prints_it_with_its_exit_code() {
    let home = tempfile::tempdir().unwrap();
    let cases = [
        Case {
            args: &["launch", "--git-url", "u", "--workdir", "/"],
            code: 2,
            stdout: "",
            stderr: "Error: Cannot specify both --git-url and --workdir\n".into(),
        },
        Case {
            args: &["launch", "--env-file", "/no/such.env"],
            code: 2,
            stdout: "",
            stderr: "Error: Dotenv file does not exist: /no/such.env. Provide a path to an existing file, or remove the flag.\n".into(),
        },
        Case {
            args: &["launch", "-b", "k8s"],
            code: 1,
            stdout: "",
            stderr: "ValueError: k8s backend is not supported.\n".into(),
        },
        Case {
            args: &["launch", "--num-nodes", "0"],
            code: 1,
            stdout: "",
            stderr: "ValueError: num_nodes should be a positive int. Got: 0\n".into(),
        },
        // click's parser refuses a value of the wrong type under the usage lines.
        Case {
            args: &["launch", "--num-nodes", "two"],
            code: 2,
            stdout: "",
            stderr: "Usage: sky launch [OPTIONS] [ENTRYPOINT]...\nTry 'sky launch -h' for help.\n\nError: Invalid value for '--num-nodes': 'two' is not a valid integer.\n".into(),
        },
        // An unknown option: click's `NoSuchOption`, with the closest option.
        Case {
            args: &["launch", "--nodes", "2"],
            code: 2,
            stdout: "",
            stderr: "Usage: sky launch [OPTIONS] [ENTRYPOINT]...\nTry 'sky launch -h' for help.\n\nError: No such option: --nodes Did you mean --num-nodes?\n".into(),
        },
        Case {
            args: &["check", "aws//x"],
            code: 1,
            stdout: "",
            stderr: "ValueError: Invalid infra format: aws//x. Format should not contain empty parts (e.g., double slashes \"//\").\n".into(),
        },
        Case {
            args: &["gpus", "list", "H100:0"],
            code: 2,
            stdout: "",
            stderr: "Usage: sky gpus list [OPTIONS] [ACCELERATOR_STR]\nTry 'sky gpus list --help' for help.\n\nError: Invalid accelerator quantity 0. Expected a positive integer.\n".into(),
        },
        // The deprecation line first (stdout), then the bare message.
        Case {
            args: &["gpus", "list", "--cloud", "aws", "--infra", "gcp"],
            code: 1,
            stdout: "The --cloud, --region, and --zone options are deprecated. Use --infra instead.\n",
            stderr: "Cannot specify both --infra and --cloud, --region, or --zone.\n".into(),
        },
        // The option warnings first, then ours.
        Case {
            args: &["catalog", "refresh", "awz"],
            code: 2,
            stdout: "",
            stderr: format!("{BOGUS}sky: error: Unknown cloud \"awz\". Did you mean: aws?\n"),
        },
        Case {
            args: &["catalog", "refresh", "--timeout", "0"],
            code: 2,
            stdout: "",
            stderr: format!("{BOGUS}sky: error: --timeout must be a positive number of seconds, got 0\n"),
        },
        // The shared options fail before the warnings are said.
        Case {
            args: &["catalog", "refresh", "--cloud-timeout", "0"],
            code: 2,
            stdout: "",
            stderr: "sky: error: --cloud-timeout must be a positive number of seconds, got 0\n".into(),
        },
    ];
    for case in cases {
        let out = sky(home.path(), case.args);
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).as_ref(),
                String::from_utf8_lossy(&out.stderr).as_ref(),
            ),
            (Some(case.code), case.stdout, case.stderr.as_str()),
            "sky {}",
            case.args.join(" ")
        );
    }
}
