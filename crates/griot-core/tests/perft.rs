//! Runs every perft table in the repository's `tests/perft/*.txt` (shared with pytest). Depth
//! counts moves as the boundary does (whole turns), except in `*.steps.txt`, which count the
//! core's steps (a turn's choices one at a time; only this test reads them).

use std::fs;
use std::path::PathBuf;

use griot_core::registry::parse_position;

/// Leaf counts above this are skipped in unoptimised builds (pytest runs them all).
const DEBUG_BUDGET: u64 = 300_000;

fn tables() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/perft");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), fs::read_to_string(&p).unwrap())).collect()
}

#[test]
fn perft_tables() {
    let mut checked = 0;
    for (path, text) in tables() {
        let steps = path.to_string_lossy().ends_with(".steps.txt");
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split(" ; ");
            let fen = parts.next().unwrap();
            let (game, pos) =
                parse_position(fen).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
            for entry in parts {
                let (d, expected) = entry.split_once(' ').expect("`<depth> <leaves>`");
                let (d, expected): (u32, u64) = (d.parse().unwrap(), expected.parse().unwrap());
                if cfg!(debug_assertions) && expected > DEBUG_BUDGET {
                    continue;
                }
                let got = if steps { game.perft(&pos, d) } else { game.perft_turns(&pos, d) }.unwrap();
                assert_eq!(got, expected, "{}:{}: perft {d} of {fen}", path.display(), n + 1);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} perft entries checked");
}
