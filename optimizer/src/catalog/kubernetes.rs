//! The Kubernetes virtual catalog: nodes per context and the fits check.

/// One allowed kubeconfig context and what listing its nodes gave.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeContext {
    /// The context name (shown as the region, `Kubernetes (<context>)`).
    pub name: String,
    /// The nodes, or why they could not be listed (the context is then excluded).
    pub nodes: Result<Vec<KubeNode>, String>,
}

/// The parts of a Kubernetes node the optimizer looks at.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeNode {
    /// Node name.
    pub name: String,
}
