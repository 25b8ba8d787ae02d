//! On-disk state: identity and node caches under `~/.sky` (or `SKY_STATE_DIR`).
