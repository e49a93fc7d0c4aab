//! The binding stays split by area: no source file of this crate is over [`MAX_LINES`] lines, so
//! that a change to one area (positions, search, databases, ...) is read in one short file.

use std::fs;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 600;

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The files of `(name, text)` that are over the limit, with their line counts.
fn too_long<'a>(files: impl IntoIterator<Item = (String, &'a str)>) -> Vec<(String, usize)> {
    files
        .into_iter()
        .map(|(name, text)| (name, text.lines().count()))
        .filter(|&(_, lines)| lines > MAX_LINES)
        .collect()
}

#[test]
fn no_binding_file_is_over_the_limit() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files: Vec<(String, String)> = rust_files(&src)
        .into_iter()
        .map(|p| (p.strip_prefix(&src).unwrap().display().to_string(), fs::read_to_string(&p).unwrap()))
        .collect();
    assert!(
        files.iter().any(|(name, _)| name == "lib.rs"),
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let long = too_long(files.iter().map(|(n, t)| (n.clone(), t.as_str())));
    assert!(long.is_empty(), "over {MAX_LINES} lines (split the file by area): {long:?}");
}

#[test]
fn the_limit_is_counted_in_lines() {
    let at_limit = "x\n".repeat(MAX_LINES);
    let over = "x\n".repeat(MAX_LINES + 1);
    let long = too_long([("a.rs".to_string(), at_limit.as_str()), ("b.rs".to_string(), over.as_str())]);
    assert_eq!(long, vec![("b.rs".to_string(), MAX_LINES + 1)]);
}
