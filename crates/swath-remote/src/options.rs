//! How a remote object is read: block size, GETs in flight, retries and
//! timeouts. Defaults are sized for bandwidth (several GETs in flight
//! whatever the core count), and each can be set from the environment.

use std::time::Duration;

/// The settings of remote reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Bytes per ranged GET (the cache's block). `SWATH_REMOTE_BLOCK`.
    pub block: u64,
    /// Ranged GETs in flight at most, read-ahead included. `SWATH_REMOTE_IN_FLIGHT`.
    pub in_flight: usize,
    /// Blocks held at most (in flight or read): memory is `cached * block`.
    /// At least `in_flight + 2` (one being read by each of two threads).
    /// `SWATH_REMOTE_CACHED`.
    pub cached: usize,
    /// Tries of one request before its error is reported. `SWATH_REMOTE_ATTEMPTS`.
    pub attempts: u32,
    /// How long one request may take, body included. `SWATH_REMOTE_TIMEOUT` (seconds).
    pub timeout: Duration,
    /// The pause after the first failed try; doubled after each, at most 5 s.
    pub backoff: Duration,
    /// Store settings given here rather than in the environment, applied
    /// over it: object_store's keys (`aws_endpoint_url`, `aws_access_key_id`,
    /// `aws_region`, `google_service_account`, `azure_storage_account_name`,
    /// ...).
    pub config: Vec<(String, String)>,
}

impl Default for RemoteOptions {
    fn default() -> RemoteOptions {
        RemoteOptions {
            // 16 MiB GETs: object stores answer a request in tens of
            // milliseconds before the first byte, so fewer, larger ranges
            // win (bench/remote.sh: 4 MiB blocks were 5x slower on moto).
            block: 16 << 20,
            in_flight: 4,
            cached: 6,
            attempts: 5,
            timeout: Duration::from_secs(30),
            backoff: Duration::from_millis(100),
            config: Vec::new(),
        }
    }
}

impl RemoteOptions {
    /// The defaults, with every `SWATH_REMOTE_*` variable that is set.
    ///
    /// # Errors
    ///
    /// A variable that is set but not a number (or a size: `8M`, `512K`).
    pub fn from_env() -> Result<RemoteOptions, String> {
        RemoteOptions::from_vars(|k| std::env::var(k).ok())
    }

    /// As [`from_env`](Self::from_env), with the variables from `var`.
    ///
    /// # Errors
    ///
    /// As [`from_env`](Self::from_env).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<RemoteOptions, String> {
        let mut o = RemoteOptions::default();
        if let Some(v) = var("SWATH_REMOTE_BLOCK") {
            o.block = parse_size(&v).ok_or_else(|| bad("SWATH_REMOTE_BLOCK", &v))?.max(4096);
        }
        if let Some(v) = var("SWATH_REMOTE_IN_FLIGHT") {
            o.in_flight = v.parse().map_err(|_| bad("SWATH_REMOTE_IN_FLIGHT", &v))?;
        }
        o.in_flight = o.in_flight.max(1);
        o.cached = o.in_flight + 2;
        if let Some(v) = var("SWATH_REMOTE_CACHED") {
            o.cached = v.parse().map_err(|_| bad("SWATH_REMOTE_CACHED", &v))?;
        }
        o.cached = o.cached.max(o.in_flight + 2);
        if let Some(v) = var("SWATH_REMOTE_ATTEMPTS") {
            o.attempts = v.parse().map_err(|_| bad("SWATH_REMOTE_ATTEMPTS", &v))?;
        }
        o.attempts = o.attempts.max(1);
        if let Some(v) = var("SWATH_REMOTE_TIMEOUT") {
            let secs: f64 = v.parse().map_err(|_| bad("SWATH_REMOTE_TIMEOUT", &v))?;
            if !(secs > 0.0 && secs.is_finite()) {
                return Err(bad("SWATH_REMOTE_TIMEOUT", &v));
            }
            o.timeout = Duration::from_secs_f64(secs);
        }
        Ok(o)
    }

    /// The most memory the block cache holds for one object (one block more
    /// per reading thread past two, and the kept probes, come on top).
    pub fn memory(&self) -> u64 {
        self.block * self.cached as u64
    }
}

fn bad(name: &str, value: &str) -> String {
    format!("{name}={value:?} is not a valid setting")
}

/// `4194304`, `4M`, `512K`, `1G` (powers of 1024).
fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, shift) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 10),
        'm' | 'M' => (&t[..t.len() - 1], 20),
        'g' | 'G' => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_come_from_the_environment_and_bad_ones_are_refused() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(RemoteOptions::from_vars(|_| None).unwrap(), RemoteOptions::default());
        let o = RemoteOptions::from_vars(vars(&[
            ("SWATH_REMOTE_BLOCK", "1M"),
            ("SWATH_REMOTE_IN_FLIGHT", "3"),
            ("SWATH_REMOTE_ATTEMPTS", "2"),
            ("SWATH_REMOTE_TIMEOUT", "0.5"),
        ]))
        .unwrap();
        assert_eq!((o.block, o.in_flight, o.cached, o.attempts), (1 << 20, 3, 5, 2));
        assert_eq!(o.timeout, Duration::from_millis(500));
        for (k, v) in [("SWATH_REMOTE_BLOCK", "lots"), ("SWATH_REMOTE_TIMEOUT", "-1")] {
            let err = RemoteOptions::from_vars(|n| (n == k).then(|| v.to_string())).unwrap_err();
            assert!(err.contains(k), "{err}");
        }
    }
}
