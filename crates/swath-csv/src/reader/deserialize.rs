//! `record.deserialize::<T>()` with serde (feature `serde`): structs by
//! header name (or by position without headers), tuples and sequences by
//! position; `&str` and `&[u8]` fields borrow from the reader's buffer.

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::typed::{ascii_str, FromField};
use crate::Record;

impl<'r> Record<'r> {
    /// Deserialize the record into `T`: a struct's fields are matched by
    /// header name when the reader has headers, else taken in order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Deserialize`] naming the field, its header and the
    /// reason, at the field's position.
    pub fn deserialize<T: de::Deserialize<'r>>(&self) -> Result<T> {
        let mut d = RecordDe { rec: *self, next: 0, current: None };
        T::deserialize(&mut d).map_err(|e| {
            let at = d.current.unwrap_or(0);
            let mut msg = String::new();
            if let Some(i) = d.current {
                msg.push_str(&format!("field {i}"));
                if let Some(h) = self.header(i) {
                    msg.push_str(&format!(" ({:?})", String::from_utf8_lossy(h)));
                }
                msg.push_str(": ");
            }
            msg.push_str(&e.0);
            Error::new(ErrorKind::Deserialize(msg))
                .at(self.field_position(at))
                .in_record(self.position())
        })
    }
}

/// A deserialization failure (becomes [`ErrorKind::Deserialize`]).
#[derive(Debug)]
pub struct DeError(String);

impl std::fmt::Display for DeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: std::fmt::Display>(msg: T) -> DeError {
        DeError(msg.to_string())
    }
}

struct RecordDe<'r> {
    rec: Record<'r>,
    next: usize,
    current: Option<usize>,
}

impl<'r> RecordDe<'r> {
    #[inline]
    fn field(&mut self, i: usize) -> std::result::Result<FieldDe<'r>, DeError> {
        self.current = Some(i);
        self.rec
            .get(i)
            .map(FieldDe)
            .ok_or_else(|| DeError(format!("the record has only {} fields", self.rec.len())))
    }
}

impl<'de> Deserializer<'de> for &mut RecordDe<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        self.deserialize_seq(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        if self.rec.headers().is_some() {
            v.visit_map(MapDe { de: self, col: 0 })
        } else {
            v.visit_seq(SeqDe { de: self, left: Some(fields.len()) })
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        v.visit_map(MapDe { de: self, col: 0 })
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        v.visit_seq(SeqDe { de: self, left: None })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        v.visit_seq(SeqDe { de: self, left: Some(len) })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        v.visit_seq(SeqDe { de: self, left: Some(len) })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        v.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct enum identifier ignored_any
    }
}

struct SeqDe<'a, 'r> {
    de: &'a mut RecordDe<'r>,
    left: Option<usize>,
}

impl<'de> de::SeqAccess<'de> for SeqDe<'_, 'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, DeError> {
        match &mut self.left {
            Some(0) => return Ok(None),
            Some(n) => *n -= 1,
            None if self.de.next >= self.de.rec.len() => return Ok(None),
            None => {}
        }
        let i = self.de.next;
        self.de.next += 1;
        seed.deserialize(self.de.field(i)?).map(Some)
    }
}

struct MapDe<'a, 'r> {
    de: &'a mut RecordDe<'r>,
    col: usize,
}

impl<'de> de::MapAccess<'de> for MapDe<'_, 'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> std::result::Result<Option<K::Value>, DeError> {
        let Some(h) = self.de.rec.headers() else { return Ok(None) };
        if self.col >= h.len().min(self.de.rec.len()) {
            return Ok(None);
        }
        self.de.current = Some(self.col);
        let name = h.get(self.col).unwrap_or_default();
        let name = ascii_str(name).map_err(|_| DeError("header is not UTF-8".into()))?;
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> std::result::Result<V::Value, DeError> {
        let i = self.col;
        self.col += 1;
        seed.deserialize(self.de.field(i)?)
    }
}

/// One field.
struct FieldDe<'r>(&'r [u8]);

impl<'r> FieldDe<'r> {
    #[inline]
    fn parse<T: FromField<'r>>(&self) -> std::result::Result<T, DeError> {
        T::from_field(self.0).map_err(|e| {
            DeError(format!(
                "cannot parse {:?} as {}: {e}",
                String::from_utf8_lossy(self.0),
                std::any::type_name::<T>()
            ))
        })
    }
}

macro_rules! parsed {
    ($($m:ident $t:ty => $visit:ident),* $(,)?) => {$(
        fn $m<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
            v.$visit(self.parse::<$t>()?)
        }
    )*};
}

impl<'de> Deserializer<'de> for FieldDe<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        match std::str::from_utf8(self.0) {
            Ok(s) => v.visit_borrowed_str(s),
            Err(_) => v.visit_borrowed_bytes(self.0),
        }
    }

    parsed! {
        deserialize_bool bool => visit_bool,
        deserialize_i8 i8 => visit_i8, deserialize_i16 i16 => visit_i16,
        deserialize_i32 i32 => visit_i32, deserialize_i64 i64 => visit_i64,
        deserialize_i128 i128 => visit_i128,
        deserialize_u8 u8 => visit_u8, deserialize_u16 u16 => visit_u16,
        deserialize_u32 u32 => visit_u32, deserialize_u64 u64 => visit_u64,
        deserialize_u128 u128 => visit_u128,
        deserialize_f32 f32 => visit_f32, deserialize_f64 f64 => visit_f64,
        deserialize_str &'de str => visit_borrowed_str,
        deserialize_string &'de str => visit_borrowed_str,
        deserialize_identifier &'de str => visit_borrowed_str,
    }

    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        let s: &str = self.parse()?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => v.visit_char(c),
            _ => Err(DeError(format!("expected one character, got {s:?}"))),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        v.visit_borrowed_bytes(self.0)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        v.visit_borrowed_bytes(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        if self.0.is_empty() {
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> std::result::Result<V::Value, DeError> {
        if self.0.is_empty() {
            v.visit_unit()
        } else {
            Err(DeError("expected an empty field".into()))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        self.deserialize_unit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        // Unit variants by name.
        let s: &str = self.parse()?;
        v.visit_enum(s.into_deserializer())
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(
        self,
        v: V,
    ) -> std::result::Result<V::Value, DeError> {
        v.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        seq tuple tuple_struct map struct
    }
}
