//! Integration tests of the `mocks` crate over real HTTP on 127.0.0.1.

mod faults; // each Fault variant on the wire
mod http; // a minimal HTTP/1.1 client over tokio::net::TcpStream
mod latency; // latency models: fixed timing, seeded sequences
mod servers; // bodies and routes of STS, Kubernetes, GCP, catalog; recording
mod set; // MocksSpec parsing and MockSet
