//! The messages `sky gpus list`'s realtime flow raises or puts into its
//! output, built where SkyPilot builds them (exception messages and notes
//! are data there too: `sky/core.py::realtime_kubernetes_gpu_availability`,
//! `sky/client/cli/command.py::_show_gpus_impl`). A leaf below
//! [`super::show`]; `render::gpus` prints them as they are.

use crate::cloud::CloudId;
use crate::pytext::py_str_repr;

/// `constants.NO_GPU_HELP_MESSAGE`.
const NO_GPU_HELP: &str = "If your cluster contains GPUs, make sure nvidia.com/gpu resource is available on the nodes and the node labels for identifying GPUs (e.g., skypilot.co/accelerator) are setup correctly. ";

/// The warning `kubernetes_catalog._list_accelerators` logs when the pods
/// may not be listed (403).
pub const PODS_FORBIDDEN_WARNING: &str = "Failed to get pods in the Kubernetes cluster (forbidden). Please check if your account has necessary permissions to list pods. Realtime GPU availability information may be incorrect.";

/// `kubernetes_utils.KUBERNETES_AUTOSCALER_NOTE`.
pub const AUTOSCALER_NOTE: &str = "Note: Kubernetes cluster autoscaling is enabled. All GPUs that can be provisioned may not be listed here. Refer to your autoscaler's node pool configuration to see the list of supported GPUs.";

fn filter_words(name: Option<&str>, quantity: Option<u32>) -> Option<String> {
    let name = name?;
    let mut s = format!(" {}", py_str_repr(name));
    if let Some(q) = quantity {
        s.push_str(&format!(" with requested quantity {q}"));
    }
    Some(s)
}

/// `core.realtime_kubernetes_gpu_availability`'s `ValueError` when no
/// context (or pool) has a GPU, or none matching.
pub fn no_realtime_gpus(ssh: bool, name: Option<&str>, quantity: Option<u32>) -> String {
    let (id, capital) = if ssh {
        ("ssh", "SSH")
    } else {
        ("kubernetes", "Kubernetes")
    };
    match filter_words(name, quantity) {
        None => format!(
            "No GPUs found in any {capital} clusters. {NO_GPU_HELP}To further debug, run: sky check "
        ),
        Some(what) => format!(
            "Resources{what} not found in {capital} clusters. {NO_GPU_HELP}To show available accelerators on {id},  run: sky gpus list --cloud {id} "
        ),
    }
}

/// `_get_slurm_realtime_gpu_tables`' `ValueError` when no cluster has a GPU.
pub fn no_slurm_gpus(name: Option<&str>, quantity: Option<u32>) -> String {
    match filter_words(name, quantity) {
        None => {
            "No GPUs found in any Slurm partition. To further debug, run: sky check slurm ".into()
        }
        Some(what) => format!(
            "Resources{what} not found in any Slurm partition. To show available accelerators on Slurm, run: sky gpus list --cloud slurm "
        ),
    }
}

/// `_get_labeled_zero_gpu_hint` for the affected `context/node` names.
pub fn labeled_zero_gpu_hint(affected: &[String]) -> String {
    let shown: Vec<&str> = affected.iter().take(3).map(String::as_str).collect();
    format!(
        "Note: Some Kubernetes nodes have GPU labels but report 0 GPU resources. Please check the node labels and configuration. Affected {} node(s): {}{}",
        affected.len(),
        shown.join(", "),
        if affected.len() > 3 { "..." } else { "" }
    )
}

/// `--infra` names a realtime cloud that is not enabled.
pub fn not_enabled(cloud: CloudId) -> String {
    match cloud {
        CloudId::Ssh => "SSH Node Pools are not enabled. To fix, run: sky check ssh ".into(),
        CloudId::Slurm => "Slurm is not enabled. To fix, run: sky check slurm ".into(),
        _ => "Kubernetes is not enabled. To fix, run: sky check kubernetes ".into(),
    }
}
