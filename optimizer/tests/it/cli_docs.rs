//! `sky --generate`: man pages and completions come from the parser's own
//! definition, so every flag `--help` shows is documented and completable.

use std::process::Command;

fn sky(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sky"))
        .args(args)
        .output()
        .expect("run sky")
}

/// The long flags a subcommand's `--help` lists.
fn long_flags(subcommand: &str) -> Vec<String> {
    let out = sky(&[subcommand, "--help"]);
    assert!(out.status.success(), "sky {subcommand} --help failed");
    let help = String::from_utf8(out.stdout).unwrap();
    let mut flags: Vec<String> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[' || c == '<')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches(['.', ')', ']']).to_string())
        .collect();
    flags.sort();
    flags.dedup();
    assert!(
        flags.len() > 3,
        "too few flags parsed from the help:\n{help}"
    );
    flags
}

#[test]
fn man_pages_document_every_flag_of_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let man = dir.path().join("man1");
    let out = sky(&["--generate", "man", man.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let top = std::fs::read_to_string(man.join("sky.1")).expect("sky.1 written");
    assert!(top.contains(".TH sky 1"), "{top}");
    for sub in ["launch", "check"] {
        let page = std::fs::read_to_string(man.join(format!("sky-{sub}.1")))
            .unwrap_or_else(|e| panic!("sky-{sub}.1: {e}"));
        assert!(page.contains(&format!(".TH sky-{sub} 1")), "{page}");
        for flag in long_flags(sub) {
            // roff escapes every '-' of a flag.
            let escaped = flag.replace('-', "\\-");
            assert!(
                page.contains(&escaped),
                "sky-{sub}.1 does not document {flag}"
            );
        }
    }
}

#[test]
fn completions_offer_the_subcommands_and_their_flags() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef sky"),
        ("fish", "complete -c sky"),
    ] {
        let out = sky(&["--generate", &format!("complete-{shell}")]);
        assert!(
            out.status.success(),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell} script lacks {marker:?}");
        for word in ["launch", "check", "gpus", "cloud-timeout"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
}

#[test]
fn an_unknown_kind_names_the_accepted_ones() {
    let out = sky(&["--generate", "complete-tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"complete-tcsh\"") && err.contains("complete-bash"),
        "{err}"
    );
    let out = sky(&["--generate", "man"]);
    assert_eq!(out.status.code(), Some(2), "man without a folder must fail");
}
