//! Slurm: the clusters of `~/.slurm/config` and what their login nodes say.
//!
//! The I/O edge of the Slurm support. SkyPilot 0.14.1 learns a cluster's
//! nodes and partitions by running `sinfo` and `scontrol` on its login node
//! over SSH (`sky/adaptors/slurm.py::SlurmClient`, reached through
//! `sky/provision/slurm/utils.py`). This adapter does the same, for every
//! cluster concurrently and in **one** SSH invocation per cluster (the three
//! commands batched as SkyPilot's `_run_slurm_cmds` batches them), and keeps
//! the raw answers ([`SlurmInventory`]); the pure
//! [`planner::catalog::slurm`] reads them with SkyPilot's rules.
//!
//! * **The SSH program is injectable**: [`SlurmOptions::ssh_program`]
//!   (`SKY_SLURM_SSH`, default `ssh`) is run as `ssh` is run (`-o` options,
//!   `user@host`, the command). Tests and the conformance scenarios use
//!   `fixtures/slurm/fake-ssh`, which answers from canned `sinfo` /
//!   `scontrol` output.
//! * **Bounded**: each invocation has a deadline (the smaller of
//!   `SlurmOptions::service`'s `request_timeout` and 90 % of the cloud's),
//!   passed to `ssh` as `ConnectTimeout` too (at most its `connect_timeout`), and its output is capped
//!   ([`SlurmOptions::max_output_bytes`] per node and stream,
//!   [`SlurmOptions::max_total_output_bytes`] for every node of one check
//!   together); the process group is killed at the deadline.
//! * **Failure is data**: a login node that cannot be reached, answers with
//!   an error, garbage or nothing in time gives that cluster an
//!   `Err(reason)` (or failed commands) in its inventory; the other clusters
//!   are unaffected and the check itself succeeds.
//! * **Cached** like the Kubernetes node lists ([`cache`]).
//!
//! Credentials, as `Slurm._check_compute_credentials` (files only): the
//! clusters file exists, parses and lists an allowed cluster. The environment
//! given to the SSH program is exactly the injected one.

mod batch;
pub mod cache;
mod remote;

pub use cache::{
    INVENTORY_CACHE_KIND, INVENTORY_CACHE_SCHEMA, InventoryCache, InventoryKey,
    LazyStateInventoryCache,
};
pub use remote::Connection;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, join_all};
use planner::catalog::slurm::{
    CommandOutput, INFO_NODES_CMD, LocalUser, PARTITIONS_CMD, SELECT_TYPE_CMD, SLURM_CONFIG_PATH,
    SlurmCluster, SlurmInventory, SshConfig,
};
use planner::check::{CacheUse, CheckOutcome, CloudError, CloudFacts};
use planner::cloud::CloudId;
use planner::gpus::slurm::{
    JOBS_GRES_CMD, NODE_DETAILS_CMD, SlurmGpuAnswer, SlurmGpuCluster, batch_failure_text,
};
use tracing::Instrument;

use super::{CheckContext, Cloud, Credentials, ServiceOptions};
use crate::config::expand_home;

/// How [`SlurmCloud`] reaches the login nodes.
#[derive(Clone)]
pub struct SlurmOptions {
    /// The program run as `ssh` (`SKY_SLURM_SSH`).
    pub ssh_program: String,
    /// The clusters file instead of `<home>/.slurm/config`.
    pub config_file: Option<PathBuf>,
    /// The login nodes' invocations: `request_timeout` is one invocation's
    /// deadline, connect included (default here: 10 s), `connect_timeout`
    /// what `ssh` is given as `ConnectTimeout` within it (default here:
    /// 10 s), `cache_ttl` the maximum age of a cached inventory (default
    /// here: 30 minutes, as SkyPilot keeps node lists). Each login node is
    /// asked once, as SkyPilot asks it, and the inventory cache
    /// ([`cache`](Self::cache)) keeps its own time: `max_attempts`,
    /// `retry_backoff`, `lock_wait` and `clock` are not read.
    pub service: ServiceOptions,
    /// Most bytes read from a login node's stdout (and stderr).
    pub max_output_bytes: usize,
    /// Most bytes read from every login node of one check together
    /// (default 16 MB: twice one node's cap; a `sinfo` answer is a few kB):
    /// past it, the node that reads more fails with a reason, so that many
    /// login nodes sending without end keep the process under 64 MB. See
    /// `remote::Budget` for why a budget rather than fewer nodes at once.
    pub max_total_output_bytes: usize,
    /// The inventory cache; `None` = always ask.
    pub cache: Option<Arc<dyn InventoryCache>>,
}

impl Default for SlurmOptions {
    fn default() -> Self {
        SlurmOptions {
            ssh_program: "ssh".into(),
            config_file: None,
            service: ServiceOptions {
                connect_timeout: Duration::from_secs(10),
                request_timeout: Duration::from_secs(10),
                cache_ttl: Duration::from_secs(30 * 60),
                ..ServiceOptions::default()
            },
            max_output_bytes: 8 << 20,
            max_total_output_bytes: 16 << 20,
            cache: None,
        }
    }
}

impl fmt::Debug for SlurmOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlurmOptions")
            .field("ssh_program", &self.ssh_program)
            .field("config_file", &self.config_file)
            .field("service", &self.service)
            .field("max_output_bytes", &self.max_output_bytes)
            .field("max_total_output_bytes", &self.max_total_output_bytes)
            .field(
                "cache",
                &self.cache.as_ref().map(|_| "<dyn InventoryCache>"),
            )
            .finish()
    }
}

/// The Slurm adapter.
#[derive(Debug, Clone)]
pub struct SlurmCloud {
    options: SlurmOptions,
    /// `slurm.allowed_clusters` (`None` = all).
    allowed_clusters: Option<Vec<String>>,
}

/// The commands asked of every login node, in [`SlurmInventory`] order.
const COMMANDS: [&str; 3] = [INFO_NODES_CMD, PARTITIONS_CMD, SELECT_TYPE_CMD];

/// `_check_compute_credentials`' text for a missing clusters file.
fn missing_file_message() -> String {
    format!(
        "Slurm configuration file {SLURM_CONFIG_PATH} does not exist.\n    For more info: https://docs.skypilot.co/en/latest/getting-started/installation.html#slurm-installation"
    )
}

impl SlurmCloud {
    /// An adapter with these options and `slurm.allowed_clusters`.
    pub fn new(options: SlurmOptions, allowed_clusters: Option<Vec<String>>) -> Self {
        SlurmCloud {
            options,
            allowed_clusters,
        }
    }

    /// The clusters file this adapter reads.
    pub fn config_file(&self, ctx: &CheckContext) -> PathBuf {
        self.options
            .config_file
            .clone()
            .unwrap_or_else(|| expand_home(SLURM_CONFIG_PATH, &ctx.home))
    }

    /// The clusters file, parsed; `Err` is what `sky check` says.
    fn read_config(&self, ctx: &CheckContext) -> Result<(SshConfig, Vec<String>), String> {
        let path = self.config_file(ctx);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(missing_file_message());
            }
            Err(e) => {
                return Err(format!(
                    "Failed to load SSH configuration from {SLURM_CONFIG_PATH}: OSError: {e}."
                ));
            }
        };
        let config = SshConfig::parse(&text).map_err(|e| {
            format!(
                "Failed to load SSH configuration from {SLURM_CONFIG_PATH}: paramiko.ssh_exception.ConfigParseError: {e}."
            )
        })?;
        let names = config.cluster_names().map_err(|e| {
            format!("Failed to load SSH configuration from {SLURM_CONFIG_PATH}: {e}.")
        })?;
        Ok((config, names))
    }

    fn allowed<'a>(&self, names: &'a [String]) -> Vec<&'a String> {
        match &self.allowed_clusters {
            None => names.iter().collect(),
            Some(list) => names.iter().filter(|n| list.contains(n)).collect(),
        }
    }

    fn local_user(ctx: &CheckContext) -> LocalUser {
        LocalUser {
            home: ctx.home.display().to_string(),
            user: ctx
                .env
                .get("USER")
                .or_else(|| ctx.env.get("LOGNAME"))
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// One cluster's inventory: cached, else asked; failures are data.
    async fn inventory(
        &self,
        ctx: &CheckContext,
        config: &SshConfig,
        name: &str,
        deadline: Duration,
        budget: &remote::Budget,
    ) -> (SlurmCluster, Option<Duration>) {
        let host = config.lookup(name, &Self::local_user(ctx));
        let connection = match Connection::from_host(&host, &ctx.home) {
            Ok(c) => c,
            Err(e) => {
                return (
                    SlurmCluster {
                        name: name.to_string(),
                        inventory: Err(e),
                    },
                    None,
                );
            }
        };
        let key = InventoryKey {
            cluster: name.to_string(),
            hostname: connection.hostname.clone(),
            port: connection.port,
            user: connection.user.clone(),
            program: self.options.ssh_program.clone(),
            proxy: format!(
                "{}\n{}",
                connection.proxy_command.as_deref().unwrap_or_default(),
                connection.proxy_jump.as_deref().unwrap_or_default()
            ),
        };
        let cache = self.options.cache.as_ref().filter(|_| !ctx.refresh);
        if let Some((inventory, age)) =
            cache.and_then(|c| c.get(&key, self.options.service.cache_ttl))
        {
            tracing::info!(cluster = name, outcome = "cache_hit");
            return (
                SlurmCluster {
                    name: name.to_string(),
                    inventory: Ok(inventory),
                },
                Some(age),
            );
        }
        let inventory = self.ask(ctx, &connection, deadline, budget).await;
        if let (Some(cache), Ok(inv)) = (self.options.cache.as_ref(), &inventory)
            && inv.nodes.returncode == 0
        {
            cache.put(&key, inv, self.options.service.cache_ttl);
        }
        match &inventory {
            Ok(_) => tracing::info!(cluster = name, outcome = "asked"),
            Err(e) => tracing::info!(cluster = name, error = %e, "login node unreachable"),
        }
        (
            SlurmCluster {
                name: name.to_string(),
                inventory,
            },
            None,
        )
    }

    /// Runs the three commands in one invocation on the login node.
    async fn ask(
        &self,
        ctx: &CheckContext,
        connection: &Connection,
        deadline: Duration,
        budget: &remote::Budget,
    ) -> Result<SlurmInventory, String> {
        let script = batch::script(&COMMANDS);
        let args = connection.ssh_args(&script, deadline.min(self.options.service.connect_timeout));
        let limits = remote::Limits {
            deadline,
            max_output: self.options.max_output_bytes,
            budget: budget.clone(),
        };
        let out = remote::run(&self.options.ssh_program, &args, &ctx.env, limits).await?;
        let [nodes, partitions, select_type] = if out.returncode == 0 {
            let frames = batch::parse(&out.stdout, COMMANDS.len())?;
            <[CommandOutput; 3]>::try_from(frames)
                .map_err(|_| "RuntimeError: missing command results".to_string())?
        } else {
            // ssh (or the login shell) failed: every command sees that failure,
            // as SkyPilot's one-command-per-call client would.
            [out.clone(), out.clone(), out]
        };
        Ok(SlurmInventory {
            nodes,
            partitions,
            select_type,
        })
    }

    /// What `sky gpus list` reads of the allowed clusters (or of `region`):
    /// each login node's `sinfo`, `scontrol show node -o` and `squeue`, in
    /// one invocation per cluster, concurrently, never from the cache
    /// (free GPUs change by the minute; SkyPilot asks on every request).
    pub(crate) async fn gpu_clusters(
        &self,
        ctx: &CheckContext,
        region: Option<&str>,
    ) -> Vec<SlurmGpuCluster> {
        // SkyPilot: no usable clusters file, no clusters (`existing_allowed_clusters`).
        let (config, names) = self.read_config(ctx).unwrap_or_default();
        // `existing_allowed_clusters`: in `allowed_clusters` order when it
        // lists them (SkyPilot otherwise iterates a Python set, in hash
        // order; the file's order stands in for it).
        let names: Vec<String> = match (region, &self.allowed_clusters) {
            (Some(r), _) => vec![r.to_string()],
            (None, Some(list)) => list.iter().filter(|c| names.contains(c)).cloned().collect(),
            (None, None) => names,
        };
        let deadline = if ctx.cloud_timeout.is_zero() {
            self.options.service.request_timeout
        } else {
            self.options
                .service
                .request_timeout
                .min(ctx.cloud_timeout.mul_f64(0.9))
        };
        let budget = remote::Budget::new(self.options.max_total_output_bytes);
        join_all(names.iter().map(|name| {
            let span = tracing::info_span!("slurm.gpu_inventory", cluster = %name);
            async {
                let host = config.lookup(name, &Self::local_user(ctx));
                let answer = match Connection::from_host(&host, &ctx.home) {
                    Err(e) => Err(e),
                    Ok(connection) => self.ask_gpus(ctx, &connection, deadline, &budget).await,
                };
                SlurmGpuCluster {
                    name: name.clone(),
                    answer,
                }
            }
            .instrument(span)
        }))
        .await
    }

    /// Runs `sky gpus list`'s three commands in one invocation.
    async fn ask_gpus(
        &self,
        ctx: &CheckContext,
        connection: &Connection,
        deadline: Duration,
        budget: &remote::Budget,
    ) -> Result<SlurmGpuAnswer, String> {
        const GPU_COMMANDS: [&str; 3] = [INFO_NODES_CMD, NODE_DETAILS_CMD, JOBS_GRES_CMD];
        let script = batch::script(&GPU_COMMANDS);
        let args = connection.ssh_args(&script, deadline.min(self.options.service.connect_timeout));
        let limits = remote::Limits {
            deadline,
            max_output: self.options.max_output_bytes,
            budget: budget.clone(),
        };
        let out = remote::run(&self.options.ssh_program, &args, &ctx.env, limits).await?;
        if out.returncode != 0 {
            return Err(batch_failure_text(&out));
        }
        let frames = batch::parse(&out.stdout, GPU_COMMANDS.len())?;
        let [nodes, node_details, jobs] = <[CommandOutput; 3]>::try_from(frames)
            .map_err(|_| "RuntimeError: missing command results".to_string())?;
        Ok(SlurmGpuAnswer {
            nodes,
            node_details,
            jobs,
        })
    }

    async fn check_inner(&self, ctx: &CheckContext) -> Result<CheckOutcome, CloudError> {
        let (config, names) = self.read_config(ctx).map_err(CloudError::Config)?;
        let deadline = if ctx.cloud_timeout.is_zero() {
            self.options.service.request_timeout
        } else {
            self.options
                .service
                .request_timeout
                .min(ctx.cloud_timeout.mul_f64(0.9))
        };
        let budget = remote::Budget::new(self.options.max_total_output_bytes);
        let results = join_all(names.iter().map(|name| {
            let span = tracing::info_span!("slurm.inventory", cluster = %name);
            self.inventory(ctx, &config, name, deadline, &budget)
                .instrument(span)
        }))
        .await;
        let mut max_age: Option<Duration> = None;
        let mut all_cached = !results.is_empty();
        let mut clusters = Vec::with_capacity(results.len());
        for (cluster, age) in results {
            match age {
                Some(a) => max_age = Some(max_age.map_or(a, |m| m.max(a))),
                None => all_cached = false,
            }
            clusters.push(cluster);
        }
        let cache = match (&self.options.cache, all_cached, max_age) {
            (None, _, _) => CacheUse::None,
            (Some(_), true, Some(age)) => CacheUse::Hit { age },
            _ => CacheUse::Miss,
        };
        Ok(CheckOutcome {
            facts: CloudFacts::Slurm(clusters),
            cache,
        })
    }
}

impl Cloud for SlurmCloud {
    fn id(&self) -> CloudId {
        CloudId::Slurm
    }

    fn credentials(&self, ctx: &CheckContext) -> Credentials {
        match self.read_config(ctx) {
            Err(e) => Credentials::Missing(e),
            Ok((_, names)) => {
                let allowed = self.allowed(&names);
                if allowed.is_empty() {
                    Credentials::Missing(format!(
                        "No Slurm clusters found in {SLURM_CONFIG_PATH}. Please configure at least one Slurm cluster."
                    ))
                } else {
                    Credentials::Present(format!(
                        "{} ({})",
                        self.config_file(ctx).display(),
                        allowed
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
        }
    }

    fn check<'a>(
        &'a self,
        ctx: &'a CheckContext,
    ) -> BoxFuture<'a, Result<CheckOutcome, CloudError>> {
        Box::pin(self.check_inner(ctx))
    }
}
