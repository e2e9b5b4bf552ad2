//! A deterministic generator for test inputs: xorshift64 (shifts 13, 7,
//! 17, Marsaglia 2003). Not for anything but tests: it is fast, tiny and
//! reproducible, and its low bits are good enough to pick bytes from an
//! alphabet.

/// A xorshift64 generator.
///
/// ```
/// let mut rng = swath_testkit::Rng::new(7);
/// let doc = rng.bytes(100, b"ab,\"\n");
/// assert_eq!(doc, swath_testkit::Rng::new(7).bytes(100, b"ab,\"\n"));
/// assert!(rng.below(10) < 10);
/// ```
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`. xorshift has one fixed point, zero, which
    /// would give zeros forever: a zero seed is replaced by a fixed odd
    /// constant. Any other seed is used as it is, so a test that wrote its
    /// own xorshift keeps its sequence.
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (by remainder: slightly biased, which no test
    /// minds). `n` must not be zero.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An index in `0..n`, as `usize`.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True about once in `n` calls.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// One byte of `alphabet`, uniformly.
    pub fn pick(&mut self, alphabet: &[u8]) -> u8 {
        alphabet[self.index(alphabet.len())]
    }

    /// `len` bytes, each picked from `alphabet`.
    pub fn bytes(&mut self, len: usize, alphabet: &[u8]) -> Vec<u8> {
        (0..len).map(|_| self.pick(alphabet)).collect()
    }

    /// Fill `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for b in out {
            *b = self.next_u64() as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_sequence_is_xorshift64() {
        // The first outputs from seed 1, worked by hand from the shifts.
        let mut r = Rng::new(1);
        let a = r.next_u64();
        let mut x = 1u64;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_eq!(a, x);
        assert_eq!(a, 0x4082_2041);
    }

    #[test]
    fn a_zero_seed_does_not_stick_at_zero() {
        let mut r = Rng::new(0);
        assert!((0..10).any(|_| r.next_u64() != 0));
    }

    #[test]
    fn picks_cover_the_alphabet() {
        let mut r = Rng::new(3);
        let got = r.bytes(1000, b"abc");
        for c in b"abc" {
            assert!(got.contains(c), "{c} never picked");
        }
        assert!(got.iter().all(|b| b"abc".contains(b)));
    }
}
