//! `sky.clouds.cloud.CloudImplementationFeatures`: what a request may need
//! that some clouds do not implement.

/// A feature a request can require of a cloud (SkyPilot's
/// `CloudImplementationFeatures`, same values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// Stopping a cluster.
    Stop,
    /// More than one node.
    MultiNode,
    /// Cloning a disk from another cluster.
    CloneDiskFromCluster,
    /// A cloud image id (`image_id`).
    ImageId,
    /// A Docker image (`image_id: docker:<image>`).
    DockerImage,
    /// Spot instances.
    SpotInstance,
    /// A disk tier other than `best`.
    CustomDiskTier,
    /// `network_tier: best`.
    CustomNetworkTier,
    /// Opening ports.
    OpenPorts,
    /// Mounting object stores.
    StorageMounting,
    /// Hosting jobs/serve controllers.
    HostControllers,
    /// Controllers that restart themselves.
    HighAvailabilityControllers,
    /// A VM that can stop or tear itself down.
    AutoTerminate,
    /// A VM that can stop itself.
    Autostop,
    /// A VM that can tear itself down.
    Autodown,
    /// Several network interfaces (GPUDirect TCPX).
    CustomMultiNetwork,
    /// Directly attached instance storage.
    LocalDisk,
}

impl Feature {
    /// The enum value SkyPilot prints in its "not supported" table.
    pub fn value(self) -> &'static str {
        match self {
            Feature::Stop => "stop",
            Feature::MultiNode => "multi-node",
            Feature::CloneDiskFromCluster => "clone_disk_from_cluster",
            Feature::ImageId => "image_id",
            Feature::DockerImage => "docker_image",
            Feature::SpotInstance => "spot_instance",
            Feature::CustomDiskTier => "custom_disk_tier",
            Feature::CustomNetworkTier => "custom_network_tier",
            Feature::OpenPorts => "open_ports",
            Feature::StorageMounting => "storage_mounting",
            Feature::HostControllers => "host_controllers",
            Feature::HighAvailabilityControllers => "high_availability_controllers",
            Feature::AutoTerminate => "auto_terminate",
            Feature::Autostop => "autostop",
            Feature::Autodown => "autodown",
            Feature::CustomMultiNetwork => "custom_multi_network",
            Feature::LocalDisk => "local_disk",
        }
    }
}
