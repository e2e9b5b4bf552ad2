//! The settings an index is built with, as the string the sidecar keeps:
//! those that decide where records start (delimiter, quote, escape,
//! comment, strict or lenient quoting, empty lines, lines skipped before
//! and after the records). The header setting
//! and the field count do not move a record start (the header row is
//! record 1 either way), so one index serves both.

use crate::reader::builder::ReaderBuilder;

/// The dialect string of `b`'s settings, e.g.
/// `delimiter=44 quote=34 quoting=1 double-quote=1 escape=none comment=none lenient=0 skip-empty=1`.
pub fn dialect_string(b: &ReaderBuilder) -> String {
    let c = b.config();
    let byte = |b: Option<u8>| b.map_or("none".to_string(), |b| b.to_string());
    let mut s = format!(
        "delimiter={} quote={} quoting={} double-quote={} escape={} comment={} lenient={} skip-empty={}",
        c.delim,
        c.quote,
        u8::from(c.quoting),
        u8::from(c.double_quote),
        byte(c.escape),
        byte(c.comment),
        u8::from(c.lenient),
        u8::from(c.skip_empty_lines),
    );
    // Lines left out move every record start: named only when set, so
    // that the indexes of files read whole stay valid.
    if c.skip != crate::preamble::Skip::Nothing {
        s.push_str(&format!(" skip={}", c.skip.describe()));
    }
    if c.footer_lines > 0 {
        s.push_str(&format!(" footer={}", c.footer_lines));
    }
    s
}
