//! Every value survives: batches (sequential, parallel, byte ranges),
//! and Parquet and IPC files read back, equal swath's CSV reader with
//! `FromField` parsing on generated files with every hard case.

mod common;

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use common::*;
use swath_arrow::{
    ArrowReaderBuilder, ColumnType, Infer, IpcSink, ParquetCompression, ParquetOptions, ParquetSink,
};

fn file_with(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

fn sequential(data: &[u8], batch: usize) -> Vec<RecordBatch> {
    let mut b = ArrowReaderBuilder::new();
    b.batch_size(batch).infer(Infer::Full);
    let f = file_with(data);
    b.from_path(f.path()).unwrap().map(|r| r.unwrap()).collect()
}

fn parallel(data: &[u8], threads: usize, chunk: u64) -> Vec<RecordBatch> {
    let f = file_with(data);
    let mut b = ArrowReaderBuilder::new();
    b.threads(threads).chunk_size(chunk).batch_size(1000);
    let mut p = b.build_parallel(f.path()).unwrap();
    let mut out = Vec::new();
    p.for_each_batch(|b| {
        out.push(b);
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn inferred_types_of_the_generated_file() {
    let data = generate(2000, 1, false, false);
    let f = file_with(&data);
    let s = ArrowReaderBuilder::new().infer_schema(f.path()).unwrap();
    let types: Vec<ColumnType> = s.columns.iter().map(|c| c.ty).collect();
    assert_eq!(
        types,
        [
            ColumnType::Int64,
            ColumnType::Float64,
            ColumnType::Boolean,
            ColumnType::Date32,
            ColumnType::TimestampTz,
            ColumnType::Utf8
        ]
    );
    assert!(s.columns.iter().all(|c| c.nullable && c.empty > 0));
}

#[test]
fn batches_equal_the_slow_read_in_every_dialect() {
    for (crlf, bom) in [(false, false), (true, false), (false, true), (true, true)] {
        let data = generate(3000, 7 + crlf as u64 + 2 * bom as u64, crlf, bom);
        let want = slow_read(&data);
        for batch in [1, 7, 1000, 65536] {
            let got = sequential(&data, batch);
            check_nulls(&got);
            assert_eq!(columns(&got), want, "crlf {crlf} bom {bom} batch {batch}");
            assert!(got.iter().all(|b| b.num_rows() <= batch));
        }
    }
}

#[test]
fn one_byte_reads_give_the_same_batches() {
    struct OneByte<'a>(&'a [u8]);
    impl std::io::Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() || buf.is_empty() {
                return Ok(0);
            }
            buf[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }
    let data = generate(300, 3, true, true);
    let mut b = ArrowReaderBuilder::new();
    b.batch_size(64);
    let got: Vec<RecordBatch> =
        b.from_reader(OneByte(&data)).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(columns(&got), slow_read(&data));
}

#[test]
fn parallel_equals_sequential_for_1_to_8_threads_and_tiny_chunks() {
    let data = generate(4000, 11, false, false);
    let want = columns(&sequential(&data, 65536));
    assert_eq!(want, slow_read(&data));
    for threads in 1..=8 {
        for chunk in [1u64, 97, 4096, 1 << 20] {
            if chunk == 1 && threads > 2 {
                continue; // a chunk per byte: slow, and covered by 1 and 2
            }
            let got = parallel(&data, threads, chunk);
            check_nulls(&got);
            assert_eq!(columns(&got), want, "threads {threads} chunk {chunk}");
        }
    }
}

#[test]
fn byte_ranges_at_record_starts_cover_the_file_exactly() {
    let data = generate(2500, 5, false, false);
    let f = file_with(&data);
    let b = ArrowReaderBuilder::new();
    let schema = b.infer_schema(f.path()).unwrap().schema;
    let starts = swath_csv::ParallelReader::new(&swath_csv::ReaderBuilder::new(), f.path())
        .threads(2)
        .chunk_size(5000)
        .record_starts()
        .unwrap();
    assert!(starts.len() > 5, "{} starts", starts.len());
    let file = Arc::new(std::fs::File::open(f.path()).unwrap());
    let mut b = ArrowReaderBuilder::new();
    b.schema(schema);
    let mut all = Vec::new();
    for (i, s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(data.len() as u64, |n| n.byte);
        let r = b.from_range(file.clone(), *s, end).unwrap();
        all.extend(r.map(|r| r.unwrap()));
    }
    assert_eq!(columns(&all), slow_read(&data));
    // A range that ends inside a record still finishes it; the next range
    // (from the next record start) does not read it again.
    let mid = starts[3].byte + 1;
    let a: Vec<_> =
        b.from_range(file.clone(), starts[2], mid).unwrap().map(|r| r.unwrap()).collect();
    let whole: Vec<_> = b
        .from_range(file.clone(), starts[2], starts[3].byte)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows(&a), rows(&whole) + 1);
}

#[test]
fn parquet_round_trip_every_compression() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let data = generate(5000, 13, true, true);
    let want = slow_read(&data);
    let batches = sequential(&data, 999);
    for compression in
        [ParquetCompression::Zstd, ParquetCompression::Snappy, ParquetCompression::None]
    {
        let opts =
            ParquetOptions { compression, row_group_rows: 1500, ..ParquetOptions::default() };
        let mut sink = ParquetSink::new(Vec::new(), batches[0].schema(), &opts).unwrap();
        for b in &batches {
            sink.write(b).unwrap();
        }
        let bytes = bytes::Bytes::from(sink.finish().unwrap());
        let rdr = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
        let meta = rdr.metadata().clone();
        assert_eq!(meta.num_row_groups(), 4, "5000 rows in groups of 1500");
        let stats = meta.row_group(0).column(0).statistics().expect("statistics are written");
        assert!(stats.null_count_opt().unwrap() > 0);
        let back: Vec<RecordBatch> = rdr.build().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(
            back[0].schema().field(4).data_type(),
            &DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(columns(&back), want, "{compression:?}");
    }
}

/// The parallel column encoder's slow twin is Parquet's own writer on
/// one thread: with row groups closed by rows, every thread count makes
/// the same bytes (same row groups cut mid-batch, same pages, statistics
/// and footer).
#[test]
fn parquet_encoded_on_threads_is_the_one_thread_file() {
    let data = generate(5000, 29, true, true);
    let batches = sequential(&data, 999);
    for compression in [ParquetCompression::Zstd, ParquetCompression::None] {
        let write = |encode_threads: usize, row_group_rows: usize| {
            let opts = ParquetOptions {
                compression,
                row_group_rows,
                encode_threads,
                ..ParquetOptions::default()
            };
            let mut sink = ParquetSink::new(Vec::new(), batches[0].schema(), &opts).unwrap();
            for b in &batches {
                sink.write(b).unwrap();
            }
            assert_eq!(sink.rows(), 5000);
            sink.finish().unwrap()
        };
        for rows in [7, 1500, 999, 1 << 20] {
            let one = write(1, rows);
            for threads in [2, 3, 6, 64] {
                assert!(
                    write(threads, rows) == one,
                    "{compression:?}, {threads} threads, row groups of {rows}: not the one-thread file"
                );
            }
        }
    }
}

/// An output that fails mid-file: the write or the finish says so (the
/// encoder threads stop; nothing hangs or panics).
#[test]
fn parquet_encoded_on_threads_reports_a_failing_output() {
    #[derive(Debug)]
    struct FailsAfter(usize);
    impl Write for FailsAfter {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if self.0 < b.len() {
                return Err(std::io::Error::other("disk on fire"));
            }
            self.0 -= b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let data = generate(3000, 37, true, true);
    let batches = sequential(&data, 500);
    let opts =
        ParquetOptions { row_group_rows: 700, encode_threads: 4, ..ParquetOptions::default() };
    let mut sink = ParquetSink::new(FailsAfter(20_000), batches[0].schema(), &opts).unwrap();
    let res = batches.iter().try_for_each(|b| sink.write(b));
    let err = match res {
        Err(e) => e,
        Ok(()) => sink.finish().expect_err("20 kB of output cannot hold the file"),
    };
    assert!(err.to_string().contains("disk on fire"), "{err}");
}

/// Row groups closed by encoded bytes: the count may differ from the one
/// thread's (the limit sees the size before the batches in flight), every
/// value must not; and the file is the same bytes for any number of
/// threads and on every run, however the threads are scheduled (it once
/// read what the threads happened to have finished: a capped run and an
/// uncapped one of `to-parquet` wrote different files).
#[test]
fn parquet_encoded_on_threads_closes_row_groups_by_bytes() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let data = generate(5000, 31, true, true);
    let want = slow_read(&data);
    let batches = sequential(&data, 250);
    let write = |encode_threads: usize| {
        let opts = ParquetOptions {
            row_group_bytes: 8 << 10,
            encode_threads,
            ..ParquetOptions::default()
        };
        let mut sink = ParquetSink::new(Vec::new(), batches[0].schema(), &opts).unwrap();
        for b in &batches {
            sink.write(b).unwrap();
            // Now and then the writer outruns the encoders, or waits.
            if b.num_rows() % 3 == 0 {
                std::thread::yield_now();
            }
        }
        sink.finish().unwrap()
    };
    let three = write(3);
    for threads in [2, 3, 3, 6, 64] {
        assert!(write(threads) == three, "{threads} threads: not the same file");
    }
    let bytes = bytes::Bytes::from(three);
    let rdr = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    assert!(rdr.metadata().num_row_groups() > 1, "8 KiB row groups of a 5000-row file");
    let back: Vec<RecordBatch> = rdr.build().unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(columns(&back), want);
}

#[test]
fn ipc_file_and_stream_round_trip() {
    let data = generate(3000, 17, false, false);
    let want = slow_read(&data);
    let batches = sequential(&data, 700);
    for stream in [false, true] {
        let mut sink = IpcSink::new(Vec::new(), &batches[0].schema(), stream).unwrap();
        for b in &batches {
            sink.write(b).unwrap();
        }
        let bytes = sink.finish().unwrap();
        let back: Vec<RecordBatch> = if stream {
            arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
                .unwrap()
                .map(|r| r.unwrap())
                .collect()
        } else {
            arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
                .unwrap()
                .map(|r| r.unwrap())
                .collect()
        };
        assert_eq!(columns(&back), want, "stream {stream}");
    }
}

#[test]
fn projection_decodes_only_the_chosen_columns_in_order() {
    let data = generate(500, 19, false, false);
    let f = file_with(&data);
    let want = slow_read(&data);
    let mut b = ArrowReaderBuilder::new();
    b.project_names(vec!["s".into(), "i".into()]);
    let got: Vec<RecordBatch> = b.from_path(f.path()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(got[0].schema().fields().len(), 2);
    assert_eq!(columns(&got), vec![want[5].clone(), want[0].clone()]);
    b.projection(vec![]);
    let got: Vec<RecordBatch> = b.from_path(f.path()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(rows(&got), 500, "no columns still counts rows");
    b.project_names(vec!["nope".into()]);
    assert!(b.from_path(f.path()).unwrap_err().to_string().contains("nope"));
}

/// A batch with a value of 1 MiB or more is a row group of its own whose
/// long column has neither a dictionary nor statistics (each would be a
/// copy of the value); the row groups around it keep both, and every value
/// reads back, on one encoding thread (the one-thread writer hands its
/// file over) and on three, and with row groups shorter than the batch.
#[test]
fn parquet_writes_long_values_plain_in_a_row_group_of_their_own() {
    use arrow_array::{Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let long = "L".repeat(3 << 20);
    let batch = |from: i64, text: Vec<&str>| {
        let ids: Vec<i64> = (from..from + text.len() as i64).collect();
        RecordBatch::try_from_iter([
            ("id", Arc::new(Int64Array::from(ids)) as Arc<dyn Array>),
            ("text", Arc::new(StringArray::from(text)) as _),
        ])
        .unwrap()
    };
    let batches = [
        batch(0, vec!["a", "b", "a"]),
        batch(3, vec!["c", &long, "d", "e"]),
        batch(7, vec!["a", "b"]),
        batch(9, vec!["f"]),
    ];
    for (encode_threads, row_group_rows, groups) in [(1, 1 << 20, 3), (3, 1 << 20, 3), (1, 3, 4)] {
        let opts = ParquetOptions { encode_threads, row_group_rows, ..ParquetOptions::default() };
        let mut sink = ParquetSink::new(Vec::new(), batches[0].schema(), &opts).unwrap();
        for b in &batches {
            sink.write(b).unwrap();
        }
        assert_eq!(sink.rows(), 10);
        let bytes = bytes::Bytes::from(sink.finish().unwrap());
        let rdr = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
        let meta = rdr.metadata().clone();
        let what = format!("{encode_threads} threads, row groups of {row_group_rows}");
        assert_eq!(meta.num_row_groups(), groups, "{what}");
        for g in 0..groups {
            let text = meta.row_group(g).column(1);
            let first = meta.row_groups()[..g].iter().map(|r| r.num_rows()).sum::<i64>();
            // The long batch holds rows 3..7.
            let alone = (3..7).contains(&first);
            assert_eq!(text.dictionary_page_offset().is_none(), alone, "{what}, group {g}");
            assert_eq!(text.statistics().is_none(), alone, "{what}, group {g}");
            assert!(meta.row_group(g).column(0).statistics().is_some(), "{what}, group {g}");
        }
        let rows = |bs: &[RecordBatch]| -> Vec<(i64, String)> {
            let mut out = Vec::new();
            for b in bs {
                let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                let text = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
                out.extend((0..b.num_rows()).map(|i| (ids.value(i), text.value(i).to_string())));
            }
            out
        };
        let back: Vec<RecordBatch> = rdr.build().unwrap().map(|r| r.unwrap()).collect();
        assert_eq!(rows(&back), rows(&batches), "{what}");
    }
}
