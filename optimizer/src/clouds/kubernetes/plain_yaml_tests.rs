//! The plain-YAML fast path against kube's reader: whatever the fast path
//! accepts, `Kubeconfig::from_yaml` accepts too, with the same value. On
//! generated kubeconfigs (kubectl's shapes, every field kube reads, hostile
//! scalars and layouts), on mutations of them, and on the fixtures in
//! `fixtures/kube/kubeconfigs/`.

use super::*;

/// The two readers' values are the same: every field, secrets included,
/// through kube's `Serialize` (the `Debug` text is no measure: `AuthInfo`
/// holds `HashMap`s, printed in a per-map random order). The fields kube
/// skips (`ExecConfig::drop_env`, `cluster`) are never read from YAML.
fn same(a: &Kubeconfig, b: &Kubeconfig) -> bool {
    serde_json::to_value(a).expect("serialize") == serde_json::to_value(b).expect("serialize")
}

/// Checks one text; `true` when the fast path read it.
fn agree(text: &str) -> bool {
    let kube = Kubeconfig::from_yaml(text);
    let ours = kubeconfig_from_yaml(text);
    match (&ours, &kube) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "values differ for:\n{text}"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "errors differ for:\n{text}"),
        _ => panic!(
            "one reader refused, the other did not ({:?} / {:?}) for:\n{text}",
            ours.as_ref().err().map(ToString::to_string),
            kube.as_ref().err().map(ToString::to_string)
        ),
    }
    read_plain(text).is_some()
}

/// SplitMix64: a small seeded generator (the cases are reproducible by seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Scalars a kubeconfig holds, written the ways the fast path reads.
const PLAIN: &[&str] = &[
    "mock-0",
    "https://127.0.0.1:6443",
    "http://10.0.0.1:8080/path",
    "/home/u/.kube/ca.crt",
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t",
    "default",
    "kube-system",
    "arn:aws:eks:us-east-1:123456789012:cluster/prod",
    "gke_project_us-central1-a_cluster",
    "a b c",
    "user@example.com",
    "x=y+z",
    "a~b%c",
    "_under",
    "v1",
    "Config",
    "client.authentication.k8s.io/v1beta1",
    "aws",
    "Never",
    "IfAvailable",
    "Always",
    "eks get-token",
    "\"double quoted\"",
    "\"\"",
    "\"a #b: c\"",
    "\"true\"",
    "\"123\"",
    "\"null\"",
    "'single'",
    "''",
    "'a: b #c'",
    "true",
    "false",
    "null",
    "{}",
    "[]",
    "Install the plugin by following\u{1}https://example.com/docs#install",
    "one\u{1}two three\u{1}four",
    "a#b",
];

/// Scalars YAML may read otherwise, or that the fast path leaves to kube.
const HOSTILE: &[&str] = &[
    "~",
    "yes",
    "No",
    "ON",
    "y",
    "n",
    "off",
    "True",
    "FALSE",
    "Null",
    "NULL",
    "inf",
    "Infinity",
    "NaN",
    ".inf",
    "-.inf",
    ".nan",
    "123",
    "0x1F",
    "0o17",
    "1e3",
    "1_000",
    "012",
    "+1",
    "-1",
    "12:30",
    "1.5",
    "2001-12-14",
    "a: b",
    "a #c",
    "a:",
    "-x",
    "- x",
    "[a]",
    "{a: 1}",
    "[a, b]",
    "&anchor x",
    "*anchor",
    "!tag x",
    "!!str 1",
    "|",
    ">",
    "a\tb",
    "\u{e9}t\u{e9}",
    "\u{2028}",
    "%x",
    "@x",
    "`x",
    "a,b",
    "a]b",
    "?x",
    "x?",
    "<<",
    "\"esc\\\"aped\"",
    "\"back\\\\slash\"",
    "\"\\n\"",
    "'it''s'",
    "\"open",
    "'open",
    "a\\b",
    "a  b",
    "one\u{1}b: c",
    "one\u{1}- x",
    "one\u{1}#c",
    "\"quoted\"\u{1}more",
    "true\u{1}more",
    "one\u{1}\"q\"",
    "one\u{1}two:",
    "#x",
    "a #b",
];

/// A generated YAML node.
enum Node {
    Scalar(String),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
}

/// How a document is laid out.
struct Style {
    indent: usize,
    /// Sequences under a key at the key's own column (kubectl's style).
    compact: bool,
    /// Spaces after an item's dash.
    dash_gap: usize,
}

fn scalar(rng: &mut Rng, hostile: usize) -> Node {
    let text = if rng.chance(hostile) {
        rng.pick(HOSTILE)
    } else {
        rng.pick(PLAIN)
    };
    Node::Scalar(text.to_string())
}

/// A boolean field's value: mostly `true` or `false`.
fn boolean(rng: &mut Rng, hostile: usize) -> Node {
    if rng.chance(15) {
        return scalar(rng, hostile);
    }
    Node::Scalar(rng.pick(&["true", "false"]).to_string())
}

/// `interactiveMode`: mostly one of kube's modes.
fn mode(rng: &mut Rng, hostile: usize) -> Node {
    if rng.chance(15) {
        return scalar(rng, hostile);
    }
    Node::Scalar(
        rng.pick(&["Never", "IfAvailable", "Always", "\"Never\""])
            .to_string(),
    )
}

/// A command-line argument.
fn arg(rng: &mut Rng, hostile: usize) -> Node {
    if rng.chance(30) {
        return scalar(rng, hostile);
    }
    if rng.chance(hostile) {
        let args = [
            "-inf", "--", "-", "-1", "-.5", "--x: y", "--a #b", "-#x", "- x",
        ];
        return Node::Scalar(rng.pick(&args).to_string());
    }
    let args = [
        "--region",
        "--cluster-name",
        "-o",
        "json",
        "eks",
        "get-token",
        "--use_application_default_credentials",
        "--tag=a#b",
    ];
    Node::Scalar(rng.pick(&args).to_string())
}

fn name(rng: &mut Rng, hostile: usize) -> Node {
    if rng.chance(hostile / 2 + 1) {
        scalar(rng, hostile)
    } else {
        let quoted = rng.chance(50);
        let n = rng.below(4);
        Node::Scalar(if quoted {
            format!("\"ctx-{n}\"")
        } else {
            format!("ctx-{n}")
        })
    }
}

fn string_list(rng: &mut Rng, hostile: usize) -> Node {
    if rng.chance(10) {
        return scalar(rng, hostile);
    }
    Node::Seq((0..rng.below(4)).map(|_| arg(rng, hostile)).collect())
}

/// A field map: each of `fields` present or not, a key kube does not know
/// now and then, a duplicate key rarely.
/// Makes one field's value.
type Make = fn(&mut Rng, usize) -> Node;

fn fields(rng: &mut Rng, hostile: usize, fields: &[(&str, Make)]) -> Node {
    let mut entries: Vec<(String, Node)> = Vec::new();
    for (key, make) in fields {
        // kube's required fields, missing now and then when hostile.
        let required = matches!(*key, "name" | "extension" | "cluster") && !rng.chance(hostile);
        if required || rng.chance(60) {
            entries.push((key.to_string(), make(rng, hostile)));
        }
    }
    if rng.chance(30) {
        let key = if rng.chance(hostile) {
            rng.pick(&["Yes", "on", "\"quoted-key\"", "a b", "1", "-k", "k:v"])
        } else {
            rng.pick(&[
                "unknown-field",
                "x-extra",
                "client.authentication.k8s.io/exec",
            ])
        };
        // Where any YAML value is kept as JSON: every scalar's type shows.
        entries.push((key.to_string(), scalar(rng, hostile)));
    }
    if rng.chance(hostile / 4) && !entries.is_empty() {
        let i = rng.below(entries.len());
        entries.push((entries[i].0.clone(), scalar(rng, hostile)));
    }
    if rng.chance(30) && entries.len() > 1 {
        let last = entries.len() - 1;
        entries.swap(rng.below(last), last);
    }
    Node::Map(entries)
}

fn cluster(rng: &mut Rng, h: usize) -> Node {
    fields(
        rng,
        h,
        &[
            ("server", scalar),
            ("certificate-authority-data", scalar),
            ("certificate-authority", scalar),
            ("insecure-skip-tls-verify", boolean),
            ("proxy-url", scalar),
            ("tls-server-name", scalar),
            ("disable-compression", boolean),
            ("extensions", extensions),
        ],
    )
}

fn exec(rng: &mut Rng, h: usize) -> Node {
    fields(
        rng,
        h,
        &[
            ("apiVersion", scalar),
            ("command", scalar),
            ("args", string_list),
            ("env", env),
            ("installHint", scalar),
            ("interactiveMode", mode),
            ("provideClusterInfo", boolean),
        ],
    )
}

fn env(rng: &mut Rng, h: usize) -> Node {
    if rng.chance(20) {
        return scalar(rng, h);
    }
    Node::Seq(
        (0..rng.below(3))
            .map(|_| fields(rng, h, &[("name", scalar), ("value", scalar)]))
            .collect(),
    )
}

fn auth_provider(rng: &mut Rng, h: usize) -> Node {
    fields(
        rng,
        h,
        &[
            ("name", scalar),
            ("config", |rng, h| {
                fields(rng, h, &[("access-token", scalar), ("cmd-path", scalar)])
            }),
        ],
    )
}

fn user(rng: &mut Rng, h: usize) -> Node {
    fields(
        rng,
        h,
        &[
            ("token", scalar),
            ("tokenFile", scalar),
            ("username", scalar),
            ("password", scalar),
            ("client-certificate-data", scalar),
            ("client-key-data", scalar),
            ("client-certificate", scalar),
            ("client-key", scalar),
            ("as", scalar),
            ("as-groups", string_list),
            ("exec", exec),
            ("auth-provider", auth_provider),
        ],
    )
}

fn context(rng: &mut Rng, h: usize) -> Node {
    fields(
        rng,
        h,
        &[
            ("cluster", name),
            ("user", name),
            ("namespace", scalar),
            ("extensions", extensions),
        ],
    )
}

fn extensions(rng: &mut Rng, h: usize) -> Node {
    Node::Seq(
        (0..rng.below(2))
            .map(|_| fields(rng, h, &[("name", scalar), ("extension", cluster)]))
            .collect(),
    )
}

fn named(rng: &mut Rng, h: usize, body: &str, make: Make) -> Node {
    Node::Seq(
        (0..rng.below(4))
            .map(|_| {
                let mut entries = Vec::new();
                if !rng.chance(h / 3) {
                    entries.push(("name".to_string(), name(rng, h)));
                }
                if rng.chance(90) {
                    entries.push((body.to_string(), make(rng, h)));
                }
                if rng.chance(20) {
                    entries.reverse();
                }
                Node::Map(entries)
            })
            .collect(),
    )
}

fn document(rng: &mut Rng, h: usize) -> Node {
    let mut entries = vec![
        ("apiVersion".to_string(), Node::Scalar("v1".into())),
        ("kind".to_string(), Node::Scalar("Config".into())),
    ];
    if rng.chance(50) {
        entries.push(("preferences".into(), Node::Scalar("{}".into())));
    }
    entries.push(("current-context".into(), name(rng, h)));
    entries.push(("clusters".into(), named(rng, h, "cluster", cluster)));
    entries.push(("users".into(), named(rng, h, "user", user)));
    entries.push(("contexts".into(), named(rng, h, "context", context)));
    if rng.chance(10) {
        entries.push(("extensions".into(), extensions(rng, h)));
    }
    if rng.chance(hostile_share(h)) {
        entries.push(("clusters".into(), Node::Scalar("[]".into())));
    }
    for _ in 0..rng.below(3) {
        let i = rng.below(entries.len());
        let j = rng.below(entries.len());
        entries.swap(i, j);
    }
    Node::Map(entries)
}

fn hostile_share(h: usize) -> usize {
    h / 5
}

fn render(node: &Node, style: &Style, column: usize, out: &mut String) {
    match node {
        Node::Scalar(s) => {
            // `\u{1}`: a line break, the rest on a continuation line.
            let continuation = format!("\n{}", " ".repeat(column + 2));
            out.push_str(&s.replace('\u{1}', &continuation));
            out.push('\n');
        }
        Node::Map(entries) => {
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(&" ".repeat(column));
                }
                out.push_str(key);
                out.push(':');
                match value {
                    Node::Scalar(s) => {
                        if !s.is_empty() {
                            out.push(' ');
                        }
                        render(value, style, column, out);
                    }
                    Node::Map(m) if m.is_empty() => out.push_str(" {}\n"),
                    Node::Seq(s) if s.is_empty() => out.push_str(" []\n"),
                    Node::Map(_) => {
                        out.push('\n');
                        out.push_str(&" ".repeat(column + style.indent));
                        render(value, style, column + style.indent, out);
                    }
                    Node::Seq(_) => {
                        out.push('\n');
                        let at = if style.compact {
                            column
                        } else {
                            column + style.indent
                        };
                        out.push_str(&" ".repeat(at));
                        render(value, style, at, out);
                    }
                }
            }
        }
        Node::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&" ".repeat(column));
                }
                out.push('-');
                out.push_str(&" ".repeat(style.dash_gap));
                match item {
                    Node::Map(m) if m.is_empty() => out.push_str("{}\n"),
                    Node::Seq(s) if s.is_empty() => out.push_str("[]\n"),
                    _ => render(item, style, column + 1 + style.dash_gap, out),
                }
            }
        }
    }
}

/// A generated kubeconfig text; `h` is the percentage of hostile choices.
fn generate(seed: u64, h: usize) -> String {
    let mut rng = Rng(seed);
    let style = Style {
        indent: [2, 2, 2, 4, 1, 3][rng.below(6)],
        compact: rng.chance(70),
        dash_gap: if rng.chance(90) { 1 } else { 2 },
    };
    let doc = document(&mut rng, h);
    let mut text = String::new();
    render(&doc, &style, 0, &mut text);
    if rng.chance(h / 4) {
        let layout = [
            "---\n",
            "# a comment\n",
            "\u{feff}",
            "%YAML 1.2\n---\n",
            "\n\n",
        ];
        text.insert_str(0, layout[rng.below(layout.len())]);
    }
    if rng.chance(h / 6) {
        text.push_str(["---\nkind: Config\n", "...\n", "# end\n", "  \n"][rng.below(4)]);
    }
    if rng.chance(h / 10) {
        text = text.replace('\n', "\r\n");
    }
    text
}

/// A random edit of `text`: a character inserted or removed, a line
/// indented, dedented, repeated or swapped.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return text.to_string();
    }
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(lines.len());
        match rng.below(7) {
            0 => {
                let line = &mut lines[i];
                if !line.is_empty() {
                    let at = rng.below(line.len());
                    if line.is_char_boundary(at) && line.is_char_boundary(at + 1) {
                        line.remove(at);
                    }
                }
            }
            1 => {
                let line = &mut lines[i];
                let at = rng.below(line.len() + 1);
                if line.is_char_boundary(at) {
                    let chars = " :-#\"'\t{}[]&*!|>%@,?~\\";
                    let c = chars.as_bytes()[rng.below(chars.len())] as char;
                    line.insert(at, c);
                }
            }
            2 => lines[i].insert_str(0, &" ".repeat(1 + rng.below(2))),
            3 => {
                let trimmed = lines[i].strip_prefix(' ').map(str::to_string);
                if let Some(t) = trimmed {
                    lines[i] = t;
                }
            }
            4 => {
                let copy = lines[i].clone();
                lines.insert(i, copy);
            }
            5 => lines.insert(i, String::new()),
            _ => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// `text` with the value of one `key: value` line replaced by any scalar,
/// hostile ones half the time: one doubtful scalar in a plain document.
fn replace_one_value(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(": "))
        .collect();
    if candidates.is_empty() {
        return text.to_string();
    }
    let i = candidates[rng.below(candidates.len())];
    let at = lines[i].find(": ").expect("candidate") + 2;
    let column = lines[i].len() - lines[i].trim_start().len();
    let value = if rng.chance(50) {
        rng.pick(HOSTILE)
    } else {
        rng.pick(PLAIN)
    };
    lines[i].truncate(at);
    lines[i].push_str(&value.replace('\u{1}', &format!("\n{}", " ".repeat(column + 2))));
    lines.join("\n") + "\n"
}

/// Every scalar in every kind of place: a string field, a boolean, a
/// mode, a list item, a key, and where kube keeps any YAML as JSON (an
/// unknown field, an extension), at the top and nested.
#[test]
fn every_scalar_in_every_place_is_read_as_kube_reads_it() {
    let slots = [
        "current-context: {}\n",
        "x-extra: {}\n",
        "{}: x\n",
        "preferences:\n  colors: {}\n  x: {}\n",
        "clusters:\n- name: {}\n  cluster:\n    server: {}\n    insecure-skip-tls-verify: {}\n",
        "clusters:\n- name: a\n  cluster:\n    {}: x\n  x-extra: {}\n",
        "clusters:\n- name: a\n  extensions:\n  - name: b\n    extension: {}\n",
        "users:\n- name: u\n  user:\n    token: {}\n    as-groups:\n    - {}\n",
        "users:\n- name: u\n  user:\n    exec:\n      command: {}\n      interactiveMode: {}\n      provideClusterInfo: {}\n      args:\n      - {}\n      env:\n      - name: a\n        value: {}\n",
        "contexts:\n- name: c\n  context:\n    cluster: {}\n    namespace: {}\n    x-extra: {}\n",
    ];
    let mut fast = 0;
    for slot in slots {
        for value in PLAIN
            .iter()
            .chain(HOSTILE)
            .chain(&["Never", "IfAvailable", "Always"])
        {
            let column = 6;
            let value = value.replace('\u{1}', &format!("\n{}", " ".repeat(column + 2)));
            if agree(&format!(
                "apiVersion: v1\nkind: Config\n{}",
                slot.replace("{}", &value)
            )) {
                fast += 1;
            }
        }
    }
    assert!(fast > 100, "only {fast} read by the fast path");
}

#[test]
fn one_doubtful_scalar_in_a_plain_kubeconfig_is_read_as_kube_reads_it() {
    let mut rng = Rng(11);
    let mut fast = 0;
    let cases = 3000;
    for seed in 0..cases {
        let text = generate(3_000_000 + seed, 0);
        if agree(&replace_one_value(&text, &mut rng)) {
            fast += 1;
        }
    }
    assert!(fast > 0, "no case reached the fast path");
}

#[test]
fn plain_generated_kubeconfigs_are_read_as_kube_reads_them() {
    let mut fast = 0;
    let cases = 3000;
    for seed in 0..cases {
        if agree(&generate(seed, 0)) {
            fast += 1;
        }
    }
    // Nothing hostile in the YAML, but scalars go where lists, booleans or
    // modes do: kube's `Deserialize` refuses most (~80 %), and those go to
    // kube's reader too. ~560 of 3000 are read by the fast path.
    assert!(fast * 10 > cases, "fast path read only {fast} of {cases}");
}

#[test]
fn hostile_generated_kubeconfigs_are_read_as_kube_reads_them() {
    let mut fast = 0;
    let cases = 3000;
    for seed in 0..cases {
        if agree(&generate(1_000_000 + seed, 40)) {
            fast += 1;
        }
    }
    assert!(fast > 0, "the hostile cases never reached the fast path");
}

#[test]
fn a_blank_line_inside_a_folded_plain_value_is_left_to_kube() {
    // YAML folds a plain value's continuation lines with a space, but a
    // blank line between them is a line break: "foo\nbar", not "foo bar".
    let folded = |gap: &str| {
        format!(
            "apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    exec:\n      \
             apiVersion: client.authentication.k8s.io/v1beta1\n      command: gke-gcloud-auth-plugin\n      \
             installHint: Install gke-gcloud-auth-plugin\n{gap}        for use with kubectl\n"
        )
    };
    assert!(
        agree(&folded("")),
        "a plain folded value takes the fast path"
    );
    assert!(
        !agree(&folded("\n")),
        "with a blank line it is kube's to read"
    );
}

#[test]
fn mutated_kubeconfigs_are_read_as_kube_reads_them() {
    let mut fast = 0;
    let mut rng = Rng(7);
    let cases = 3000;
    for seed in 0..cases {
        let text = generate(2_000_000 + seed, 5);
        if agree(&mutate(&text, &mut rng)) {
            fast += 1;
        }
    }
    assert!(fast > 0, "no mutation reached the fast path");
}

#[test]
fn fixture_kubeconfigs_are_read_as_kube_reads_them() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/kube/kubeconfigs");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/kube/kubeconfigs")
        .map(|e| e.expect("entry").path())
        .collect();
    paths.sort();
    let mut fast = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("fixture");
        if agree(&text) {
            fast.push(
                path.file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        // Without its last line break, and with blank lines between entries.
        assert_eq!(agree(text.trim_end()), agree(&text));
        agree(&text.replace("\n- ", "\n\n- "));
        // Every line of a fixture, removed in turn.
        let lines: Vec<&str> = text.lines().collect();
        for skip in 0..lines.len() {
            let mut cut: Vec<&str> = lines.clone();
            cut.remove(skip);
            agree(&(cut.join("\n") + "\n"));
        }
    }
    insta::assert_debug_snapshot!(fast);
}

#[test]
fn the_mock_fleet_kubeconfig_takes_the_fast_path() {
    let servers: Vec<(String, String)> = (0..64)
        .map(|i| {
            (
                format!("mock-{i}"),
                format!("http://127.0.0.1:{}", 30000 + i),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = servers
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let text = mocks::kubeconfig_yaml(&pairs);
    assert!(agree(&text));
    let read = read_plain(&text).expect("fast path");
    assert_eq!(read.contexts.len(), 64);
}

/// Shapes `serde_json::Value`'s deserializer took that the plain path now
/// refuses (a struct written as a sequence, an enum as a mapping) and
/// shapes only the walk of an ignored value sees (a key kube's
/// `NamedExtension` ignores): each read as kube reads it, the refused ones
/// by kube.
#[test]
fn shapes_kube_ignores_or_may_refuse_are_read_as_kube_reads_them() {
    let head = "apiVersion: v1\nkind: Config\n";
    let refused = [
        // `NamedExtension` (no flatten) as the sequence of its fields.
        "extensions:\n- - a\n  - b\n",
        "extensions:\n- []\n",
        // `interactiveMode` as a mapping of the variant.
        "users:\n- name: u\n  user:\n    exec:\n      command: x\n      interactiveMode:\n        Never: null\n",
        // A struct as a string.
        "clusters:\n- name: a\n  cluster: x\n",
        // A duplicate key in a value kube ignores.
        "extensions:\n- name: a\n  extension: x\n  ignored:\n    k: a\n    k: b\n",
        // A line outside the plain part inside a value kube ignores.
        "extensions:\n- name: a\n  extension: x\n  ignored:\n    k: [a]\n",
    ];
    for body in refused {
        let text = format!("{head}{body}");
        assert!(!agree(&text), "read by the plain path:\n{text}");
    }
    let read = [
        "extensions:\n- name: a\n  extension: x\n  ignored:\n    k: a\n    l:\n    - b\n",
        "users:\n- name: u\n  user:\n    exec:\n      command: x\n      interactiveMode: IfAvailable\n",
        "clusters: null\npreferences: {}\n",
    ];
    for body in read {
        let text = format!("{head}{body}");
        assert!(agree(&text), "not read by the plain path:\n{text}");
    }
}
