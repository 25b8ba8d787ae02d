//! SSH Node Pools adapter: which `ssh-<pool>` contexts count, their nodes
//! through the Kubernetes listing (wiremock API servers), the offline mode,
//! credentials — and that Kubernetes and SSH never share a context.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use optimizer::clouds::kubernetes::{KubernetesCloud, KubernetesOptions};
use optimizer::clouds::ssh::{SshCloud, SshOptions};
use optimizer::clouds::{CheckContext, Cloud, Credentials};
use planner::check::{CloudFacts, SshFacts};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn scenario_kube() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenarios/ssh-gpu-h100/kube")
}

fn node_list(context: &str) -> String {
    std::fs::read_to_string(scenario_kube().join(format!("{context}.json"))).expect("fixture")
}

async fn api_server(body: String) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/api/v1/nodes"))
        .respond_with(ResponseTemplate::new(200).set_body_string(body))
        .mount(&server)
        .await;
    server
}

struct Machine {
    dir: tempfile::TempDir,
    path_var: String,
}

impl Machine {
    /// A home folder; `tools` are put on `PATH` as executables.
    fn new(tools: &[&str]) -> Machine {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        for t in tools {
            let p = bin.join(t);
            std::fs::write(&p, "#!/bin/sh\n").expect("write tool");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        Machine {
            path_var: bin.display().to_string(),
            dir,
        }
    }

    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn pools_file(&self, text: &str) {
        std::fs::create_dir_all(self.home().join(".sky")).expect("mkdir");
        std::fs::write(self.home().join(".sky/ssh_node_pools.yaml"), text).expect("pools");
    }

    fn kubeconfig(&self, contexts: &[(&str, &str)], current: &str) -> PathBuf {
        let mut yaml =
            format!("apiVersion: v1\nkind: Config\ncurrent-context: {current}\nclusters:\n");
        for (name, server) in contexts {
            yaml.push_str(&format!(
                "- name: {name}\n  cluster:\n    server: \"{server}\"\n"
            ));
        }
        yaml.push_str("contexts:\n");
        for (name, _) in contexts {
            yaml.push_str(&format!(
                "- name: {name}\n  context:\n    cluster: {name}\n    user: u\n"
            ));
        }
        yaml.push_str("users:\n- name: u\n  user:\n    token: t\n");
        let p = self.home().join("kubeconfig");
        std::fs::write(&p, yaml).expect("kubeconfig");
        p
    }

    fn ctx(&self, kubeconfig: Option<&Path>) -> CheckContext {
        let mut env = BTreeMap::new();
        env.insert("PATH".to_string(), self.path_var.clone());
        if let Some(k) = kubeconfig {
            env.insert("KUBECONFIG".to_string(), k.display().to_string());
        }
        CheckContext {
            env,
            home: self.home().to_path_buf(),
            state_dir: self.home().join(".sky"),
            refresh: false,
            cloud_timeout: Duration::from_secs(10),
            kubernetes_allowed_contexts: Some(vec!["all".into()]),
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: Default::default(),
        }
    }
}

fn fast() -> KubernetesOptions {
    let mut options = KubernetesOptions::default();
    options.service.connect_timeout = Duration::from_millis(500);
    options.service.request_timeout = Duration::from_millis(500);
    options.service.max_attempts = 1;
    options
}

fn ssh_facts(outcome: CloudFacts) -> SshFacts {
    match outcome {
        CloudFacts::Ssh(f) => f,
        other => panic!("unexpected facts {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pools_are_ssh_contexts_and_kubernetes_keeps_the_others() {
    let gpu = api_server(node_list("ssh-gpu-box")).await;
    let lab = api_server(node_list("ssh-lab")).await;
    let kind = api_server(node_list("ssh-lab")).await;
    let m = Machine::new(&["socat", "nc"]);
    let kc = m.kubeconfig(
        &[
            ("kind-dev", &kind.uri()),
            ("ssh-lab", &lab.uri()),
            ("ssh-gpu-box", &gpu.uri()),
            ("ssh-old", "http://127.0.0.1:1"),
        ],
        "kind-dev",
    );
    m.pools_file("gpu-box:\n  hosts: [a]\nlab:\n  hosts: [b]\nspare:\n  hosts: [c]\n");
    let ctx = m.ctx(Some(&kc));
    let ssh = SshCloud::new(
        SshOptions {
            kubernetes: fast(),
            ..SshOptions::default()
        },
        None,
    );
    assert_eq!(
        ssh.credentials(&ctx),
        Credentials::Present("ssh-gpu-box, ssh-lab".into())
    );
    let facts = ssh_facts(ssh.check(&ctx).await.expect("check").facts);
    // Pools-file order; ssh-old is not a pool; spare is not up.
    let names: Vec<&str> = facts.contexts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ssh-gpu-box", "ssh-lab"]);
    assert_eq!(facts.skipped, ["ssh-spare"]);
    let gpu_nodes = facts.contexts[0].nodes.as_ref().expect("listed");
    // GFD's `NVIDIA-H100-80GB-HBM3` is the canonical `H100-80GB`, as
    // `GFDLabelFormatter.get_accelerator_from_label_value` names it.
    assert_eq!(gpu_nodes[0].accelerator.as_deref(), Some("H100-80GB"));

    // The same kubeconfig, as Kubernetes sees it: no ssh- context at all.
    let kube = KubernetesCloud::new(fast());
    let CloudFacts::Kubernetes(kube_contexts) = kube.check(&ctx).await.expect("check").facts else {
        panic!("kubernetes facts");
    };
    let names: Vec<&str> = kube_contexts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["kind-dev"]);

    // ssh.allowed_node_pools narrows the pools.
    let only_lab = SshCloud::new(
        SshOptions {
            kubernetes: fast(),
            ..SshOptions::default()
        },
        Some(vec!["lab".into()]),
    );
    let facts = ssh_facts(only_lab.check(&ctx).await.expect("check").facts);
    assert_eq!(facts.contexts.len(), 1);
    assert_eq!(facts.contexts[0].name, "ssh-lab");
}

#[tokio::test]
async fn credentials_follow_skypilot() {
    // socat / nc missing from PATH.
    let bare = Machine::new(&[]);
    let ssh = SshCloud::new(SshOptions::default(), None);
    let Credentials::Missing(text) = ssh.credentials(&bare.ctx(None)) else {
        panic!("no socat/nc must disable SSH");
    };
    assert!(
        text.starts_with("`socat` is required to setup Kubernetes cloud"),
        "{text}"
    );
    assert!(text.contains("sudo apt install socat netcat"), "{text}");

    // Tools present, but no pool up.
    let m = Machine::new(&["socat", "nc"]);
    let kc = m.kubeconfig(&[("kind-dev", "http://127.0.0.1:1")], "kind-dev");
    let want = format!(
        "No SSH Node Pools are up. Run `sky ssh up` to set up Node Pools from {}.",
        m.home().join(".sky/ssh_node_pools.yaml").display()
    );
    assert_eq!(
        ssh.credentials(&m.ctx(Some(&kc))),
        Credentials::Missing(want)
    );

    // Without a pools file every ssh- context counts.
    let kc = m.kubeconfig(
        &[
            ("ssh-b", "http://127.0.0.1:1"),
            ("ssh-a", "http://127.0.0.1:1"),
        ],
        "ssh-b",
    );
    assert_eq!(
        ssh.credentials(&m.ctx(Some(&kc))),
        Credentials::Present("ssh-b, ssh-a".into())
    );
}

#[tokio::test]
async fn offline_mode_reads_node_lists() {
    let m = Machine::new(&[]);
    m.pools_file("lab: {}\ngpu-box: {}\n");
    let ssh = SshCloud::new(
        SshOptions {
            nodes_dir: Some(scenario_kube()),
            contexts: Some(vec!["ssh-gpu-box".into(), "ssh-lab".into(), "ssh-x".into()]),
            ..SshOptions::default()
        },
        None,
    );
    let ctx = m.ctx(None);
    // The fixture stands in for the machine: no socat check.
    assert!(matches!(ssh.credentials(&ctx), Credentials::Present(_)));
    let facts = ssh_facts(ssh.check(&ctx).await.expect("check").facts);
    let names: Vec<&str> = facts.contexts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["ssh-lab", "ssh-gpu-box"]);
    assert!(facts.contexts.iter().all(|c| c.nodes.is_ok()));
}
