//! `csv head` writes through the same writer as `csv select`: the same
//! bytes for the same records, in the input's dialect.

use std::io::Write;

use assert_cmd::Command;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

#[test]
fn head_equals_select_of_every_column() {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(
        "\"\u{feff}id\";name;note\n1;\"a;b\";\"say \"\"hi\"\"\"\n2;\"#x\";\"two\nlines\"\n3;;\n"
            .as_bytes(),
    )
    .unwrap();
    for extra in [&[][..], &["--comment", "#"][..]] {
        let head =
            swath().args(["csv", "head", "-d", ";"]).args(extra).arg(f.path()).output().unwrap();
        let select = swath()
            .args(["csv", "select", "-c", "1-", "-t", "1", "-d", ";"])
            .args(extra)
            .arg(f.path())
            .output()
            .unwrap();
        assert!(head.status.success() && select.status.success());
        assert_eq!(String::from_utf8_lossy(&head.stdout), String::from_utf8_lossy(&select.stdout));
    }
    let head =
        swath().args(["csv", "head", "-d", ";", "--comment", "#"]).arg(f.path()).output().unwrap();
    let text = String::from_utf8(head.stdout).unwrap();
    assert!(text.starts_with("\"\u{feff}id\";"), "a leading BOM in a field stays quoted: {text:?}");
    assert!(
        text.contains("2;\"#x\";"),
        "a field starting with the comment byte is quoted: {text:?}"
    );
}
