//! Memory maps: the kernel maps the page cache into our address space and
//! we count straight from it, no copy. Page faults replace `read` calls.
//!
//! Larger than memory (`behind`), each [`STEP`] counted is unmapped from
//! the process (`madvise(DONTNEED)`) and then dropped from the page cache
//! (`posix_fadvise(DONTNEED)`, which skips pages still mapped).

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::Path;

use super::behind::{drop_range, LAG, STEP};
use super::Outcome;

/// Map the file, or `None` for an empty one (a zero-length map is an error).
fn map(path: &Path) -> io::Result<Option<(File, memmap2::Mmap)>> {
    let file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(None);
    }
    // SAFETY: the lab's files are its own (generated) or the user's, which
    // must not be truncated while the lab runs; the report says so. A
    // truncation would raise SIGBUS, killing only this child process.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Some((file, map)))
}

/// Newlines in `map[start..end]`; with `behind`, evicting each step counted.
fn count(file: &File, map: &memmap2::Mmap, start: usize, end: usize, behind: bool) -> u64 {
    if !behind {
        return swath::count_newlines(&map[start..end]);
    }
    let mut newlines = 0;
    let mut pos = start;
    while pos < end {
        // Steps end on multiples of STEP (page-aligned), as madvise needs.
        let stop = ((pos as u64 / STEP + 1) * STEP).min(end as u64) as usize;
        newlines += swath::count_newlines(&map[pos..stop]);
        let page = pos - pos % crate::aligned::PAGE;
        // SAFETY: DONTNEED on a shared, read-only file mapping only drops
        // our page-table entries; the bytes stay the file's, and a later
        // access (none here: this range is done) would fault them back in.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, page, stop - page)
        };
        // Back by LAG: a large folio straddling the last step's end.
        let from = (page as u64).saturating_sub(LAG).max(start as u64);
        drop_range(file.as_raw_fd(), from, stop as u64 - from);
        pos = stop;
    }
    let from = (start as u64).saturating_sub(LAG);
    drop_range(file.as_raw_fd(), from, end as u64 + LAG - from);
    newlines
}

/// One map, counted on one thread.
pub fn mmap(path: &Path, behind: bool) -> io::Result<Outcome> {
    let Some((file, map)) = map(path)? else {
        return Ok(Outcome::default());
    };
    let tail = u64::from(map.last().is_some_and(|&b| b != b'\n'));
    let newlines = count(&file, &map, 0, map.len(), behind);
    Ok(Outcome {
        lines: newlines + tail,
        bytes: map.len() as u64,
        syscalls: None,
        buf_offset: None,
        id_sum: None,
    })
}

/// One map, cut into `threads` equal slices counted at once. Counting `\n`
/// needs no boundary fixing: every byte is in exactly one slice.
pub fn mmap_parallel(path: &Path, threads: usize, behind: bool) -> io::Result<Outcome> {
    let Some((file, map)) = map(path)? else {
        return Ok(Outcome::default());
    };
    let len = map.len();
    let tail = u64::from(map.last().is_some_and(|&b| b != b'\n'));
    let per = len.div_ceil(threads.max(1)).max(1);
    let (file, mapped) = (&file, &map);
    let newlines: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..len)
            .step_by(per)
            .map(|start| {
                s.spawn(move || count(file, mapped, start, (start + per).min(len), behind))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("counting thread panicked")).sum()
    });
    if behind {
        // One map shared by all threads: a thread's fault-around can map
        // pages of a neighbour's slice after that neighbour dropped them,
        // and a mapped page survives fadvise. Unmap and drop the whole file
        // once every thread is done (seen in CI: a third of a 6 MiB file
        // left cached by two threads).
        // SAFETY: as in `count`: the counting is over, nothing reads the
        // map again, and DONTNEED only drops our page-table entries.
        let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, len) };
        drop_range(file.as_raw_fd(), 0, len as u64 + LAG);
    }
    Ok(Outcome {
        lines: newlines + tail,
        bytes: len as u64,
        syscalls: None,
        buf_offset: None,
        id_sum: None,
    })
}
