//! From a URL to an object store and the object's path in it, with the
//! credentials and endpoint of the usual environment variables.

use std::sync::Arc;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::http::HttpBuilder;
use object_store::path::Path;
use object_store::{ClientOptions, ObjectStore, ObjectStoreScheme, RetryConfig};
use url::Url;

use crate::options::RemoteOptions;

/// A store and the path of one object in it.
pub(crate) struct Located {
    pub store: Arc<dyn ObjectStore>,
    pub path: Path,
}

/// Build the store for `url`: `s3://bucket/key` (`AWS_*`: keys, region,
/// `AWS_ENDPOINT_URL` for an S3-compatible server), `gs://` (`GOOGLE_*`),
/// `az://` / `abfs://` (`AZURE_*`), and `http(s)://` (any server that
/// answers Range requests).
///
/// `retries`: object_store's own retries. Reads set 0: [`crate::fetch`]
/// retries every request itself, counting and reporting each try the same
/// way whatever the store. Uploads use object_store's (a part cannot be
/// sent again from outside once its number is taken).
pub(crate) fn locate(url: &str, opts: &RemoteOptions, retries: usize) -> Result<Located, String> {
    let parsed = Url::parse(url).map_err(|e| format!("not a valid URL: {e}"))?;
    let (_, raw_path) =
        ObjectStoreScheme::parse(&parsed).map_err(|e| format!("not an object URL: {e}"))?;
    let path = Path::from_url_path(raw_path).map_err(|e| format!("not an object path: {e}"))?;
    if path.as_ref().is_empty() {
        return Err("the URL names no object (a bucket or a host alone)".into());
    }
    Ok(Located { store: store(url, opts, retries)?, path })
}

/// The store of `url`, which may also name a bucket or a host alone (an
/// engine asks for a store by the store's own URL, `s3://bucket/`).
pub(crate) fn store(
    url: &str,
    opts: &RemoteOptions,
    retries: usize,
) -> Result<Arc<dyn ObjectStore>, String> {
    let parsed = Url::parse(url).map_err(|e| format!("not a valid URL: {e}"))?;
    let (scheme, _) =
        ObjectStoreScheme::parse(&parsed).map_err(|e| format!("not an object URL: {e}"))?;
    let retry = RetryConfig {
        max_retries: retries,
        retry_timeout: opts.timeout * (retries as u32 + 1),
        ..Default::default()
    };
    let config = |key: &str| {
        opts.config.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.clone())
    };
    let client = |allow_http: bool| {
        ClientOptions::new()
            // Past ours, so that a slow answer is reported the same way
            // by every store (fetch's "no answer within").
            .with_timeout(opts.timeout + std::time::Duration::from_secs(1))
            .with_connect_timeout(opts.timeout.min(std::time::Duration::from_secs(10)))
            .with_allow_http(allow_http)
    };
    let failed = |e: object_store::Error| format!("cannot set up the object store: {e}");
    let store: Arc<dyn ObjectStore> = match scheme {
        ObjectStoreScheme::AmazonS3 => {
            // A plain-http endpoint (an S3-compatible server on this host)
            // is allowed when the endpoint itself says http.
            let endpoint = config("aws_endpoint_url")
                .or_else(|| config("aws_endpoint"))
                .or_else(|| {
                    ["AWS_ENDPOINT_URL", "AWS_ENDPOINT"].iter().find_map(|k| std::env::var(k).ok())
                })
                .unwrap_or_default();
            let mut b = AmazonS3Builder::from_env();
            for (k, v) in &opts.config {
                if let Ok(key) = k.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
                    b = b.with_config(key, v);
                }
            }
            let b = b
                .with_url(url)
                .with_retry(retry)
                .with_client_options(client(endpoint.starts_with("http://")));
            Arc::new(b.build().map_err(failed)?)
        }
        ObjectStoreScheme::GoogleCloudStorage => {
            let mut b = GoogleCloudStorageBuilder::from_env();
            for (k, v) in &opts.config {
                if let Ok(key) = k.to_ascii_lowercase().parse::<GoogleConfigKey>() {
                    b = b.with_config(key, v);
                }
            }
            let b = b.with_url(url).with_retry(retry).with_client_options(client(false));
            Arc::new(b.build().map_err(failed)?)
        }
        ObjectStoreScheme::MicrosoftAzure => {
            let mut b = MicrosoftAzureBuilder::from_env();
            for (k, v) in &opts.config {
                if let Ok(key) = k.to_ascii_lowercase().parse::<AzureConfigKey>() {
                    b = b.with_config(key, v);
                }
            }
            let b = b.with_url(url).with_retry(retry).with_client_options(client(false));
            Arc::new(b.build().map_err(failed)?)
        }
        ObjectStoreScheme::Http => {
            let base = &parsed[..url::Position::BeforePath];
            let b = HttpBuilder::new()
                .with_url(base)
                .with_retry(retry)
                .with_client_options(client(parsed.scheme() == "http"));
            Arc::new(b.build().map_err(failed)?)
        }
        other => return Err(format!("{other:?} URLs are not read as remote objects")),
    };
    Ok(store)
}
