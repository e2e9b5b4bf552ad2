//! Tuples of 1 to 12 [`FromField`] types are [`FromRecord`].

use super::{FromField, FromRecord};
use crate::error::Result;
use crate::Record;

macro_rules! tuple {
    ($($t:ident $i:tt)+) => {
        impl<'r, $($t: FromField<'r>),+> FromRecord<'r> for ($($t,)+) {
            #[inline(always)]
            fn from_record(rec: &Record<'r>) -> Result<Self> {
                // One length check for the tuple, so that the compiler drops
                // the one per field; a short record reports its first
                // error, a parse or a missing field, in field order.
                if rec.len() < [$($i),+].len() {
                    return cold(|| Ok(($(rec.parse::<$t>($i)?,)+)));
                }
                Ok(($(rec.parse::<$t>($i)?,)+))
            }
        }
    };
}

/// Run `f` out of line: the rare path of a tuple scan.
#[cold]
#[inline(never)]
fn cold<T>(f: impl FnOnce() -> T) -> T {
    f()
}

tuple!(A 0);
tuple!(A 0 B 1);
tuple!(A 0 B 1 C 2);
tuple!(A 0 B 1 C 2 D 3);
tuple!(A 0 B 1 C 2 D 3 E 4);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10 L 11);
