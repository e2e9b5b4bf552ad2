//! swath's exact CSV splits on a Ballista cluster.
//!
//! Ballista ships plans between processes: the client's logical plan to
//! the scheduler, each stage's physical plan to the executors. swath's
//! table and scan travel through swath-datafusion's codecs
//! ([`SwathLogicalCodec`], [`SwathPhysicalCodec`]), here wrapped around
//! Ballista's own, and this crate starts the three roles with them:
//!
//! - [`run_scheduler`]: plans each query, and each file's exact split plan
//!   (the quote-parity pass) once, on the scheduler.
//! - [`run_executor`]: runs tasks; each reads its byte ranges from the
//!   splits that came with the plan, from their first record and line.
//! - [`connect`]: a client session whose queries run on the cluster.
//!
//! Tables may be URLs (`s3://`, `gs://`, `az://`, `http(s)://`): every
//! process makes the object's store from its own credentials the first
//! time it meets the URL ([`RemoteStores`]).
//!
//! The binary `swath-cluster` (`scheduler`, `executor`, `sql`) is these
//! three; docs/cluster.md has the commands for several machines.
#![deny(missing_docs)]

mod log;
mod stores;

use std::net::SocketAddr;
use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use swath_datafusion::codec::{SwathLogicalCodec, SwathPhysicalCodec};

pub use crate::log::init_logging;
pub use crate::stores::{runtime_env, scheduler_session, RemoteStores};

/// swath's logical codec around Ballista's.
pub fn logical_codec() -> Arc<dyn LogicalExtensionCodec> {
    Arc::new(SwathLogicalCodec::new(Arc::new(BallistaLogicalExtensionCodec::default())))
}

/// swath's physical codec around Ballista's.
pub fn physical_codec() -> Arc<dyn PhysicalExtensionCodec> {
    Arc::new(SwathPhysicalCodec::new(Arc::new(BallistaPhysicalExtensionCodec::default())))
}

fn ballista_error(e: ballista_core::error::BallistaError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// How a scheduler finds out that an executor is gone.
#[derive(Clone, Debug)]
pub struct SchedulerOptions {
    /// An executor that has not sent a heartbeat for this long is dead
    /// (Ballista's default: 180 s).
    pub executor_timeout_seconds: u64,
    /// How often dead executors are looked for (default 15 s).
    pub expire_dead_executor_interval_seconds: u64,
    /// How many times a task may fail before its job does (default 4).
    pub task_max_failures: usize,
}

impl Default for SchedulerOptions {
    fn default() -> SchedulerOptions {
        let d = SchedulerConfig::default();
        SchedulerOptions {
            executor_timeout_seconds: d.executor_timeout_seconds,
            expire_dead_executor_interval_seconds: d.expire_dead_executor_interval_seconds,
            task_max_failures: d.task_max_failures,
        }
    }
}

/// Run a scheduler on `listener` (bound already, so that port 0 works and
/// the caller knows the address) until the process ends. `external_host`
/// is the name executors and clients reach it by.
///
/// # Errors
///
/// The scheduler cannot start or its service fails.
pub async fn run_scheduler(
    listener: tokio::net::TcpListener,
    external_host: &str,
    opts: &SchedulerOptions,
) -> Result<()> {
    let addr: SocketAddr = listener.local_addr()?;
    let config = SchedulerConfig {
        bind_host: addr.ip().to_string(),
        bind_port: addr.port(),
        external_host: external_host.to_string(),
        executor_timeout_seconds: opts.executor_timeout_seconds,
        expire_dead_executor_interval_seconds: opts.expire_dead_executor_interval_seconds,
        task_max_failures: opts.task_max_failures,
        override_logical_codec: Some(logical_codec()),
        override_physical_codec: Some(physical_codec()),
        override_session_builder: Some(Arc::new(scheduler_session)),
        ..SchedulerConfig::default()
    };
    config.validate().map_err(ballista_error)?;
    let cluster = BallistaCluster::new_from_config(&config).await.map_err(ballista_error)?;
    let scheduler =
        create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::new(config))
            .await
            .map_err(ballista_error)?;
    start_grpc_service_with_listener(listener, scheduler).await.map_err(ballista_error)
}

/// Where an executor listens and whom it works for.
#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    /// The address it binds (`127.0.0.1`, or `0.0.0.0` on a cluster).
    pub bind_host: String,
    /// The name the scheduler and the other executors reach it by.
    pub external_host: String,
    /// Its Arrow Flight port (shuffle data is fetched there).
    pub port: u16,
    /// Its gRPC port (the scheduler pushes tasks there).
    pub grpc_port: u16,
    /// The scheduler's host and port.
    pub scheduler: (String, u16),
    /// Tasks at once (0: one per core).
    pub concurrent_tasks: usize,
    /// Seconds between heartbeats to the scheduler.
    pub heartbeat_seconds: u64,
    /// Where shuffle files go (default: a new temporary directory).
    pub work_dir: Option<String>,
}

/// Run an executor until it is told to stop (Ctrl-C, SIGTERM, or the
/// scheduler).
///
/// # Errors
///
/// It cannot bind its ports, or cannot reach the scheduler.
pub async fn run_executor(opts: &ExecutorOptions) -> Result<()> {
    let work_dir = opts.work_dir.clone();
    let config = ExecutorProcessConfig {
        bind_host: opts.bind_host.clone(),
        external_host: Some(opts.external_host.clone()),
        port: opts.port,
        grpc_port: opts.grpc_port,
        scheduler_host: opts.scheduler.0.clone(),
        scheduler_port: opts.scheduler.1,
        vcores: opts.concurrent_tasks,
        work_dir: opts.work_dir.clone(),
        executor_heartbeat_interval_seconds: opts.heartbeat_seconds,
        print_thread_info: false,
        override_logical_codec: Some(logical_codec()),
        override_physical_codec: Some(physical_codec()),
        override_runtime_producer: Some(Arc::new(move |_| runtime_env(work_dir.as_deref()))),
        ..ExecutorProcessConfig::default()
    };
    start_executor_process(Arc::new(config)).await.map_err(ballista_error)
}

/// A session whose queries run on the Ballista scheduler at `url`
/// (`df://host:port`), with swath's codecs; register swath tables on it
/// with [`SwathCsvExt`](swath_datafusion::SwathCsvExt) as on any session.
/// `config` carries the query settings (target partitions, ...); they
/// travel with each query.
///
/// # Errors
///
/// A malformed URL.
pub async fn connect(url: &str, config: SessionConfig) -> Result<SessionContext> {
    let config = config
        .upgrade_for_ballista()
        .with_ballista_logical_extension_codec(logical_codec())
        .with_ballista_physical_extension_codec(physical_codec());
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_runtime_env(runtime_env(None)?)
        .build();
    SessionContext::remote_with_state(url, state).await
}
