//! Our reader against the `csv` crate on generated documents.
//!
//! Lenient mode must equal the `csv` crate exactly; strict mode must equal
//! it whenever it reports no quoting error, and its records (read on past
//! each error) must equal lenient mode's always. Every document runs
//! through buffer capacities 1..=64 and a large one, with every classifier
//! kernel.
//!
//! The `csv` crate's known defects (BAD-INPUTS.md A3) are kept out of the
//! comparison, not papered over: with comments on, documents use no `\r`
//! (A3.2: the crate ends a comment only at `\n`) and end with `\n` (A3.1: a
//! comment at end of input without `\n` gives it a spurious `[""]`
//! record). A3.3 (BOM depends on chunking) cannot arise: the oracle gets
//! the whole input in one read and the alphabet has no BOM. Those defects
//! have their own cases in `bad_inputs.rs`.

mod common;

use common::{collect, collect_with, Chunked, Outcome};
use swath_csv::classify::Kernel;
use swath_csv::ReaderBuilder;
use swath_testkit::Rng;

#[derive(Clone, Copy, Debug)]
struct Opts {
    quoting: bool,
    double_quote: bool,
    escape: Option<u8>,
    comment: Option<u8>,
    flexible: bool,
}

const CONFIGS: &[Opts] = &[
    Opts { quoting: true, double_quote: true, escape: None, comment: None, flexible: true },
    Opts { quoting: true, double_quote: true, escape: None, comment: None, flexible: false },
    Opts { quoting: true, double_quote: false, escape: Some(b'\\'), comment: None, flexible: true },
    Opts {
        quoting: true,
        double_quote: true,
        escape: Some(b'\\'),
        comment: Some(b'#'),
        flexible: false,
    },
    Opts { quoting: false, double_quote: true, escape: None, comment: None, flexible: true },
    Opts { quoting: true, double_quote: true, escape: None, comment: Some(b'#'), flexible: true },
];

/// A document over a small alphabet heavy in structure.
fn gen_doc(rng: &mut Rng, max_len: usize, with_cr: bool) -> Vec<u8> {
    const ALPHA: &[u8] = b"aab,,\"\"\n\r#\\ ";
    let len = (rng.next_u64() % (max_len as u64 + 1)) as usize;
    (0..len)
        .map(|_| loop {
            let b = ALPHA[(rng.next_u64() % ALPHA.len() as u64) as usize];
            if with_cr || b != b'\r' {
                break b;
            }
        })
        .collect()
}

fn oracle(doc: &[u8], o: &Opts) -> Vec<Outcome> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(o.flexible)
        .quoting(o.quoting)
        .double_quote(o.double_quote)
        .escape(o.escape)
        .comment(o.comment)
        .from_reader(doc);
    let mut rec = csv::ByteRecord::new();
    let mut out = Vec::new();
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => return out,
            Ok(true) => out.push((rec.iter().map(<[u8]>::to_vec).collect(), None)),
            Err(e) => match e.kind() {
                csv::ErrorKind::UnequalLengths { expected_len, len, .. } => out.push((
                    rec.iter().map(<[u8]>::to_vec).collect(),
                    Some((*expected_len as usize, *len as usize)),
                )),
                k => panic!("oracle error {k:?}"),
            },
        }
    }
}

fn ours(
    doc: &[u8],
    o: &Opts,
    lenient: bool,
    cap: usize,
    k: Kernel,
) -> Result<Vec<Outcome>, (String, u64)> {
    let mut b = ReaderBuilder::new();
    b.has_headers(false)
        .flexible(o.flexible)
        .quoting(o.quoting)
        .double_quote(o.double_quote)
        .escape(o.escape)
        .comment(o.comment)
        .lenient(lenient)
        .capacity(cap)
        .kernel(k);
    let mut rdr = b.from_reader(Chunked { data: doc, chunk: cap }).unwrap();
    let got = collect(&mut rdr);
    // Blocks (as the Arrow decoder reads) give the same records.
    for block in [1, 3, 1000] {
        let mut rdr = b.from_reader(Chunked { data: doc, chunk: cap }).unwrap();
        assert_eq!(collect_with(&mut rdr, block), got, "next_block({block}), cap {cap}");
    }
    got
}

/// Strict mode read past its quoting errors: the records it hands out.
fn strict_records(doc: &[u8], o: &Opts, cap: usize, k: Kernel) -> (Vec<Vec<Vec<u8>>>, usize) {
    let mut b = ReaderBuilder::new();
    b.has_headers(false)
        .flexible(true)
        .quoting(o.quoting)
        .double_quote(o.double_quote)
        .escape(o.escape)
        .comment(o.comment)
        .capacity(cap)
        .kernel(k);
    let mut rdr = b.from_reader(Chunked { data: doc, chunk: cap }).unwrap();
    let (mut recs, mut errors) = (Vec::new(), 0);
    loop {
        match rdr.next_record() {
            Ok(Some(r)) => recs.push(r.iter().map(<[u8]>::to_vec).collect()),
            Ok(None) => return (recs, errors),
            Err(e) => {
                assert!(e.is_recoverable(), "{e}");
                errors += 1;
                recs.push(rdr.record().iter().map(<[u8]>::to_vec).collect());
            }
        }
    }
}

fn check_doc(doc: &[u8], o: &Opts, caps: &[usize], kernels: &[Kernel]) {
    let want = oracle(doc, o);
    let plain: Vec<_> = want.iter().map(|(f, _)| f.clone()).collect();
    for &k in kernels {
        for &cap in caps {
            let ctx = || {
                format!(
                    "doc {:?} opts {o:?} cap {cap} kernel {}",
                    String::from_utf8_lossy(doc),
                    k.name()
                )
            };
            let got = ours(doc, o, true, cap, k)
                .unwrap_or_else(|e| panic!("lenient error {e:?}: {}", ctx()));
            assert_eq!(got, want, "lenient: {}", ctx());
            match ours(doc, o, false, cap, k) {
                Ok(got) => assert_eq!(got, want, "strict: {}", ctx()),
                Err((kind, _)) => assert!(
                    ["BareQuote", "TextAfterQuote", "UnterminatedQuote"].contains(&kind.as_str()),
                    "strict failed with {kind}: {}",
                    ctx()
                ),
            }
            let (recs, _) = strict_records(doc, o, cap, k);
            assert_eq!(recs, plain, "strict records: {}", ctx());
        }
    }
}

#[test]
fn generated_documents_match_the_csv_crate() {
    let mut rng = Rng::new(0x853c49e6748fea9b);
    let all_caps: Vec<usize> = (1..=64).chain([1 << 16]).collect();
    let kernels = Kernel::available();
    let mut n = 0;
    for round in 0..120 {
        for o in CONFIGS {
            let mut doc =
                gen_doc(&mut rng, if round % 10 == 0 { 150 } else { 24 }, o.comment.is_none());
            if o.comment.is_some() {
                doc.push(b'\n');
            }
            // Every capacity with every kernel for some documents; the
            // others rotate kernels over capacities.
            if round % 20 == 0 {
                check_doc(&doc, o, &all_caps, &kernels);
            } else {
                for (i, &cap) in all_caps.iter().enumerate() {
                    let k = kernels[(i + round) % kernels.len()];
                    check_doc(&doc, o, &[cap], &[k]);
                }
            }
            n += 1;
        }
    }
    assert_eq!(n, 120 * CONFIGS.len());
}

#[test]
fn long_fields_cross_many_blocks_and_seams() {
    // Fields longer than a 64-byte block, quoted and not, with escapes.
    let mut rng = Rng::new(0x1234567);
    for _ in 0..15 {
        let mut doc = Vec::new();
        for _ in 0..(rng.next_u64() % 6) {
            let field_len = (rng.next_u64() % 200) as usize;
            let quoted = rng.next_u64() % 2 == 0;
            if quoted {
                doc.push(b'"');
            }
            for _ in 0..field_len {
                let r = rng.next_u64() % 20;
                doc.push(match r {
                    0 if quoted => b'\n',
                    1 if quoted => b',',
                    2 if quoted => b'"',
                    _ => b'x',
                });
                if r == 2 && quoted {
                    doc.push(b'"');
                }
            }
            if quoted {
                doc.push(b'"');
            }
            doc.push(if rng.next_u64() % 3 == 0 { b'\n' } else { b',' });
        }
        let caps: Vec<usize> = (1..=70).step_by(3).chain([4096]).collect();
        check_doc(&doc, &CONFIGS[0], &caps, &Kernel::available());
        check_doc(&doc, &CONFIGS[1], &caps, &Kernel::available());
    }
}
