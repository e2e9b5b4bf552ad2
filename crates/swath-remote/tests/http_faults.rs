//! A remote object over loopback HTTP, read through the project's own
//! range server and fault proxy (swath-testkit's `http`): every byte, after
//! retries where the fault passes, and a clear error naming the URL and the
//! bytes where it does not. Every test is bounded in time by the options'
//! timeouts and tries.

use std::sync::Arc;
use std::time::{Duration, Instant};

use swath::ReadAt;
use swath_remote::{RemoteObject, RemoteOptions};
use swath_testkit::http::{FaultProxy, Faults, RangeServer};
use swath_testkit::Rng;

/// Small blocks and quick tries, so that a test reads many blocks and its
/// faults cost milliseconds.
fn opts() -> RemoteOptions {
    RemoteOptions {
        block: 64 * 1024,
        in_flight: 3,
        cached: 7,
        attempts: 4,
        timeout: Duration::from_millis(800),
        backoff: Duration::from_millis(10),
        ..RemoteOptions::default()
    }
}

fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; len];
    Rng::new(seed).fill(&mut out);
    out
}

/// Read the whole object with reads of odd sizes at odd offsets (so reads
/// straddle blocks), front to back.
fn read_all(obj: &RemoteObject) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 50_000];
    loop {
        let n = obj.read_at(&mut buf, out.len() as u64)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

fn served(name: &str, data: &[u8]) -> RangeServer {
    let server = RangeServer::start();
    server.put(name, data.to_vec());
    server
}

#[test]
fn every_byte_arrives_in_order_and_the_cache_stays_bounded() {
    let data = bytes(1_000_003, 1);
    let server = served("data.bin", &data);
    let obj = swath_remote::open(&server.url("data.bin"), &opts()).unwrap();
    assert_eq!(obj.len(), data.len() as u64);
    assert_eq!(read_all(&obj).unwrap(), data);
    // Read front to back: a probe of the first 256 KiB (a read at the top
    // may be a header alone), then the 12 blocks of 64 KiB after it, each
    // fetched once.
    assert_eq!(obj.gets(), 13);
    assert!(obj.blocks_held() <= 7, "{} blocks held", obj.blocks_held());
    // Random reads, many threads at once: the same bytes.
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (obj, data) = (&obj, &data);
            s.spawn(move || {
                let mut rng = Rng::new(10 + t);
                for _ in 0..50 {
                    let at = rng.below(data.len() as u64) as usize;
                    let mut buf = vec![0u8; 1 + rng.index(200_000)];
                    let n = obj.read_at(&mut buf, at as u64).unwrap();
                    assert!(n > 0);
                    assert_eq!(&buf[..n], &data[at..at + n]);
                }
            });
        }
    });
    assert!(obj.blocks_held() <= 7 + 4, "{} blocks held", obj.blocks_held());
    let mut past = [0u8; 8];
    assert_eq!(obj.read_at(&mut past, data.len() as u64).unwrap(), 0);
}

#[test]
fn an_open_url_is_shared_and_an_empty_object_reads_as_empty() {
    let server = served("empty.csv", b"");
    let url = server.url("empty.csv");
    let a = swath_remote::open(&url, &opts()).unwrap();
    let b = swath_remote::open(&url, &opts()).unwrap();
    assert!(Arc::ptr_eq(&a, &b), "one object, one cache, one pinned version");
    assert!(a.is_empty());
    assert_eq!(read_all(&a).unwrap(), b"");
}

#[test]
fn server_errors_resets_and_slow_answers_are_tried_again_to_the_right_bytes() {
    let data = bytes(700_000, 2);
    let server = served("faulty.bin", &data);
    let proxy = FaultProxy::start(server.addr());
    let url = format!("{}/faulty.bin", proxy.base_url());
    let obj = swath_remote::open(&url, &opts()).unwrap();
    for faults in [
        Faults { fail_first: 3, fail_status: 503, ranged_only: true, ..Faults::default() },
        Faults { fail_first: 2, fail_status: 500, ranged_only: true, ..Faults::default() },
        Faults { cut_after: 1000, cut_times: 3, ranged_only: true, ..Faults::default() },
        Faults {
            delay: Duration::from_secs(2),
            delay_times: 2,
            ranged_only: true,
            ..Faults::default()
        },
    ] {
        let what = format!("{faults:?}");
        proxy.set(faults);
        // A new object each time (the old one's blocks are cached).
        drop(obj.clone());
        let fresh = swath_remote::open(&format!("{url}?{}", proxy.requests()), &opts());
        let fresh = fresh.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(read_all(&fresh).unwrap_or_else(|e| panic!("{what}: {e}")), data, "{what}");
    }
}

#[test]
fn a_fault_that_does_not_pass_is_an_error_naming_the_url_and_the_bytes() {
    let data = bytes(300_000, 3);
    let server = served("down.bin", &data);
    let proxy = FaultProxy::start(server.addr());
    let url = format!("{}/down.bin", proxy.base_url());
    let obj = swath_remote::open(&url, &opts()).unwrap();
    proxy.set(Faults {
        fail_first: 1000,
        fail_status: 503,
        ranged_only: true,
        ..Faults::default()
    });
    let started = Instant::now();
    let err = read_all(&obj).unwrap_err().to_string();
    assert!(err.contains(&url), "{err}");
    // The first read is a probe of 256 KiB (the object is 300,000 bytes).
    assert!(err.contains("bytes 0..262144"), "{err}");
    assert!(err.contains("gave up after 4 tries"), "{err}");
    assert!(err.contains("503"), "{err}");
    // 4 tries with pauses of 10, 20, 40 ms: well under the bound.
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // A server that never answers in time: the timeout, not a hang.
    let proxy2 = FaultProxy::start(server.addr());
    let url2 = format!("{}/down.bin", proxy2.base_url());
    let obj2 = swath_remote::open(&url2, &opts()).unwrap();
    proxy2.set(Faults {
        delay: Duration::from_secs(30),
        delay_times: 1000,
        ranged_only: true,
        ..Faults::default()
    });
    let err = read_all(&obj2).unwrap_err().to_string();
    assert!(err.contains("no answer within 800ms"), "{err}");
    assert!(err.contains(&url2), "{err}");
}

#[test]
fn an_object_replaced_while_it_is_read_is_an_error_not_a_mix() {
    let old = bytes(500_000, 4);
    let new = bytes(500_000, 5);
    let server = Arc::new(served("moving.csv", &old));
    let proxy = FaultProxy::start(server.addr());
    let url = format!("{}/moving.csv", proxy.base_url());
    let obj = swath_remote::open(&url, &opts()).unwrap();
    // The third ranged GET finds the object replaced (same length).
    let replace = {
        let (server, new) = (server.clone(), new.clone());
        Arc::new(move || server.put("moving.csv", new.clone()))
    };
    proxy.set(Faults { ranged_only: true, on_request: Some((3, replace)), ..Faults::default() });
    let err = read_all(&obj).unwrap_err().to_string();
    assert!(err.contains("changed while it was read"), "{err}");
    assert!(err.contains(&url), "{err}");
    // Opened again in this process, after the first is gone: still an error
    // (the process saw the first version).
    drop(obj);
    let err = swath_remote::open(&url, &opts()).unwrap_err().to_string();
    assert!(err.contains("changed while it was read"), "{err}");
}

#[test]
fn a_missing_object_and_a_bare_host_are_clear_errors() {
    let server = served("here.csv", b"a\n");
    let err = swath_remote::open(&server.url("gone.csv"), &opts()).unwrap_err().to_string();
    assert!(err.contains("no such object"), "{err}");
    assert!(err.contains("gone.csv"), "{err}");
    let bare = format!("http://{}/", server.addr());
    let err = swath_remote::open(&bare, &opts()).unwrap_err().to_string();
    assert!(err.contains("names no object"), "{err}");
}

/// A short reader (inference's records at one place) whose probe other
/// probes pushed out gets another probe, not a block and its read-ahead;
/// and a read that lands in a block held for another reader fetches
/// nothing ahead of it. Either once made samples spread over an object
/// download all of it.
#[test]
fn short_readers_and_reads_in_held_blocks_fetch_nothing_ahead() {
    let data = bytes(4 << 20, 4);
    let server = served("short.bin", &data);
    let obj = swath_remote::open(&server.url("short.bin"), &opts()).unwrap();
    let mut buf = vec![0u8; 32 << 10];
    // A short reader at 1 MB: one probe.
    let at = 1_000_000u64;
    assert_eq!(obj.read_at(&mut buf, at).unwrap(), buf.len());
    let gets = obj.gets();
    // Eight probes elsewhere push its probe out.
    for k in 0..8u64 {
        obj.read_at(&mut buf, 1_400_000 + k * 300_000).unwrap();
    }
    assert_eq!(obj.gets(), gets + 8);
    // It goes on: another probe, not a block and 3 ahead.
    let next = at + buf.len() as u64;
    assert_eq!(swath::range::read_full_at(&obj, &mut buf, next).unwrap(), buf.len());
    assert_eq!(&buf[..], &data[next as usize..next as usize + buf.len()]);
    assert_eq!(obj.gets(), gets + 9, "a short reader went on with a probe");
    // A long stream from the top: its probe, then blocks with read-ahead.
    let mut off = 0u64;
    while off < 320 << 10 {
        off += obj.read_at(&mut buf, off).unwrap() as u64;
    }
    let held = obj.gets();
    // A probe-like read inside a block the stream holds (block 5, of
    // 320..384 KiB): served from it, nothing fetched ahead.
    assert_eq!(obj.read_at(&mut buf[..100], (320 << 10) + 5).unwrap(), 100);
    assert_eq!(&buf[..100], &data[(320 << 10) + 5..(320 << 10) + 105]);
    assert_eq!(obj.gets(), held, "a read in a held block fetched more");
}
