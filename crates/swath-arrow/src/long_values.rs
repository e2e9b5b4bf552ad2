//! Columns of a batch that hold a value too long for Parquet's dictionary
//! and statistics to be worth their copies.
//!
//! Parquet's writer copies each value it meets three times over before the
//! data page: into the dictionary (then the encoded dictionary page) and,
//! as the page's minimum or maximum, into its statistics. For a value of
//! many MiB that is most of `csv to-parquet`'s peak (6.1 copies of a
//! 12 MiB field, issue 39), and no use: a value over the dictionary page's
//! limit makes the writer fall back to plain encoding anyway, and
//! statistics are truncated to 64 bytes in the file. So a batch with such
//! a value is written as a row group of its own, those columns plain and
//! without statistics (`ParallelEncoder::write_alone`).

use arrow_array::cast::AsArray;
use arrow_array::types::{BinaryType, ByteArrayType, LargeBinaryType, LargeUtf8Type, Utf8Type};
use arrow_array::{Array, GenericByteArray, RecordBatch};
use arrow_buffer::ArrowNativeType;
use arrow_schema::DataType;

/// A value of this many bytes or more is long: Parquet's default
/// dictionary page limit, past which the dictionary gives up anyway.
pub(crate) const LONG_VALUE: usize = parquet::file::properties::DEFAULT_DICTIONARY_PAGE_SIZE_LIMIT;

/// The indexes of `batch`'s columns that hold a long value; none when the
/// schema has a nested column (its leaves are not one a column).
pub(crate) fn long_columns(batch: &RecordBatch) -> Vec<usize> {
    let nested = batch.schema().fields().iter().any(|f| f.data_type().is_nested());
    if nested {
        return Vec::new();
    }
    (0..batch.num_columns()).filter(|&i| has_long_value(batch.column(i).as_ref())).collect()
}

/// Whether any value of `a` is [`LONG_VALUE`] bytes or more.
fn has_long_value(a: &dyn Array) -> bool {
    // A view's low 32 bits are its value's length.
    let view_long = |views: &[u128]| views.iter().any(|&v| (v as u32) as usize >= LONG_VALUE);
    match a.data_type() {
        DataType::Utf8 => offsets_long::<Utf8Type>(a),
        DataType::LargeUtf8 => offsets_long::<LargeUtf8Type>(a),
        DataType::Binary => offsets_long::<BinaryType>(a),
        DataType::LargeBinary => offsets_long::<LargeBinaryType>(a),
        DataType::Utf8View => a.as_string_view_opt().is_some_and(|s| view_long(s.views())),
        DataType::BinaryView => a.as_binary_view_opt().is_some_and(|s| view_long(s.views())),
        _ => false,
    }
}

/// [`has_long_value`] for an array of offsets and values: the values'
/// bytes in all are a cheap test that most batches pass.
fn offsets_long<T: ByteArrayType>(a: &dyn Array) -> bool {
    let Some(s) = a.as_any().downcast_ref::<GenericByteArray<T>>() else { return false };
    s.value_data().len() >= LONG_VALUE
        && s.value_offsets().windows(2).any(|w| (w[1] - w[0]).as_usize() >= LONG_VALUE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, LargeStringArray, ListArray, StringArray, StringViewArray};
    use std::sync::Arc;

    #[test]
    fn only_columns_with_a_value_of_the_limit_or_more() {
        let long = "x".repeat(LONG_VALUE);
        let short = "y".repeat(LONG_VALUE - 1);
        let batch = RecordBatch::try_from_iter([
            ("n", Arc::new(Int64Array::from(vec![1, 2])) as _),
            ("a", Arc::new(StringArray::from(vec![short.as_str(), "b"])) as _),
            ("b", Arc::new(StringArray::from(vec!["c", long.as_str()])) as _),
            ("c", Arc::new(StringViewArray::from(vec![long.as_str(), "d"])) as _),
            ("d", Arc::new(LargeStringArray::from(vec![short.as_str(), short.as_str()])) as _),
        ])
        .unwrap();
        assert_eq!(long_columns(&batch), [2, 3]);
        // A nested column: none (the leaves are not the columns).
        let list = ListArray::from_iter_primitive::<arrow_array::types::Int32Type, _, _>(vec![
            Some(vec![Some(1)]),
            None,
        ]);
        let nested = RecordBatch::try_from_iter([
            ("b", Arc::new(StringArray::from(vec!["c", long.as_str()])) as _),
            ("l", Arc::new(list) as _),
        ])
        .unwrap();
        assert!(long_columns(&nested).is_empty());
    }
}
