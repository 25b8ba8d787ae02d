//! The words SkyPilot's CLI is given: which invocations are SkyPilot's
//! ([`passes_through`]) and a confirmed launch's words rewritten for its
//! `sky launch` ([`launch_words`]).
//!
//! Both read this `sky`'s own clap definition (`args::flags`), so a
//! subcommand or flag added there is known here without a second list.

use std::ffi::{OsStr, OsString};

use clap::Subcommand;

use crate::args::flags::Command;

/// Words that are this `sky`'s even though no subcommand is named.
const OUR_TOP_LEVEL: [&str; 5] = ["-h", "--help", "-V", "--version", "--generate"];

/// `sky launch` flags (clap ids) SkyPilot's `sky launch` takes as given.
/// Not here: the pins (`infra`, `cloud`, `region`, `zone`, `gpus`,
/// `instance_type`, `use_spot`, `no_use_spot`, `num_nodes`: the pinned task
/// carries them, and SkyPilot would apply a flag to every entry of the
/// `ordered` list, undoing the pins), `dryrun` (a dry run never hands off)
/// and this tool's own (`--catalog-dir`, `--refresh`, `--cloud-timeout`,
/// `--trace`, `--timings`, `-o`, `--plan-out`, `-b`, and any added later).
const SKYPILOT_LAUNCH_FLAGS: [&str; 32] = [
    "config",
    "cluster",
    "detach_run",
    "docker",
    "name",
    "workdir",
    "cpus",
    "memory",
    "disk_size",
    "disk_tier",
    "network_tier",
    "image_id",
    "env_file",
    "env",
    "secret_file",
    "secret",
    "local_disk",
    "ports",
    "priority",
    "async_call",
    "no_async",
    "idle_minutes_to_autostop",
    "wait_for",
    "down",
    "retry_until_up",
    "yes",
    "no_setup",
    "clone_disk_from",
    "fast",
    "resize",
    "git_url",
    "git_ref",
];

/// `sky launch -w`: kept too (SkyPilot's `--workspace`).
const WORKSPACE: &str = "workspace";

fn our_cli() -> clap::Command {
    Command::augment_subcommands(clap::Command::new("sky"))
}

/// Whether `args` (the whole command line, program name first) is for
/// SkyPilot's CLI: a first word that is neither one of this `sky`'s
/// subcommands (or their aliases, or `help`) nor its `--help`/`--version`.
/// `sky` alone is ours (clap's usage).
pub fn passes_through(args: &[OsString]) -> bool {
    let Some(first) = args.get(1).and_then(|w| w.to_str()) else {
        // No word, or one that is not UTF-8: ours (clap says what is wrong).
        return false;
    };
    if OUR_TOP_LEVEL.contains(&first) || first == "help" {
        return false;
    }
    // The derive's own name match: no clap `Command` is built on this path,
    // which every `sky` run takes.
    !Command::has_subcommand(first)
}

/// One word of `sky launch`'s command line, read with its definition.
enum Word<'a> {
    /// A flag (clap id) with the words that gave it (the flag and its value).
    Flag(&'a str, Vec<OsString>),
    /// A word of the entrypoint.
    Entrypoint,
}

/// SkyPilot's `sky launch` words for a confirmed launch of `args` (this
/// process's words, `sky launch ...`): `launch`, the flags SkyPilot takes
/// kept as written and in order, `-c CLUSTER` when none was given (the name
/// the prompt showed), `--yes` (the launch was confirmed here), then the
/// pinned task file in place of the entrypoint.
pub fn launch_words(args: &[OsString], cluster: &str, task_file: &OsStr) -> Vec<OsString> {
    let cli = our_cli();
    let Some(launch) = cli.find_subcommand("launch") else {
        return Vec::new();
    };
    let mut out: Vec<OsString> = vec!["launch".into()];
    let mut has_cluster = false;
    let mut has_yes = false;
    for word in read_launch(launch, args.get(2..).unwrap_or_default()) {
        if let Word::Flag(id, words) = word
            && (SKYPILOT_LAUNCH_FLAGS.contains(&id) || id == WORKSPACE)
        {
            has_cluster |= id == "cluster";
            has_yes |= id == "yes";
            out.extend(words);
        }
    }
    if !has_cluster {
        out.extend(["--cluster".into(), cluster.into()]);
    }
    if !has_yes {
        out.push("--yes".into());
    }
    out.push(task_file.into());
    out
}

/// The words after `sky launch`, read as clap read them (it accepted them).
fn read_launch<'a>(launch: &'a clap::Command, words: &[OsString]) -> Vec<Word<'a>> {
    let by_long = |name: &str| {
        launch.get_arguments().find(|a| {
            a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|v| v.contains(&name))
        })
    };
    let by_short = |c: char| {
        launch.get_arguments().find(|a| {
            a.get_short() == Some(c) || a.get_all_short_aliases().is_some_and(|v| v.contains(&c))
        })
    };
    let mut out = Vec::new();
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        let Some(text) = word.to_str() else {
            out.push(Word::Entrypoint);
            continue;
        };
        if text == "--" {
            out.extend(iter.by_ref().map(|_| Word::Entrypoint));
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let Some(arg) = by_long(name) else {
                out.push(Word::Entrypoint);
                continue;
            };
            let mut given = vec![word.clone()];
            if takes_value(arg)
                && inline.is_none()
                && let Some(value) = iter.next()
            {
                given.push(value.clone());
            }
            out.push(Word::Flag(arg.get_id().as_str(), given));
            continue;
        }
        if let Some(shorts) = text.strip_prefix('-').filter(|s| !s.is_empty()) {
            // A cluster of short flags (`-yd`), the last of which may take
            // the rest of the word or the next word as its value (`-cNAME`).
            for (at, c) in shorts.char_indices() {
                let Some(arg) = by_short(c) else {
                    break;
                };
                let id = arg.get_id().as_str();
                if takes_value(arg) {
                    let rest = &shorts[at + c.len_utf8()..];
                    let rest = rest.strip_prefix('=').unwrap_or(rest);
                    let mut given = vec![OsString::from(format!("-{c}"))];
                    if !rest.is_empty() {
                        given.push(rest.into());
                    } else if let Some(value) = iter.next() {
                        given.push(value.clone());
                    }
                    out.push(Word::Flag(id, given));
                    break;
                }
                out.push(Word::Flag(id, vec![format!("-{c}").into()]));
            }
            continue;
        }
        out.push(Word::Entrypoint);
    }
    out
}

/// Whether the flag consumes a value: its number of values where set (a
/// switch, `args::flags`, is `ArgAction::Set` with `num_args = 0`), else
/// what its action takes.
fn takes_value(arg: &clap::Arg) -> bool {
    arg.get_num_args()
        .map_or_else(|| arg.get_action().takes_values(), |n| n.takes_values())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    fn shown(words: &[OsString]) -> String {
        words
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn ours_stay_ours_and_the_rest_is_skypilot_s() {
        for line in [
            "sky",
            "sky launch",
            "sky check",
            "sky gpus list",
            "sky show-gpus",
            "sky offers --gpus H100",
            "sky catalog refresh",
            "sky --help",
            "sky -h",
            "sky --version",
            "sky -V",
            "sky help",
            "sky --generate man x",
        ] {
            assert!(!passes_through(&words(line)), "{line}");
        }
        for line in [
            "sky status",
            "sky down -a",
            "sky stop c",
            "sky exec c task.yaml",
            "sky jobs launch x.yaml",
            "sky serve up s.yaml",
            "sky api info",
            "sky -v",
            "sky --unknown",
            "sky lanch",
        ] {
            assert!(passes_through(&words(line)), "{line}");
        }
    }

    #[test]
    fn a_confirmed_launch_keeps_skypilot_s_flags_and_drops_pins_and_ours() {
        let cases = [
            (
                "sky launch task.yaml --gpus A100:8 --infra aws -c train --env A=1 -i 10 --down --timings --catalog-dir /c -o json --plan-out p.json",
                "launch -c train --env A=1 -i 10 --down --yes /tmp/t.yaml",
            ),
            (
                "sky launch -yd --cpus=4+ --use-spot --num-nodes 2 -tp3.2xlarge --secret HF_TOKEN --config=a.b=1 -- python train.py --lr 1",
                "launch -y -d --cpus=4+ --secret HF_TOKEN --config=a.b=1 --cluster sky-abcd-me /tmp/t.yaml",
            ),
            (
                "sky launch --no-use-spot --workdir . -w prod --name job --trace t.json --refresh -b cloudvmray x.yaml",
                "launch --workdir . -w prod --name job --cluster sky-abcd-me --yes /tmp/t.yaml",
            ),
            (
                "sky launch --cluster=c --clone src --async --disk-size 100 --ports 8080 --ports 9000",
                "launch --cluster=c --clone src --async --disk-size 100 --ports 8080 --ports 9000 --yes /tmp/t.yaml",
            ),
        ];
        for (line, want) in cases {
            let got = launch_words(&words(line), "sky-abcd-me", OsStr::new("/tmp/t.yaml"));
            assert_eq!(shown(&got), want, "{line}");
        }
    }
}
