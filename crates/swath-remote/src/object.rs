//! A remote object read by ranges: [`swath::ReadAt`] over ranged GETs.
//!
//! The object is cut into blocks of `block` bytes. A read asks for the
//! block that holds its offset and, ahead of it, the next blocks, so a
//! reader going front to back (one thread, or each worker on its own range)
//! keeps several GETs in flight. At most `in_flight` GETs run ahead and at
//! most `cached` blocks are held, so memory stays flat whatever the size:
//! the block read least recently makes room (a block fetched ahead and not
//! read yet goes last).
//!
//! Read-ahead is for readers going front to back: a read that continues
//! where an earlier one ended, once that reader has read a probe's worth.
//! Any other read is a probe (a split plan looking at the first kilobytes
//! of each range, a `tail`, the top of the object: a header row, the head
//! that inference reads): it is answered by one small GET of [`PROBE`]
//! bytes, kept among the last few probes, without fetching a whole block or
//! reading ahead. A read that lands in a block held for another reader
//! uses it, without read-ahead of its own.
//! So a speculative plan over a remote object costs one small GET per
//! range, not a second download of the object.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use bytes::Bytes;

use crate::fetch::{self, Target};
use crate::pin::Pin;
use crate::runtime::{runtime, wait};

/// Bytes a probe (a read that does not continue an earlier one) fetches.
pub const PROBE: u64 = 256 << 10;

/// Probes kept, and read ends remembered for telling sequential reads.
const PROBES_KEPT: usize = 8;
const STREAMS_KEPT: usize = 64;

/// An opened remote object, pinned to the version seen at open.
pub struct RemoteObject {
    target: Arc<Target>,
    pin: Pin,
    len: u64,
    blocks: Arc<Blocks>,
}

/// The block cache, shared with the fetch tasks that fill it.
struct Blocks {
    state: Mutex<State>,
    ready: Condvar,
}

#[derive(Default)]
struct State {
    slots: HashMap<u64, Slot>,
    /// Bumped on every read: a slot's `used` orders eviction.
    tick: u64,
    /// Read-ahead GETs running (GETs a reader waits on are not capped).
    ahead: usize,
    /// GETs sent, for the tests and the bench.
    gets: u64,
    /// Where recent reads ended, and where each of those streams began: a
    /// read starting at an end continues that stream.
    streams: VecDeque<(u64, u64)>,
    /// The last probes' bytes, by their first byte.
    probes: VecDeque<(u64, Bytes)>,
}

struct Slot {
    data: Data,
    used: u64,
    read_ahead: bool,
    /// A reader took bytes from it (unread read-ahead is evicted last).
    read: bool,
}

enum Data {
    Loading,
    Ready(Bytes),
    Failed(Arc<str>),
}

impl RemoteObject {
    pub(crate) fn new(target: Arc<Target>, pin: Pin, len: u64) -> RemoteObject {
        let blocks = Arc::new(Blocks { state: Mutex::default(), ready: Condvar::new() });
        RemoteObject { target, pin, len, blocks }
    }

    /// The object's length at open.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty object.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The URL it was opened by.
    pub fn url(&self) -> &str {
        &self.target.url
    }

    /// Ranged GETs sent so far (retries not counted).
    pub fn gets(&self) -> u64 {
        self.lock().gets
    }

    /// Blocks held now, fetched or in flight (at most the options'
    /// `cached`, plus one per thread that waits on a block).
    pub fn blocks_held(&self) -> usize {
        self.lock().slots.len()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a reader panicked; the map is intact.
        self.blocks.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn block_count(&self) -> u64 {
        self.len.div_ceil(self.target.opts.block)
    }

    /// The bytes of block `idx`, fetching it (and, with `ahead`, the blocks
    /// after it) if they are not held.
    fn block(&self, mut st: MutexGuard<'_, State>, idx: u64, ahead: bool) -> io::Result<Bytes> {
        st.tick += 1;
        let tick = st.tick;
        self.request(&mut st, idx, false);
        let ahead = if ahead { self.target.opts.in_flight as u64 } else { 0 };
        for next in idx + 1..self.block_count().min(idx + 1 + ahead) {
            if !self.request(&mut st, next, true) {
                break;
            }
        }
        loop {
            match st.slots.get_mut(&idx) {
                Some(slot) => {
                    slot.used = tick;
                    slot.read = true;
                    match &slot.data {
                        Data::Ready(b) => return Ok(b.clone()),
                        Data::Failed(msg) => return Err(io::Error::other(msg.to_string())),
                        Data::Loading => {}
                    }
                }
                // Made room for others while we waited: ask again.
                None => {
                    self.request(&mut st, idx, false);
                }
            }
            st = self.blocks.ready.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Start fetching block `idx` unless it is held. A read-ahead request
    /// gives way (returns false) when the GETs ahead are at their cap or no
    /// block can be evicted.
    fn request(&self, st: &mut State, idx: u64, read_ahead: bool) -> bool {
        if st.slots.contains_key(&idx) {
            return true;
        }
        let opts = &self.target.opts;
        if read_ahead && st.ahead >= opts.in_flight {
            return false;
        }
        while st.slots.len() >= opts.cached {
            if !evict_one(st) {
                if read_ahead {
                    return false;
                }
                // A block a reader waits on goes over the cap (by at most
                // one per reading thread): readers never wait for room.
                break;
            }
        }
        let used = st.tick;
        st.slots.insert(idx, Slot { data: Data::Loading, used, read_ahead, read: false });
        st.ahead += usize::from(read_ahead);
        st.gets += 1;
        let start = idx * opts.block;
        let range = start..(start + opts.block).min(self.len);
        let (target, pin, blocks) = (self.target.clone(), self.pin.clone(), self.blocks.clone());
        let spawned = runtime().map(|rt| {
            rt.spawn(async move {
                let got = fetch::get(target, pin, range).await;
                let mut st = blocks.state.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(slot) = st.slots.get_mut(&idx) {
                    slot.data = match got {
                        Ok(b) => Data::Ready(b),
                        Err(msg) => Data::Failed(msg.into()),
                    };
                    if std::mem::take(&mut slot.read_ahead) {
                        st.ahead -= 1;
                    }
                }
                drop(st);
                blocks.ready.notify_all();
            })
        });
        if let Err(msg) = spawned {
            let slot = st.slots.get_mut(&idx).expect("inserted above");
            slot.data = Data::Failed(msg.into());
            if std::mem::take(&mut slot.read_ahead) {
                st.ahead -= 1;
            }
        }
        true
    }
}

/// Drop the block read least recently (one fetched ahead and not read yet
/// only when no read one is left); false when every held block is still in
/// flight.
fn evict_one(st: &mut State) -> bool {
    let oldest = st
        .slots
        .iter()
        .filter(|(_, s)| !matches!(s.data, Data::Loading))
        .min_by_key(|(_, s)| (!s.read, s.used))
        .map(|(k, _)| *k);
    match oldest {
        Some(k) => {
            st.slots.remove(&k);
            true
        }
        None => false,
    }
}

impl swath::ReadAt for RemoteObject {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let block = self.target.opts.block;
        let idx = offset / block;
        let st = self.lock();
        let (start, data) = if let Some((start, data)) = probe_holding(&st, offset) {
            drop(st);
            (start, data)
        } else if long_stream_at(&st, offset) {
            (idx * block, self.block(st, idx, true)?)
        } else if st.slots.contains_key(&idx) {
            // Held (or on its way) for another reader: no read-ahead for
            // this one, or probes landing in held blocks would fetch the
            // whole object ahead of them, block after block.
            (idx * block, self.block(st, idx, false)?)
        } else {
            drop(st);
            self.probe(offset)?
        };
        let at = (offset - start) as usize;
        let n = buf.len().min(data.len().saturating_sub(at));
        buf[..n].copy_from_slice(&data[at..at + n]);
        let mut st = self.lock();
        match st.streams.iter().position(|&(end, _)| end == offset) {
            Some(i) => st.streams[i].0 = offset + n as u64,
            None => {
                if st.streams.len() == STREAMS_KEPT {
                    st.streams.pop_front();
                }
                st.streams.push_back((offset + n as u64, offset));
            }
        }
        Ok(n)
    }
}

/// True when a read at `offset` continues a stream that has read a probe's
/// worth already: a reader going on through the object, worth a block and
/// read-ahead. A short one (inference reading a few records at a place,
/// whose probe other threads' probes pushed out) gets another probe, not a
/// whole block (16 MiB by default).
fn long_stream_at(st: &State, offset: u64) -> bool {
    st.streams.iter().any(|&(end, start)| end == offset && end - start >= PROBE)
}

/// A kept probe that holds `offset`.
fn probe_holding(st: &State, offset: u64) -> Option<(u64, Bytes)> {
    st.probes.iter().find(|(start, b)| (*start..start + b.len() as u64).contains(&offset)).cloned()
}

impl RemoteObject {
    /// One small GET at `offset`, kept among the last probes.
    fn probe(&self, offset: u64) -> io::Result<(u64, Bytes)> {
        let range = offset..(offset + PROBE).min(self.len);
        let (target, pin) = (self.target.clone(), self.pin.clone());
        let data =
            wait(fetch::get(target, pin, range)).and_then(|r| r).map_err(io::Error::other)?;
        let mut st = self.lock();
        st.gets += 1;
        if st.probes.len() == PROBES_KEPT {
            st.probes.pop_front();
        }
        st.probes.push_back((offset, data.clone()));
        Ok((offset, data))
    }
}

impl std::fmt::Debug for RemoteObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteObject")
            .field("url", &self.target.url)
            .field("len", &self.len)
            .field("pin", &self.pin)
            .finish_non_exhaustive()
    }
}
