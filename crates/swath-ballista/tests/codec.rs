//! The codecs the cluster runs with, in one process: a plan over a swath
//! table encoded and decoded (into a fresh session that has no table
//! registered, as on a scheduler or an executor) must give the same plan
//! text and the same rows; a file that changed since planning, and a bad
//! record, give errors that say so and where.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::physical_plan::{collect, displayable, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use swath_datafusion::{SwathCsvExt, SwathCsvOptions};
use swath_testkit::Rng;

const QUERIES: [&str; 5] = [
    "SELECT count(*) AS n FROM t",
    "SELECT city, count(*) AS n, sum(qty) AS q FROM t GROUP BY city ORDER BY city",
    "SELECT count(*) AS n FROM t WHERE note LIKE '%lines%' AND qty < 30",
    "SELECT id, note FROM t WHERE id % 97 = 0 ORDER BY id",
    "SELECT count(*) AS n FROM (SELECT note FROM t LIMIT 3)",
];

/// id, city, qty, note; a fifth of the notes span two lines.
fn csv(rows: usize, seed: u64, delim: char) -> String {
    let cities = ["Oslo", "Rome", "Lima", "Kyiv"];
    let mut rng = Rng::new(seed);
    let mut s = format!("id{delim}city{delim}qty{delim}note\n");
    for id in 0..rows {
        let city = cities[rng.index(cities.len())];
        let qty = rng.below(100);
        let note = if rng.one_in(5) { "\"two\nlines\"" } else { "one" };
        s.push_str(&format!("{id}{delim}{city}{delim}{qty}{delim}{note}\n"));
    }
    s
}

fn config() -> SessionConfig {
    SessionConfig::new().with_target_partitions(8).with_repartition_file_min_size(0)
}

async fn table(path: &Path, opts: SwathCsvOptions) -> SessionContext {
    let ctx = SessionContext::new_with_config(config());
    ctx.register_swath_csv("t", path.to_str().unwrap(), opts).await.unwrap();
    ctx
}

fn text(plan: &Arc<dyn ExecutionPlan>) -> String {
    displayable(plan.as_ref()).indent(true).to_string()
}

/// `plan` encoded and decoded into a fresh session.
fn ship(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>, DataFusionError> {
    let codec = swath_ballista::physical_codec();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, codec.as_ref())?;
    let fresh = SessionContext::new_with_config(config());
    physical_plan_from_bytes_with_extension_codec(&bytes, &fresh.task_ctx(), codec.as_ref())
}

fn rows(batches: &[RecordBatch]) -> String {
    datafusion::arrow::util::pretty::pretty_format_batches(batches).unwrap().to_string()
}

#[tokio::test]
async fn a_shipped_physical_plan_is_the_same_plan_and_gives_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv(20_000, 3, ',')).unwrap();
    let ctx = table(&path, SwathCsvOptions::new().split_bytes(4096)).await;
    for q in QUERIES {
        let plan = ctx.sql(q).await.unwrap().create_physical_plan().await.unwrap();
        assert!(
            text(&plan).contains("file_type=swath_csv"),
            "{q}: not a swath scan:\n{}",
            text(&plan)
        );
        let shipped = ship(plan.clone()).unwrap();
        assert_eq!(text(&shipped), text(&plan), "{q}: the plan changed on the way");
        let here = collect(plan, ctx.task_ctx()).await.unwrap();
        let there = collect(shipped, SessionContext::new().task_ctx()).await.unwrap();
        assert_eq!(rows(&there), rows(&here), "{q}");
    }
}

#[tokio::test]
async fn a_shipped_logical_plan_rebuilds_the_table_with_its_dialect_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    // Semicolons, and `NA` as the null text in qty.
    let text = csv(5_000, 5, ';').replace(";7;", ";NA;");
    std::fs::write(&path, text).unwrap();
    let mut csv = swath_csv::ReaderBuilder::new();
    csv.delimiter(b';');
    let mut arrow = swath_arrow::ArrowReaderBuilder::new();
    arrow.csv(csv).null_text("NA");
    let ctx = table(&path, SwathCsvOptions::new().arrow(arrow).split_bytes(2048)).await;
    let codec = swath_ballista::logical_codec();
    for q in QUERIES.iter().chain(&["SELECT count(qty) AS n, count(*) AS m FROM t"]) {
        let df = ctx.sql(q).await.unwrap();
        let plan = df.logical_plan().clone();
        let here = df.collect().await.unwrap();
        let bytes = logical_plan_to_bytes_with_extension_codec(&plan, codec.as_ref()).unwrap();
        let fresh = SessionContext::new_with_config(config());
        let back =
            logical_plan_from_bytes_with_extension_codec(&bytes, &fresh.task_ctx(), codec.as_ref())
                .unwrap();
        let there = fresh.execute_logical_plan(back).await.unwrap().collect().await.unwrap();
        assert_eq!(rows(&there), rows(&here), "{q}");
    }
    // The null text travelled: some qty values are null.
    let df = ctx.sql("SELECT count(qty) AS n, count(*) AS m FROM t").await.unwrap();
    let r = rows(&df.collect().await.unwrap());
    assert!(!r.contains("| 5000 | 5000 |"), "no null qty, so the test checks nothing:\n{r}");
}

#[tokio::test]
async fn a_file_that_changed_since_planning_is_an_error_not_other_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv(5_000, 9, ',')).unwrap();
    let ctx = table(&path, SwathCsvOptions::new().split_bytes(2048)).await;
    let plan = ctx.sql(QUERIES[1]).await.unwrap().create_physical_plan().await.unwrap();
    let codec = swath_ballista::physical_codec();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, codec.as_ref()).unwrap();
    // The file grows after the scheduler planned it.
    let mut more = std::fs::read(&path).unwrap();
    more.extend_from_slice(b"99999,Oslo,1,late\n");
    std::fs::write(&path, more).unwrap();
    let fresh = SessionContext::new();
    let err =
        physical_plan_from_bytes_with_extension_codec(&bytes, &fresh.task_ctx(), codec.as_ref())
            .expect_err("a plan of another file decoded");
    let msg = err.to_string();
    assert!(msg.contains("where the query was planned"), "{msg}");
    assert!(msg.contains(path.to_str().unwrap()), "the error does not name the file: {msg}");
}

#[tokio::test]
async fn a_bad_record_read_on_the_far_side_is_named_as_a_whole_read_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    // A record with a field too many, far into the file.
    let mut lines: Vec<String> = csv(20_000, 13, ',').lines().map(String::from).collect();
    let at = lines.len() * 3 / 4;
    lines[at].push_str(",extra");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let ctx = table(&path, SwathCsvOptions::new().split_bytes(4096)).await;
    let q = "SELECT sum(qty) FROM t";
    let plan = ctx.sql(q).await.unwrap().create_physical_plan().await.unwrap();
    let here = collect(plan.clone(), ctx.task_ctx()).await.expect_err("the bad record was read");
    let here = swath_datafusion::csv_error(&here).expect("not swath's CSV error").to_string();
    assert!(here.contains("record ") && here.contains("line "), "{here}");
    let shipped = ship(plan).unwrap();
    let there = collect(shipped, SessionContext::new().task_ctx()).await.expect_err("read on");
    let there = swath_datafusion::csv_error(&there).expect("not swath's CSV error").to_string();
    assert_eq!(there, here, "the far side names another place");
}

#[tokio::test]
async fn a_task_plan_of_some_partitions_carries_only_their_splits_and_reads_them_exactly() {
    use datafusion::datasource::physical_plan::FileScanConfig;
    use datafusion::datasource::source::DataSourceExec;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv(20_000, 17, ',')).unwrap();
    let ctx = table(&path, SwathCsvOptions::new().split_bytes(4096)).await;
    let plan =
        ctx.sql("SELECT id, note FROM t").await.unwrap().create_physical_plan().await.unwrap();
    let exec = plan.downcast_ref::<DataSourceExec>().expect("the scan is the plan's root");
    let conf = exec.data_source().downcast_ref::<FileScanConfig>().unwrap();
    assert_eq!(conf.file_groups.len(), 8, "{}", text(&plan));
    // As Ballista gives a task its partitions: partitions 3 and 4 alone.
    let mut part = conf.clone();
    part.file_groups = conf.file_groups[3..5].to_vec();
    let part: Arc<dyn ExecutionPlan> = DataSourceExec::from_data_source(part);
    let here = collect(part.clone(), ctx.task_ctx()).await.unwrap();
    let shipped = ship(part.clone()).unwrap();
    assert_eq!(text(&shipped), text(&part));
    let there = collect(shipped, SessionContext::new().task_ctx()).await.unwrap();
    assert_eq!(rows(&there), rows(&here));
    let n: usize = here.iter().map(|b| b.num_rows()).sum();
    assert!(n > 1000 && n < 20_000, "partitions 3 and 4 hold {n} of 20000 rows");
}
