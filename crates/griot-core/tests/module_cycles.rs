//! The core's top-level modules (game, sowing, egdb, search, registry, ...) depend on each other
//! without cycles: the rules never reach the endgame databases or the search, and the databases
//! never reach the search. Read from the source: every `crate::<module>` path in code that is not
//! test-only (comments, `#[cfg(test)]` modules and the files they name are left out).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments (line and block) and string literals' contents, so that a doc link
/// or a message naming a module is not read as a dependency.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i..].starts_with(b"'\"'") {
            out.push_str("'\"'");
            i += 3;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Splits off test-only code: the text before an inline `#[cfg(test)] mod name {` (such modules
/// close their file), and the names of test modules declared as `#[cfg(test)] mod name;`.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut kept = String::new();
    let mut test_files = Vec::new();
    let mut lines = code.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            let next = lines.peek().map(|l| l.trim()).unwrap_or("");
            if let Some(rest) = next.strip_prefix("mod ").or_else(|| next.strip_prefix("pub mod ")) {
                if let Some(name) = rest.strip_suffix(';') {
                    test_files.push(name.trim().to_string());
                    lines.next();
                    continue;
                }
                break;
            }
        }
        kept.push_str(line);
        kept.push('\n');
    }
    (kept, test_files)
}

/// The top-level module a file belongs to (`None` for the crate root).
fn top_module(root: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(root).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    if rel.components().count() == 1 {
        let name = first.strip_suffix(".rs")?.to_string();
        return (name != "lib").then_some(name);
    }
    Some(first)
}

/// Every `crate::<name>` in `code`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // the end of a longer identifier
        }
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// Which top-level module depends on which, from the source.
fn module_graph() -> Graph {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    let mut code_of = BTreeMap::new();
    for file in &files {
        let (kept, tests) = without_tests(&code_only(&fs::read_to_string(file).unwrap()));
        let dir = if file.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs") {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for t in tests {
            test_only.insert(dir.join(format!("{t}.rs")));
            test_only.insert(dir.join(&t).join("mod.rs"));
        }
        code_of.insert(file.clone(), kept);
    }
    let modules: BTreeSet<String> = files.iter().filter_map(|f| top_module(&root, f)).collect();
    let mut graph: Graph = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (file, code) in &code_of {
        if test_only.contains(file) {
            continue;
        }
        let Some(from) = top_module(&root, file) else { continue };
        for to in crate_paths(code) {
            if to != from && modules.contains(&to) {
                graph.get_mut(&from).unwrap().insert(to);
            }
        }
    }
    graph
}

/// A cycle of the graph, if it has one (depth-first search for a back edge).
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &Graph,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                0 => {
                    if let Some(c) = visit(m, g, state, stack) {
                        return Some(c);
                    }
                }
                1 => {
                    let start = stack.iter().position(|s| s == m).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn depends(graph: &Graph, from: &str, to: &str) -> bool {
    graph.get(from).is_some_and(|s| s.contains(to))
}

#[test]
fn top_level_modules_have_no_cycle() {
    let graph = module_graph();
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module cycle: {}\n{graph:#?}", cycle.join(" -> "));
    }
}

#[test]
fn the_rules_reach_neither_the_databases_nor_the_search() {
    let graph = module_graph();
    for rules in ["game", "sowing", "bechi", "ikibuguzo", "sabouiyya", "variant", "notation"] {
        for above in ["egdb", "search", "registry", "bench"] {
            assert!(!depends(&graph, rules, above), "{rules} depends on {above}: {:?}", graph[rules]);
        }
    }
    assert!(!depends(&graph, "egdb", "search"), "{:?}", graph["egdb"]);
}

/// The reader sees the dependencies that exist, so that the checks above are not vacuous.
#[test]
fn the_graph_has_the_known_edges() {
    let graph = module_graph();
    for (from, to) in
        [("egdb", "game"), ("egdb", "sowing"), ("search", "egdb"), ("search", "game"), ("registry", "search")]
    {
        assert!(depends(&graph, from, to), "{from} -> {to} not found: {graph:#?}");
    }
    let mut cyclic = graph.clone();
    cyclic.get_mut("game").unwrap().insert("egdb".into());
    assert_eq!(find_cycle(&cyclic).map(|c| c.len() > 2), Some(true));
}

#[test]
fn comments_strings_and_tests_are_not_dependencies() {
    let code =
        code_only("use crate::game::Game; // crate::egdb\n/* crate::search */ let s = \"crate::bench\";\n");
    assert_eq!(crate_paths(&code), BTreeSet::from(["game".to_string()]));
    let (kept, files) = without_tests(
        "use crate::game;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod inline {\n use crate::search;\n}\n",
    );
    assert_eq!(crate_paths(&kept), BTreeSet::from(["game".to_string()]));
    assert_eq!(files, vec!["tests".to_string()]);
    assert!(crate_paths("use mycrate::search::x;").is_empty());
}
