//! Nothing lost: a failing inner writer (disk full at every point, inside
//! `flush`, partial writes, `Interrupted`, a writer that takes nothing).
//! Every error reaches the caller, and once the fault clears, `finish`
//! produces exactly the bytes an infallible writer gets.

use std::cell::Cell;
use std::io;
use std::rc::Rc;

use swath_csv::{WriteErrorKind, Writer, WriterBuilder};

/// Accepts `budget` bytes (at most `chunk` per call), then fails with
/// ENOSPC until `budget` is raised; may fail its `flush` or return
/// `Interrupted` every other call.
struct Disk {
    out: Vec<u8>,
    budget: Rc<Cell<usize>>,
    chunk: usize,
    fail_flush: Rc<Cell<bool>>,
    interrupt: bool,
    calls: usize,
}

impl Disk {
    fn new(budget: usize, chunk: usize) -> Disk {
        Disk {
            out: Vec::new(),
            budget: Rc::new(Cell::new(budget)),
            chunk,
            fail_flush: Rc::new(Cell::new(false)),
            interrupt: false,
            calls: 0,
        }
    }
}

impl io::Write for Disk {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt && self.calls % 2 == 1 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let budget = self.budget.get();
        if budget == 0 {
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        let n = b.len().min(budget).min(self.chunk);
        self.out.extend_from_slice(&b[..n]);
        self.budget.set(budget - n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.fail_flush.get() {
            return Err(io::Error::other("flush failed"));
        }
        Ok(())
    }
}

const ROWS: u64 = 200;

fn rows<W: io::Write>(wtr: &mut Writer<W>, errors: &mut Vec<u64>) {
    for i in 0..ROWS {
        let res = wtr.write_row((i, "name, quoted", i as f64 * 0.25, i % 2 == 0));
        if let Err(e) = res {
            assert!(matches!(e.kind(), WriteErrorKind::Io(_)), "{e}");
            errors.push(e.record());
        }
    }
}

fn reference() -> Vec<u8> {
    let mut wtr = WriterBuilder::new().buffer_capacity(64).from_writer(Vec::new());
    rows(&mut wtr, &mut Vec::new());
    wtr.finish().unwrap()
}

#[test]
fn disk_full_anywhere_loses_nothing() {
    let want = reference();
    // Every budget from 0 to past the end, and writes of 1, 7 and any size.
    for chunk in [1, 7, usize::MAX] {
        for budget in (0..=want.len() + 1).step_by(13).chain([63, 64, 65, want.len()]) {
            let disk = Disk::new(budget, chunk);
            let space = disk.budget.clone();
            let mut wtr = WriterBuilder::new().buffer_capacity(64).from_writer(disk);
            let mut errors = Vec::new();
            rows(&mut wtr, &mut errors);
            let fits = budget >= want.len();
            let flushed = wtr.flush();
            if fits {
                assert!(errors.is_empty() && flushed.is_ok(), "budget {budget}");
            } else {
                // The fault was reported, at a write or at flush.
                assert!(!errors.is_empty() || flushed.is_err(), "budget {budget}");
                assert!(flushed.is_err(), "budget {budget}: flush hid the fault");
            }
            // Free the disk: everything buffered gets out, in order.
            space.set(usize::MAX);
            let disk = wtr.finish().unwrap();
            assert_eq!(disk.out, want, "budget {budget}, chunk {chunk}");
        }
    }
}

#[test]
fn interrupted_writes_are_retried() {
    let mut disk = Disk::new(usize::MAX, 5);
    disk.interrupt = true;
    let mut wtr = WriterBuilder::new().buffer_capacity(64).from_writer(disk);
    let mut errors = Vec::new();
    rows(&mut wtr, &mut errors);
    assert!(errors.is_empty());
    assert_eq!(wtr.finish().unwrap().out, reference());
}

#[test]
fn a_failing_inner_flush_is_reported_and_finish_can_retry() {
    let disk = Disk::new(usize::MAX, usize::MAX);
    let fail = disk.fail_flush.clone();
    fail.set(true);
    let mut wtr = WriterBuilder::new().buffer_capacity(64).from_writer(disk);
    let mut errors = Vec::new();
    rows(&mut wtr, &mut errors);
    assert!(errors.is_empty());
    assert!(wtr.flush().is_err());
    let err = wtr.finish().err().expect("finish must fail");
    assert_eq!(err.error().to_string(), "writing record 200: flush failed");
    fail.set(false);
    let disk = err.into_writer().finish().unwrap();
    assert_eq!(disk.out, reference());
}

#[test]
fn a_writer_that_takes_nothing_is_an_error_not_a_loop() {
    struct Zero;
    impl io::Write for Zero {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Ok(0)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut wtr = Writer::from_writer(Zero);
    wtr.write_row(("a",)).unwrap();
    let err = wtr.finish().err().expect("finish must fail");
    match err.error().kind() {
        WriteErrorKind::Io(e) => assert_eq!(e.kind(), io::ErrorKind::WriteZero),
        other => panic!("{other:?}"),
    }
}

#[test]
fn broken_pipe_is_recognised() {
    struct Closed;
    impl io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut wtr = WriterBuilder::new().buffer_capacity(1).from_writer(Closed);
    let err = wtr.write_row(("a",)).unwrap_err();
    assert!(err.is_broken_pipe());
    assert_eq!(err.record(), 1);
}
