//! The classifier kernels and the record automaton's unsafe code (vector
//! loads, masks, unchecked indexing over the buffer) on inputs small
//! enough that CI also runs this file under miri (`.ci/run`): every kernel
//! the CPU has against the scalar twin at every alignment of a short
//! input, then records read through each kernel at small buffer sizes.

use swath_csv::classify::{Classify, Kernel, BLOCK};
use swath_csv::ReaderBuilder;
use swath_testkit::{Chunked, Rng};

#[test]
fn every_kernel_matches_the_scalar_twin_at_every_alignment() {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let data = rng.bytes(2 * BLOCK + 8, b",\"\r\n\\#a \x00\xff");
    let needles = [b',', b'"', b'\r', b'\n', b'\\'];
    for k in Kernel::available() {
        for lead in 0..8 {
            for len in [0, 1, 15, 16, 17, 33, 63, BLOCK] {
                let block = &data[lead..lead + len];
                assert_eq!(
                    k.masks_partial(block, &needles),
                    Kernel::scalar().masks_partial(block, &needles),
                    "{} lead {lead} len {len}",
                    k.name()
                );
            }
            let full: &[u8; BLOCK] = data[lead..lead + BLOCK].try_into().unwrap();
            assert_eq!(k.masks(full, &needles), Kernel::scalar().masks(full, &needles));
        }
    }
}

#[test]
fn records_read_the_same_through_every_kernel() {
    let doc =
        b"\xEF\xBB\xBFid,name\r\n1,\"a, \"\"b\"\"\"\n2,\"x\ny\"\r\n\n3,plain text here,\n4,\"\"\r";
    let want: Vec<Vec<Vec<u8>>> = vec![
        vec![b"1".to_vec(), b"a, \"b\"".to_vec()],
        vec![b"2".to_vec(), b"x\ny".to_vec()],
        vec![b"3".to_vec(), b"plain text here".to_vec(), b"".to_vec()],
        vec![b"4".to_vec(), b"".to_vec()],
    ];
    for k in Kernel::available() {
        for cap in [1, 7, 64] {
            let mut b = ReaderBuilder::new();
            b.flexible(true).capacity(cap).kernel(k);
            let mut rdr = b.from_reader(Chunked::new(doc, 5)).unwrap();
            let mut got = Vec::new();
            while let Some(r) = rdr.next_record().unwrap() {
                got.push(r.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
            }
            assert_eq!(got, want, "{} cap {cap}", k.name());
        }
    }
}
