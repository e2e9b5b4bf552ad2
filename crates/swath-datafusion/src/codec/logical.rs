//! [`SwathLogicalCodec`]: a swath table in a logical plan.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, ScalarUDF, WindowUDF};
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use prost::Message;

use super::wire::{OptionsMsg, TableNode};
use super::{tag, INNER, SWATH};
use crate::csv::plan_cache::PlanCache;
use crate::SwathCsvTable;

/// Encodes a [`SwathCsvTable`] (its path or URL and how it is read; the
/// schema travels with the plan); every other table, node and format
/// goes to the codec it wraps (Ballista's, for a Ballista cluster).
#[derive(Debug)]
pub struct SwathLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl Default for SwathLogicalCodec {
    /// Wrapping DataFusion's default codec.
    fn default() -> SwathLogicalCodec {
        SwathLogicalCodec::new(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

impl SwathLogicalCodec {
    /// swath's tables, and `inner` for everything else.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> SwathLogicalCodec {
        SwathLogicalCodec { inner }
    }
}

impl LogicalExtensionCodec for SwathLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match tag(buf)? {
            (SWATH, rest) => {
                let node = TableNode::decode(rest).map_err(|e| {
                    DataFusionError::Internal(format!("swath codec: a broken table node: {e}"))
                })?;
                let opts = node.options.as_ref().ok_or_else(|| {
                    DataFusionError::Internal(format!("swath table {table_ref} without options"))
                })?;
                let opts = opts.to_options(Some(&schema))?;
                let cache = shared_plans(rest);
                Ok(Arc::new(SwathCsvTable::try_new_with(&node.path, opts, schema, cache)?))
            }
            (_, rest) => self.inner.try_decode_table_provider(rest, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        if let Some(table) = node.downcast_ref::<SwathCsvTable>() {
            let msg = TableNode {
                path: table.path().to_string(),
                options: Some(OptionsMsg::from_options(table.options())?),
            };
            buf.push(SWATH);
            return msg.encode(buf).map_err(|e| DataFusionError::Internal(e.to_string()));
        }
        buf.push(INNER);
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// The plan cache of a decoded table, by its encoded path and options: a
/// scheduler decodes every query's tables afresh, and without this would
/// make each file's plan (a pass over the whole file) once per query. The
/// cache re-checks each file's length and time, so a changed file is
/// planned again. At most [`SHARED_TABLES`] tables are kept.
fn shared_plans(encoded: &[u8]) -> Arc<PlanCache> {
    static PLANS: LazyLock<Mutex<HashMap<Vec<u8>, Arc<PlanCache>>>> = LazyLock::new(Mutex::default);
    let mut plans = PLANS.lock().unwrap_or_else(|p| p.into_inner());
    if plans.len() >= SHARED_TABLES && !plans.contains_key(encoded) {
        plans.clear();
    }
    plans.entry(encoded.to_vec()).or_default().clone()
}

/// Tables whose plans a process keeps between queries.
const SHARED_TABLES: usize = 256;
