//! The obvious twin of `swath::preamble`: a text's lines counted off the
//! top and the bottom, as every reader told to skip them must read it.

/// `text` as a reader told where its records are reads it: the lines
/// (split after each `\n`) before the first one `starts` says yes to
/// (asked with its 1-based number and its text, without its line end and,
/// on line 1, without a UTF-8 byte order mark) turned into line ends
/// (every byte but `\n` a `\r`), and its last `footer` non-empty lines
/// (a line of `\r` alone is empty) cut off, never before that first line.
///
/// ```
/// let t = b"Title\nid,x\n1,2\nTotals\n\n";
/// let body = swath_testkit::body::body_model(t, |n, _| n > 1, 1);
/// assert_eq!(body, b"\r\r\r\r\r\nid,x\n1,2\n");
/// ```
pub fn body_model(text: &[u8], mut starts: impl FnMut(u64, &[u8]) -> bool, footer: u64) -> Vec<u8> {
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let mut start = text.len();
    let mut at = 0;
    for (i, l) in lines.iter().enumerate() {
        let mut t = l.strip_suffix(b"\n").unwrap_or(l);
        if l.ends_with(b"\n") {
            t = t.strip_suffix(b"\r").unwrap_or(t);
        }
        if i == 0 {
            t = t.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(t);
        }
        if starts(i as u64 + 1, t) {
            start = at;
            break;
        }
        at += l.len();
    }
    // The footer: the last `footer` non-empty lines at or after `start`.
    let mut end = text.len();
    let mut counted = 0;
    let mut line_end = text.len();
    for l in lines.iter().rev() {
        let line_start = line_end - l.len();
        if line_start < start || counted == footer {
            break;
        }
        if l.iter().any(|&b| b != b'\r' && b != b'\n') {
            counted += 1;
            end = line_start;
        }
        line_end = line_start;
    }
    if counted < footer {
        end = start;
    }
    let mut out: Vec<u8> =
        text[..start].iter().map(|&b| if b == b'\n' { b } else { b'\r' }).collect();
    out.extend_from_slice(&text[start..end.max(start)]);
    out
}
