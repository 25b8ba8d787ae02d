//! `~/.slurm/config`: an OpenSSH client configuration with one `Host` per
//! Slurm cluster (its login node), read the way SkyPilot 0.14.1 reads it.
//!
//! SkyPilot parses the file with `paramiko.SSHConfig`
//! (`sky/provision/slurm/utils.py::get_slurm_ssh_config`), lists the clusters
//! with `get_all_slurm_cluster_names` (every `Host` pattern but `*`) and
//! connects with `SSHConfig.lookup(cluster)`. This module is that parser and
//! that lookup, on text: paramiko's rules (first value wins, `IdentityFile`
//! accumulates, `ProxyCommand none`, surrounding quotes stripped, `%h`/`~`
//! token expansion per key) and its error texts.
//!
//! Deviations from SkyPilot 0.14.1 that are deliberate:
//! * cluster names keep their order of first appearance in the file;
//!   paramiko returns a Python `set`, whose order changes from run to run;
//! * `Match` blocks are refused as SkyPilot refuses them (its
//!   `get_hostnames` fails on a `Match` section with `KeyError: 'host'`), so
//!   they are never evaluated;
//! * the tokens that need the local host name (`%C`, `%L`, `%l`) are left
//!   as written.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// Where SkyPilot reads the clusters from, as it names the file in messages.
pub const SLURM_CONFIG_PATH: &str = "~/.slurm/config";

/// A parsed SSH client configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SshConfig {
    sections: Vec<Section>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Section {
    /// `Host` patterns; `None` for a `Match` block.
    hosts: Option<Vec<String>>,
    /// Options in file order, keys lower-cased.
    options: Vec<(String, OptionValue)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum OptionValue {
    /// A single value; `None` is `ProxyCommand none`.
    One(Option<String>),
    /// `IdentityFile`, `LocalForward`, `RemoteForward`: every value, in order.
    Many(Vec<String>),
}

/// What `lookup` found for one host (paramiko's `SSHConfigDict`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HostConfig {
    /// Options by lower-case key, tokens expanded; `None` is `ProxyCommand none`.
    pub options: BTreeMap<String, Option<String>>,
    /// `IdentityFile` values, in order, tokens expanded.
    pub identity_files: Vec<String>,
}

impl HostConfig {
    /// `HostName` (the alias when the file does not set it).
    pub fn hostname(&self) -> &str {
        self.get("hostname").unwrap_or_default()
    }

    /// A single-valued option.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options.get(key).and_then(|v| v.as_deref())
    }

    /// SkyPilot's `get_identity_file`: the first `IdentityFile`, if any.
    pub fn identity_file(&self) -> Option<&str> {
        self.identity_files.first().map(String::as_str)
    }

    /// SkyPilot's `get_identities_only`: `IdentitiesOnly yes`.
    pub fn identities_only(&self) -> bool {
        self.get("identitiesonly")
            .is_some_and(|v| v.eq_ignore_ascii_case("yes"))
    }
}

/// The local facts token expansion needs (`~`, `%d`, `%u`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalUser {
    /// The home directory, as `os.path.expanduser('~')` gives it.
    pub home: String,
    /// The local user name (`getpass.getuser()`).
    pub user: String,
}

/// A configuration paramiko refuses (`ConfigParseError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SshConfigError(pub String);

static SETTING_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\w+)(?:\s*=\s*|\s+)(.+)").expect("static regex"));

/// The keys whose tokens paramiko expands, and which tokens
/// (`SSHConfig.TOKENS_BY_CONFIG_KEY`, without the local-host ones).
fn allowed_tokens(key: &str) -> &'static [&'static str] {
    match key {
        "hostname" => &["%h"],
        "identityfile" => &["~", "%d", "%h", "%u", "%r"],
        "proxycommand" => &["~", "%h", "%p", "%r"],
        "proxyjump" => &["%h", "%p", "%r"],
        "controlpath" => &["%h", "%n", "%p", "%r", "%u"],
        _ => &[],
    }
}

impl SshConfig {
    /// Parses the text as `paramiko.SSHConfig.parse` does.
    pub fn parse(text: &str) -> Result<SshConfig, SshConfigError> {
        let mut sections = Vec::new();
        let mut current = Section {
            hosts: Some(vec!["*".to_string()]),
            options: Vec::new(),
        };
        for raw in py_lines(text) {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let caps = SETTING_RE
                .captures(line)
                .ok_or_else(|| SshConfigError(format!("Unparsable line {line}")))?;
            let key = caps[1].to_ascii_lowercase();
            let value = caps[2].to_string();
            if key == "host" || key == "match" {
                sections.push(std::mem::replace(
                    &mut current,
                    Section {
                        hosts: None,
                        options: Vec::new(),
                    },
                ));
                if key == "host" {
                    let hosts = shlex_split(&value)
                        .ok_or_else(|| SshConfigError(format!("Unparsable host {value}")))?;
                    current.hosts = Some(hosts);
                }
                continue;
            }
            if key == "proxycommand" && value.eq_ignore_ascii_case("none") {
                // paramiko sets this one unconditionally (a later `none` wins).
                current.options.retain(|(k, _)| *k != key);
                current.options.push((key, OptionValue::One(None)));
                continue;
            }
            let value = if value.starts_with('"') && value.ends_with('"') {
                value
                    .get(1..value.len() - 1)
                    .unwrap_or_default()
                    .to_string()
            } else {
                value
            };
            if matches!(
                key.as_str(),
                "identityfile" | "localforward" | "remoteforward"
            ) {
                match current.options.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, OptionValue::Many(list))) => list.push(value),
                    _ => current.options.push((key, OptionValue::Many(vec![value]))),
                }
            } else if !current.options.iter().any(|(k, _)| *k == key) {
                current.options.push((key, OptionValue::One(Some(value))));
            }
        }
        sections.push(current);
        Ok(SshConfig { sections })
    }

    /// SkyPilot's `get_all_slurm_cluster_names`: every `Host` pattern except
    /// `*`, in order of first appearance. A `Match` block makes paramiko's
    /// `get_hostnames` fail; the error is that failure's text.
    pub fn cluster_names(&self) -> Result<Vec<String>, String> {
        let mut out: Vec<String> = Vec::new();
        for section in &self.sections {
            let Some(hosts) = &section.hosts else {
                return Err("KeyError: 'host'".to_string());
            };
            for h in hosts {
                if h != "*" && !out.contains(h) {
                    out.push(h.clone());
                }
            }
        }
        Ok(out)
    }

    /// `SSHConfig.lookup(alias)`: the options of every section whose `Host`
    /// patterns match, first value winning, with `HostName` defaulting to
    /// the alias and tokens expanded.
    pub fn lookup(&self, alias: &str, local: &LocalUser) -> HostConfig {
        let mut ones: Vec<(String, Option<String>)> = Vec::new();
        let mut identity_files: Vec<String> = Vec::new();
        for section in &self.sections {
            let Some(hosts) = &section.hosts else {
                continue;
            };
            if !patterns_match(hosts, alias) {
                continue;
            }
            for (key, value) in &section.options {
                match value {
                    OptionValue::Many(list) if key == "identityfile" => {
                        for v in list {
                            if !identity_files.contains(v) {
                                identity_files.push(v.clone());
                            }
                        }
                    }
                    OptionValue::Many(list) => {
                        if !ones.iter().any(|(k, _)| k == key) {
                            ones.push((key.clone(), list.first().cloned()));
                        }
                    }
                    OptionValue::One(v) => {
                        if !ones.iter().any(|(k, _)| k == key) {
                            ones.push((key.clone(), v.clone()));
                        }
                    }
                }
            }
        }
        if !ones.iter().any(|(k, _)| k == "hostname") {
            ones.push(("hostname".into(), Some(alias.to_string())));
        }
        let raw: BTreeMap<String, Option<String>> = ones.into_iter().collect();
        let expand = |key: &str, value: &str| expand_tokens(&raw, alias, key, value, local);
        let options = raw
            .iter()
            .map(|(k, v)| (k.clone(), v.as_deref().map(|v| expand(k, v))))
            .collect();
        let identity_files = identity_files
            .iter()
            .map(|v| expand("identityfile", v))
            .collect();
        HostConfig {
            options,
            identity_files,
        }
    }
}

/// paramiko's `_tokenize` for the tokens this module supports.
fn expand_tokens(
    config: &BTreeMap<String, Option<String>>,
    target: &str,
    key: &str,
    value: &str,
    local: &LocalUser,
) -> String {
    let allowed = allowed_tokens(key);
    if allowed.is_empty() {
        return value.to_string();
    }
    let configured_host = if key == "hostname" {
        target.to_string()
    } else {
        config
            .get("hostname")
            .cloned()
            .flatten()
            .unwrap_or_else(|| target.to_string())
    };
    let port = config
        .get("port")
        .cloned()
        .flatten()
        .unwrap_or_else(|| "22".to_string());
    let remote_user = config
        .get("user")
        .cloned()
        .flatten()
        .unwrap_or_else(|| local.user.clone());
    // paramiko's replacement order.
    let replacements: [(&str, &str); 7] = [
        ("%d", &local.home),
        ("%h", &configured_host),
        ("%n", target),
        ("%p", &port),
        ("%r", &remote_user),
        ("%u", &local.user),
        ("~", &local.home),
    ];
    let mut out = value.to_string();
    for (token, with) in replacements {
        if allowed.contains(&token) {
            out = out.replace(token, with);
        }
    }
    out
}

/// paramiko's `_pattern_matches`: a negated pattern that matches vetoes.
fn patterns_match(patterns: &[String], target: &str) -> bool {
    let mut matched = false;
    for p in patterns {
        if let Some(neg) = p.strip_prefix('!') {
            if fnmatch(neg, target) {
                return false;
            }
        } else if fnmatch(p, target) {
            matched = true;
        }
    }
    matched
}

/// Python's `fnmatch.fnmatch` on POSIX (case-sensitive): `*`, `?`, `[...]`.
fn fnmatch(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    fn go(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|i| go(&p[1..], &n[i..])),
            Some('?') => !n.is_empty() && go(&p[1..], &n[1..]),
            Some('[') => match class_end(p) {
                Some(end) => {
                    !n.is_empty() && class_matches(&p[1..end], n[0]) && go(&p[end + 1..], &n[1..])
                }
                None => n.first() == Some(&'[') && go(&p[1..], &n[1..]),
            },
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    go(&p, &n)
}

/// Index of the `]` closing the class that starts at `p[0] == '['`.
fn class_end(p: &[char]) -> Option<usize> {
    let mut i = 1;
    if p.get(i) == Some(&'!') {
        i += 1;
    }
    if p.get(i) == Some(&']') {
        i += 1;
    }
    while i < p.len() {
        if p[i] == ']' {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negate, body) = match class.first() {
        Some('!') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut i = 0;
    let mut hit = false;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            if body[i] <= c && c <= body[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if body[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    hit != negate
}

/// Lines as Python iterates a text file (`\n`, `\r\n` and `\r` end a line).
fn py_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .flat_map(|l| l.split('\r'))
        .filter(|l| !l.is_empty())
}

/// Python's `shlex.split` (POSIX mode, no comments); `None` on an unclosed
/// quote or a trailing backslash.
fn shlex_split(s: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\\' => {
                word.push(chars.next()?);
                in_word = true;
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        ch => word.push(ch),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => {
                            let next = chars.next()?;
                            if !matches!(next, '\\' | '"' | '$' | '`' | '\n') {
                                word.push('\\');
                            }
                            word.push(next);
                        }
                        ch => word.push(ch),
                    }
                }
            }
            ch => {
                word.push(ch);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> LocalUser {
        LocalUser {
            home: "/home/me".into(),
            user: "me".into(),
        }
    }

    const CONFIG: &str = "\
# clusters
User fallback
Host gpu-cluster campus
    HostName login.%h.example.com
    IdentityFile ~/.ssh/a
Host campus
    HostName=\"slurm.campus.edu\"
    Port 2222
    IdentityFile %d/.ssh/b_%r
    ProxyCommand none
Host *.internal !secret.internal
    ProxyJump bastion:%p
Host *
    IdentitiesOnly yes
";

    #[test]
    fn clusters_in_file_order_without_the_catch_all() {
        let c = SshConfig::parse(CONFIG).expect("parse");
        assert_eq!(
            c.cluster_names().expect("names"),
            ["gpu-cluster", "campus", "*.internal", "!secret.internal"]
        );
    }

    type LookupCase<'a> = (&'a str, &'a str, Option<&'a str>, &'a [&'a str], bool);

    #[test]
    fn lookups_follow_paramiko() {
        let c = SshConfig::parse(CONFIG).expect("parse");
        let cases: [LookupCase; 4] = [
            // First value wins; tokens expand per key; `User` from before any Host.
            (
                "gpu-cluster",
                "login.gpu-cluster.example.com",
                Some("fallback"),
                &["/home/me/.ssh/a"],
                true,
            ),
            (
                "campus",
                "login.campus.example.com",
                Some("fallback"),
                &["/home/me/.ssh/a", "/home/me/.ssh/b_fallback"],
                true,
            ),
            ("x.internal", "x.internal", Some("fallback"), &[], true),
            (
                "secret.internal",
                "secret.internal",
                Some("fallback"),
                &[],
                true,
            ),
        ];
        for (alias, host, user, keys, only) in cases {
            let h = c.lookup(alias, &local());
            assert_eq!(h.hostname(), host, "{alias}");
            assert_eq!(h.get("user"), user, "{alias}");
            assert_eq!(h.identity_files, keys, "{alias}");
            assert_eq!(h.identities_only(), only, "{alias}");
        }
        let campus = c.lookup("campus", &local());
        assert_eq!(campus.get("port"), Some("2222"));
        assert_eq!(campus.options.get("proxycommand"), Some(&None));
        assert_eq!(
            c.lookup("x.internal", &local()).get("proxyjump"),
            Some("bastion:22")
        );
        assert_eq!(c.lookup("secret.internal", &local()).get("proxyjump"), None);
    }

    #[test]
    fn refusals() {
        for (text, want) in [
            ("Host a\n  justakey\n", "Unparsable line justakey"),
            ("Host 'a\n", "Unparsable host 'a"),
        ] {
            assert_eq!(SshConfig::parse(text), Err(SshConfigError(want.into())));
        }
        let with_match = SshConfig::parse("Host a\nMatch host b\n  User c\n").expect("parse");
        assert_eq!(with_match.cluster_names(), Err("KeyError: 'host'".into()));
        assert_eq!(
            SshConfig::parse("").expect("empty").cluster_names(),
            Ok(vec![])
        );
    }

    #[test]
    fn globs() {
        for (p, n, want) in [
            ("*", "x", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("n[0-9]", "n5", true),
            ("n[!0-9]", "n5", false),
            ("*.edu", "slurm.campus.edu", true),
            ("[", "[", true),
        ] {
            assert_eq!(fnmatch(p, n), want, "{p} {n}");
        }
        assert_eq!(
            shlex_split(r#"a "b c" 'd e' f\ g"#),
            Some(vec!["a".into(), "b c".into(), "d e".into(), "f g".into()])
        );
        assert_eq!(shlex_split("\"x"), None);
    }
}
