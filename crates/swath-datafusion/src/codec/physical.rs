//! [`SwathPhysicalCodec`]: swath's scan in a physical plan.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::Schema;
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF, WindowUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalPlanDecodeContext,
    PhysicalProtoConverterExtension,
};
use prost::Message;

use super::wire::{FilePlanMsg, OptionsMsg, ScanNode, SplitMsg};
use super::{tag, INNER, SWATH};
use crate::csv::plan_cache::PlanCache;
use crate::{CsvScan, SwathCsvSource};

/// Encodes swath's scan (a `DataSourceExec` over a [`SwathCsvSource`])
/// with its files' split plans; every other node goes to the codec it
/// wraps (Ballista's, for a Ballista cluster).
#[derive(Debug)]
pub struct SwathPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl Default for SwathPhysicalCodec {
    /// Wrapping DataFusion's default codec.
    fn default() -> SwathPhysicalCodec {
        SwathPhysicalCodec::new(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl SwathPhysicalCodec {
    /// swath's scan, and `inner` for every other node.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> SwathPhysicalCodec {
        SwathPhysicalCodec { inner }
    }

    /// The scan, if `node` is swath's.
    fn swath_scan(node: &dyn ExecutionPlan) -> Option<(&FileScanConfig, &SwathCsvSource)> {
        let exec = node.downcast_ref::<DataSourceExec>()?;
        let conf = exec.data_source().downcast_ref::<FileScanConfig>()?;
        let source = conf.file_source().downcast_ref::<SwathCsvSource>()?;
        Some((conf, source))
    }

    fn encode_scan(
        &self,
        conf: &FileScanConfig,
        source: &SwathCsvSource,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<ScanNode> {
        let base_conf = serialize_file_scan_config(conf, self, proto_converter)?;
        // Each file's splits that this plan's ranges read, as the planning
        // process made them (a file read whole, in one piece, needs none;
        // Ballista gives each task a plan of its own partitions only).
        let mut plans: BTreeMap<PathBuf, (u64, BTreeMap<usize, SplitMsg>)> = BTreeMap::new();
        let mut ranges = Vec::new();
        for file in conf.file_groups.iter().flat_map(|g| g.iter()) {
            let Some(r) = &file.range else { continue };
            let path = source.options().path_of(&file.object_meta.location)?;
            let (a, b) = (r.start.max(0) as u64, r.end.max(0) as u64);
            ranges.push(format!("{}:{a}..{b}", path.display()));
            let Some(plan) = source.format().plan_cache().cached(&path) else { continue };
            let (_, splits) =
                plans.entry(path).or_insert_with(|| (plan.file_len(), BTreeMap::new()));
            for s in plan.splits() {
                let holds_a = s.range.start <= a && a < s.range.end;
                if holds_a || (s.range.start < b && s.range.end > a) {
                    splits.entry(s.index).or_insert_with(|| SplitMsg::from_split(s));
                }
            }
        }
        let plans: Vec<FilePlanMsg> = plans
            .into_iter()
            .map(|(path, (len, splits))| FilePlanMsg {
                path: path.to_string_lossy().into_owned(),
                len,
                splits: splits.into_values().collect(),
            })
            .collect();
        log::info!(
            target: "swath",
            "swath scan encoded: {} partitions, ranges {}, {} splits of {} files go with it",
            conf.file_groups.len(),
            ranges.join(" "),
            plans.iter().map(|p| p.splits.len()).sum::<usize>(),
            plans.len()
        );
        Ok(ScanNode {
            base_conf: Some(base_conf),
            options: Some(OptionsMsg::from_options(source.options())?),
            plans,
        })
    }

    fn decode_scan(
        &self,
        node: &ScanNode,
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let missing = |what: &str| DataFusionError::Internal(format!("swath scan without {what}"));
        let base = node.base_conf.as_ref().ok_or_else(|| missing("a file scan"))?;
        let table_schema = parse_table_schema_from_proto(base)?;
        let file_schema: &Schema = table_schema.file_schema();
        let opts = node.options.as_ref().ok_or_else(|| missing("options"))?;
        let opts = Arc::new(opts.to_options(Some(file_schema))?);
        // The plans that came with the query: the executor reads its
        // ranges from them and runs no plan pass of its own.
        let cache = Arc::new(PlanCache::default());
        for plan in &node.plans {
            let path = PathBuf::from(&plan.path);
            let splits = plan.splits.iter().map(SplitMsg::to_split).collect();
            let split_plan = swath_csv::SplitPlan::from_splits(opts.csv_builder(), &path, splits)
                .map_err(|e| crate::csv::error::from_csv(e, &path))?;
            cache.insert_known(&path, split_plan, plan.len)?;
        }
        let source = Arc::new(SwathCsvSource::new(Arc::new(CsvScan { opts, cache }), table_schema));
        log::info!(
            target: "swath",
            "swath scan decoded: {} partitions, split plans of {} files came with it",
            base.file_groups.len(),
            node.plans.len()
        );
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let conf = parse_protobuf_file_scan_config(base, &decode_ctx, proto_converter, source)?;
        Ok(DataSourceExec::from_data_source(conf))
    }
}

impl PhysicalExtensionCodec for SwathPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        match tag(buf)? {
            (SWATH, rest) => {
                let node = ScanNode::decode(rest).map_err(|e| {
                    DataFusionError::Internal(format!("swath codec: a broken scan node: {e}"))
                })?;
                self.decode_scan(&node, ctx, proto_converter)
            }
            (_, rest) => self.inner.try_decode(rest, inputs, ctx, proto_converter),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if let Some((conf, source)) = Self::swath_scan(node.as_ref()) {
            let msg = self.encode_scan(conf, source, proto_converter)?;
            buf.push(SWATH);
            msg.encode(buf).map_err(|e| DataFusionError::Internal(e.to_string()))?;
            return Ok(());
        }
        buf.push(INNER);
        self.inner.try_encode(node, buf, proto_converter)
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
