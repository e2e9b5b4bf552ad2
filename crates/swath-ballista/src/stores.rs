//! Object stores found by their URL, in every process of the cluster.
//!
//! A table on `s3://`, `gs://`, `az://` or `http(s)://` is listed and
//! sized on the client and the scheduler (DataFusion's listing table asks
//! the session's object store registry) and read on the executors (the
//! file scan asks the registry of the task's runtime before swath reads
//! the object by its URL). No process is told the stores in advance: each
//! makes one the first time a URL of it comes by, from its own
//! environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`, `SWATH_REMOTE_*`), as
//! `swath sql` does. So every machine needs the credentials, not the plan.

use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::SessionState;
use datafusion::execution::SessionStateBuilder;
use datafusion::object_store::ObjectStore;
use datafusion::prelude::SessionConfig;
use url::Url;

/// DataFusion's registry, plus a store made on first use for any URL that
/// swath reads remotely.
#[derive(Debug, Default)]
pub struct RemoteStores {
    known: DefaultObjectStoreRegistry,
}

impl ObjectStoreRegistry for RemoteStores {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.known.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.known.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        let found = self.known.get_store(url);
        if found.is_ok() || !swath::remote::is_url(url.as_str()) {
            return found;
        }
        let external = |e: String| DataFusionError::External(e.into());
        let opts = swath_remote::RemoteOptions::from_env().map_err(|e| external(e.to_string()))?;
        let (store, base) =
            swath_remote::store_for(url.as_str(), &opts).map_err(|e| external(e.to_string()))?;
        // Two tasks asking at once may both make one; either serves.
        self.known.register_store(&base, store.clone());
        Ok(store)
    }
}

/// A runtime whose object stores are [`RemoteStores`]; shuffle spill files
/// go to `work_dir` when given.
///
/// # Errors
///
/// DataFusion's, building the runtime.
pub fn runtime_env(work_dir: Option<&str>) -> Result<Arc<RuntimeEnv>> {
    let mut b =
        RuntimeEnvBuilder::new().with_object_store_registry(Arc::new(RemoteStores::default()));
    if let Some(dir) = work_dir {
        b = b.with_temp_file_path(dir);
    }
    Ok(Arc::new(b.build()?))
}

/// Ballista's scheduler session, with a runtime of [`runtime_env`].
///
/// # Errors
///
/// DataFusion's or Ballista's, building it.
pub fn scheduler_session(config: SessionConfig) -> Result<SessionState> {
    let state = ballista_core::utils::default_session_builder(config)?;
    Ok(SessionStateBuilder::new_from_existing(state).with_runtime_env(runtime_env(None)?).build())
}
