//! The order an object's keys came in on the last line, so that the
//! decoder can check the next key as bytes instead of reading and looking
//! it up.
//!
//! Lines of one log share their key order. Every key gets a slot: the
//! schema's fields first (slot `i` is field `i`), then, as they are met,
//! up to [`MAX_SKIPPED`] keys the schema lacks (a query that reads two
//! fields of nine skips seven keys a line, and reading each of them as a
//! string and looking it up was most of the object loop). Each slot
//! remembers which slot followed it last time; the decoder eats that
//! slot's key, quotes included, with two word compares ([`Cursor::eat`]).
//! A miss reads the key and looks it up as before, and learns the new
//! order.
//!
//! [`Cursor::eat`]: crate::scan::Cursor::eat

use crate::scan::{key_hash, Literal, Str};

/// A slot number: an index into the slots, or one of the two below.
pub(crate) type Slot = u32;

/// Before the object's first key.
pub(crate) const START: Slot = u32::MAX - 1;

/// A key with no slot (the table of skipped keys is full): no guess
/// follows it.
pub(crate) const UNKNOWN: Slot = u32::MAX;

/// The most keys the schema lacks that get a slot, per object field.
/// Past them a skipped key is read and looked up on every line.
const MAX_SKIPPED: usize = 64;

#[derive(Debug)]
pub(crate) struct KeyOrder {
    /// Each slot's key as written, quotes included; `None` for a field
    /// whose name has a byte JSON escapes (it has more than one spelling,
    /// so it is always read and looked up).
    quoted: Vec<Option<Literal>>,
    /// The skipped keys' raw bytes, slot `fields + j` at `j`.
    skipped: Vec<Box<[u8]>>,
    /// Their [`key_hash`]es, to refuse a key given twice without reading
    /// it again.
    skipped_hashes: Vec<u32>,
    /// The slot that followed each slot last time.
    after: Vec<Slot>,
    /// The slot of the first key last time.
    first: Slot,
    fields: usize,
}

impl KeyOrder {
    /// Slots for the fields `names`, in order; no order known yet.
    pub(crate) fn new(names: &[Box<[u8]>]) -> KeyOrder {
        KeyOrder {
            quoted: names.iter().map(|n| quote(n)).collect(),
            skipped: Vec::new(),
            skipped_hashes: Vec::new(),
            after: vec![UNKNOWN; names.len()],
            first: UNKNOWN,
            fields: names.len(),
        }
    }

    /// The key that followed `prev` last time, if it has one.
    #[inline]
    pub(crate) fn guess(&self, prev: Slot) -> Option<(Slot, &Literal)> {
        let slot = match prev {
            START => self.first,
            UNKNOWN => return None,
            p => self.after[p as usize],
        };
        let quoted = self.quoted.get(slot as usize)?.as_ref()?;
        Some((slot, quoted))
    }

    /// `slot` came after `prev` on this line.
    #[inline]
    pub(crate) fn learn(&mut self, prev: Slot, slot: Slot) {
        match prev {
            START => self.first = slot,
            UNKNOWN => {}
            p => self.after[p as usize] = slot,
        }
    }

    /// The field a slot is, or `None` for a key the schema lacks.
    #[inline]
    pub(crate) fn field(&self, slot: Slot) -> Option<usize> {
        let i = slot as usize;
        (i < self.fields).then_some(i)
    }

    /// The slot of field `i`.
    #[inline]
    pub(crate) fn of_field(i: usize) -> Slot {
        i as Slot
    }

    /// The [`key_hash`] of a skipped key's slot (one [`KeyOrder::skipped`]
    /// gave).
    #[inline]
    pub(crate) fn skipped_hash(&self, slot: Slot) -> u32 {
        self.skipped_hashes[slot as usize - self.fields]
    }

    /// The slot of a key the schema lacks, by its raw bytes (escapes as
    /// written: bytes equal to a key as written are that key), given one
    /// while there is room.
    #[cold]
    pub(crate) fn skipped(&mut self, raw: &[u8]) -> Slot {
        if let Some(j) = self.skipped.iter().position(|k| **k == *raw) {
            return (self.fields + j) as Slot;
        }
        if self.skipped.len() == MAX_SKIPPED {
            return UNKNOWN;
        }
        self.skipped.push(raw.into());
        let escaped = raw.contains(&b'\\');
        self.skipped_hashes.push(key_hash(Str { raw, escaped }));
        self.quoted.push(Some(Literal::new(&[&b"\""[..], raw, b"\""].concat())));
        self.after.push(UNKNOWN);
        (self.quoted.len() - 1) as Slot
    }
}

/// A field's name as a JSON key is written, quotes included, when that is
/// its only spelling (no byte that JSON escapes).
fn quote(name: &[u8]) -> Option<Literal> {
    let plain = name.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
    plain.then(|| Literal::new(&[&b"\""[..], name, b"\""].concat()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<Box<[u8]>> {
        n.iter().map(|s| s.as_bytes().into()).collect()
    }

    #[test]
    fn it_guesses_the_order_it_last_saw() {
        let mut order = KeyOrder::new(&names(&["a", "b"]));
        assert!(order.guess(START).is_none(), "nothing seen yet");
        let x = order.skipped(b"x");
        assert_eq!(x, 2);
        assert_eq!(order.skipped(b"x"), x, "one slot per key");
        // A line `{"b":…,"x":…,"a":…}`.
        order.learn(START, 1);
        order.learn(1, x);
        order.learn(x, 0);
        let (first, q) = order.guess(START).unwrap();
        assert_eq!(first, 1);
        let mut cursor = crate::scan::Cursor::new(br#""b":1"#);
        assert!(cursor.eat(q));
        assert_eq!(order.guess(1).unwrap().0, x);
        assert_eq!(order.guess(x).unwrap().0, 0);
        assert!(order.guess(0).is_none(), "nothing followed a");
        assert_eq!((order.field(0), order.field(1), order.field(x)), (Some(0), Some(1), None));
    }

    #[test]
    fn a_name_with_an_escaped_byte_is_never_guessed() {
        let mut order = KeyOrder::new(&names(&["a\"b"]));
        order.learn(START, 0);
        assert!(order.guess(START).is_none());
    }

    #[test]
    fn past_the_most_skipped_keys_there_is_no_slot() {
        let mut order = KeyOrder::new(&names(&["a"]));
        for j in 0..MAX_SKIPPED {
            assert_eq!(order.skipped(format!("k{j}").as_bytes()), (1 + j) as Slot);
        }
        assert_eq!(order.skipped(b"one more"), UNKNOWN);
        assert_eq!(order.skipped(b"k0"), 1, "the ones it has keep their slots");
        order.learn(UNKNOWN, 0);
        assert!(order.guess(UNKNOWN).is_none());
    }
}
