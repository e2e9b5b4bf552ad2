//! `Writer::serialize` (feature `serde`): a struct, tuple or sequence of
//! scalars becomes one record, written through the same encoder as
//! `write_row`, so it allocates nothing per record either.
//!
//! Scalars map as `ToField` does; `None`, `()` and unit structs are empty
//! fields; a unit enum variant is its name; newtypes are their inner value.
//! A map, or a container inside a field, is an error (no flattening: a
//! record has one level).

use std::fmt;
use std::io;

use serde::ser::{self, Serialize, Serializer};

use super::encode::Encoder;
use super::error::{WriteError, WriteErrorKind};
use super::Writer;

impl<W: io::Write> Writer<W> {
    /// Write `value` as one record. With
    /// [`has_headers`](super::WriterBuilder::has_headers) (the default),
    /// the first call on a struct writes its field names first, as a
    /// header record.
    ///
    /// ```
    /// use swath_csv::Writer;
    ///
    /// #[derive(serde::Serialize)]
    /// struct Row<'a> { id: u64, name: &'a str, score: Option<f64> }
    ///
    /// let mut wtr = Writer::from_writer(Vec::new());
    /// wtr.serialize(Row { id: 1, name: "Ann", score: Some(9.5) }).unwrap();
    /// wtr.serialize(Row { id: 2, name: "B,b", score: None }).unwrap();
    /// assert_eq!(wtr.finish().unwrap(), b"id,name,score\n1,Ann,9.5\n2,\"B,b\",\n");
    /// ```
    ///
    /// # Errors
    ///
    /// A value that is not one flat record, or a field-count mismatch
    /// (nothing of the record is written); an I/O error as in
    /// [`write_row`](Writer::write_row).
    pub fn serialize<T: Serialize>(&mut self, value: T) -> Result<(), WriteError> {
        if self.enc.cfg.has_headers && !self.header_done {
            let mut ser = RowSer { enc: &mut self.enc, header: true, named: false };
            let res = value.serialize(&mut ser);
            let named = ser.named;
            self.finish_serialized(res)?;
            self.header_done = true;
            if named {
                self.end_record()?;
            }
        }
        let mut ser = RowSer { enc: &mut self.enc, header: false, named: false };
        let res = value.serialize(&mut ser);
        self.finish_serialized(res)?;
        self.end_record()
    }

    fn finish_serialized(&mut self, res: Result<(), SerError>) -> Result<(), WriteError> {
        res.map_err(|SerError(msg)| {
            self.enc.discard_row();
            WriteError::new(WriteErrorKind::Serialize(msg), self.records + 1)
        })
    }
}

/// A serialization error; allocates only when there is one.
#[derive(Debug)]
pub(crate) struct SerError(String);

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: fmt::Display>(msg: T) -> SerError {
        SerError(msg.to_string())
    }
}

fn nested(what: &str) -> SerError {
    SerError(format!("a {what} inside a field (a record is one level of scalars)"))
}

/// The top level: a container's items become fields. In `header` mode, a
/// struct's field names are written instead of its values (and `named`
/// says whether there were names at all).
struct RowSer<'e> {
    enc: &'e mut Encoder,
    header: bool,
    named: bool,
}

/// One field: scalars only.
struct FieldSer<'e> {
    enc: &'e mut Encoder,
}

macro_rules! scalars {
    ($($m:ident($t:ty);)*) => {$(
        fn $m(self, v: $t) -> Result<(), SerError> {
            self.put(&v);
            Ok(())
        }
    )*};
}

macro_rules! scalar_methods {
    () => {
        scalars! {
            serialize_bool(bool);
            serialize_i8(i8);
            serialize_i16(i16);
            serialize_i32(i32);
            serialize_i64(i64);
            serialize_i128(i128);
            serialize_u8(u8);
            serialize_u16(u16);
            serialize_u32(u32);
            serialize_u64(u64);
            serialize_u128(u128);
            serialize_f32(f32);
            serialize_f64(f64);
            serialize_char(char);
            serialize_str(&str);
            serialize_bytes(&[u8]);
        }

        fn serialize_none(self) -> Result<(), SerError> {
            self.put(b"".as_slice());
            Ok(())
        }

        fn serialize_unit(self) -> Result<(), SerError> {
            self.put(b"".as_slice());
            Ok(())
        }

        fn serialize_unit_struct(self, _name: &'static str) -> Result<(), SerError> {
            self.put(b"".as_slice());
            Ok(())
        }

        fn serialize_unit_variant(
            self,
            _name: &'static str,
            _index: u32,
            variant: &'static str,
        ) -> Result<(), SerError> {
            self.put(variant);
            Ok(())
        }
    };
}

impl FieldSer<'_> {
    #[inline]
    fn put<T: super::ToField + ?Sized>(self, v: &T) {
        self.enc.field(v);
    }
}

impl RowSer<'_> {
    /// A scalar at the top level is a record of one field (no header).
    #[inline]
    fn put<T: super::ToField + ?Sized>(&mut self, v: &T) {
        if !self.header {
            self.enc.field(v);
        }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        if self.header {
            return Ok(());
        }
        value.serialize(FieldSer { enc: self.enc })
    }
}

impl<'e> Serializer for FieldSer<'e> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = ser::Impossible<(), SerError>;
    type SerializeTuple = ser::Impossible<(), SerError>;
    type SerializeTupleStruct = ser::Impossible<(), SerError>;
    type SerializeTupleVariant = ser::Impossible<(), SerError>;
    type SerializeMap = ser::Impossible<(), SerError>;
    type SerializeStruct = ser::Impossible<(), SerError>;
    type SerializeStructVariant = ser::Impossible<(), SerError>;

    scalar_methods!();

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, SerError> {
        Err(nested("sequence"))
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, SerError> {
        Err(nested("tuple"))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, SerError> {
        Err(nested("tuple struct"))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, SerError> {
        Err(nested("tuple variant"))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, SerError> {
        Err(nested("map"))
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, SerError> {
        Err(nested("struct"))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, SerError> {
        Err(nested("struct variant"))
    }
}

impl<'a, 'e> Serializer for &'a mut RowSer<'e> {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = ser::Impossible<(), SerError>;
    type SerializeMap = ser::Impossible<(), SerError>;
    type SerializeStruct = Self;
    type SerializeStructVariant = ser::Impossible<(), SerError>;

    scalar_methods!();

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self, SerError> {
        Ok(self)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self, SerError> {
        Ok(self)
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self, SerError> {
        Ok(self)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, SerError> {
        Err(SerError("an enum tuple variant as a record".into()))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, SerError> {
        Err(SerError("a map as a record (use a struct)".into()))
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, SerError> {
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, SerError> {
        Err(SerError("an enum struct variant as a record".into()))
    }
}

impl ser::SerializeSeq for &mut RowSer<'_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        self.item(value)
    }

    fn end(self) -> Result<(), SerError> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut RowSer<'_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        self.item(value)
    }

    fn end(self) -> Result<(), SerError> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut RowSer<'_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        self.item(value)
    }

    fn end(self) -> Result<(), SerError> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut RowSer<'_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        if self.header {
            self.named = true;
            self.enc.field(key);
            Ok(())
        } else {
            self.item(value)
        }
    }

    fn end(self) -> Result<(), SerError> {
        Ok(())
    }
}
