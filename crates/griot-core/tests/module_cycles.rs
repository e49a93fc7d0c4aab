//! The core's top-level modules (game, sowing, egdb, search, registry, ...) depend on each other
//! without cycles: the rules never reach the endgame databases or the search, and the databases
//! never reach the search. Read from the source: every `crate::<module>` path in code that is not
//! test-only (comments, `#[cfg(test)]` modules and the files they name are left out).
//!
//! Inside a directory module (`egdb/`, `search/`, `sowing/`) the submodules obey the same rule
//! among themselves: a submodule reaches a sibling by `super::<sibling>`, by
//! `crate::<dir>::<sibling>`, or by a name its `mod.rs` imports from that sibling; the `mod.rs`
//! itself is the directory's front and is not a node.

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

/// The first segment of every path that starts with `prefix` (`crate::`, `super::`, ...) in
/// `code`, groups included: `crate::{game::Game, sowing}` gives `game` and `sowing`.
fn first_segments(code: &str, prefix: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue; // the end of a longer identifier or path
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    c if item_start && depth == 1 && (c.is_alphanumeric() || c == '_') => {
                        out.insert(ident(&group[i..]));
                        item_start = false;
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out.remove("self");
    out
}

/// Every `crate::<name>` in `code`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    first_segments(code, "crate::")
}

/// The names a `mod.rs` imports from its children (`use build::{build, Options};`,
/// `pub use rules::RuleSet as Rules;`), each with the child it comes from.
fn imported_from_children(code: &str, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in code.split(';') {
        let Some(at) = statement.find("use ") else { continue };
        if statement[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let path = statement[at + 4..].trim();
        let path = path.strip_prefix("self::").unwrap_or(path);
        let Some((child, items)) = path.split_once("::") else { continue };
        if !children.contains(child) {
            continue;
        }
        for item in items.split([',', '{', '}']) {
            let item = item.trim();
            let name = match item.split_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => item.rsplit("::").next().unwrap_or(""),
            };
            if !name.is_empty() && name != "*" && name != "self" {
                out.insert(name.to_string(), child.to_string());
            }
        }
    }
    out
}

/// The code of every file under `dir` that is not test-only, by path.
fn non_test_code(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    let mut code_of = BTreeMap::new();
    for file in &files {
        let (kept, tests) = without_tests(&code_only(&fs::read_to_string(file).unwrap()));
        let parent = if file.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs") {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for t in tests {
            test_only.insert(parent.join(format!("{t}.rs")));
            test_only.insert(parent.join(&t).join("mod.rs"));
        }
        code_of.insert(file.clone(), kept);
    }
    code_of.retain(|file, _| !test_only.contains(file));
    code_of
}

/// Which submodule of the directory module `src/<dir>` depends on which sibling.
fn submodule_graph(dir: &str) -> Graph {
    let root = src().join(dir);
    let code_of = non_test_code(&root);
    let child_of = |file: &Path| top_module(&root, file).filter(|m| m != "mod");
    let children: BTreeSet<String> = code_of.keys().filter_map(|f| child_of(f)).collect();
    let front = code_of.get(&root.join("mod.rs")).map(String::as_str).unwrap_or("");
    let via_front = imported_from_children(front, &children);
    let mut graph: Graph = children.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (file, code) in &code_of {
        let Some(from) = child_of(file) else { continue };
        let mut reached = first_segments(code, "super::");
        reached.extend(first_segments(code, &format!("crate::{dir}::")));
        for name in reached {
            let to = if children.contains(&name) { Some(&name) } else { via_front.get(&name) };
            if let Some(to) = to.filter(|to| **to != from) {
                graph.get_mut(&from).unwrap().insert(to.clone());
            }
        }
    }
    graph
}

/// The directory modules of the core (`egdb`, `search`, `sowing`, ...).
fn directory_modules() -> Vec<String> {
    let mut dirs: Vec<String> = fs::read_dir(src())
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            path.is_dir().then(|| path.file_name().unwrap().to_str().unwrap().to_string())
        })
        .collect();
    dirs.sort();
    dirs
}

/// Which top-level module depends on which, from the source.
fn module_graph() -> Graph {
    let root = src();
    let code_of = non_test_code(&root);
    let modules: BTreeSet<String> = code_of.keys().filter_map(|f| top_module(&root, f)).collect();
    let mut graph: Graph = modules.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (file, code) in &code_of {
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
fn submodules_have_no_cycle() {
    let dirs = directory_modules();
    assert!(dirs.iter().any(|d| d == "egdb"), "{dirs:?}");
    for dir in dirs {
        let graph = submodule_graph(&dir);
        if let Some(cycle) = find_cycle(&graph) {
            panic!("module cycle in {dir}: {}\n{graph:#?}", cycle.join(" -> "));
        }
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
    let egdb = submodule_graph("egdb");
    assert!(depends(&egdb, "build", "graph"), "{egdb:#?}");
    assert!(depends(&egdb, "build", "file"), "{egdb:#?}");
    let search = submodule_graph("search");
    assert!(depends(&search, "engine", "tt"), "{search:#?}");
    assert!(!search.contains_key("tests") && !search.contains_key("eval_tests"), "{search:#?}");
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
    assert_eq!(
        crate_paths("use crate::{game::{Game, Player}, sowing};"),
        BTreeSet::from(["game".to_string(), "sowing".to_string()])
    );
    let children = BTreeSet::from(["build".to_string(), "file".to_string()]);
    let front = imported_from_children(
        "mod build;\npub use build::{build, Options as BuildOptions};\nuse file::LevelFile;\nuse std::fmt;\n",
        &children,
    );
    assert_eq!(front.get("BuildOptions").map(String::as_str), Some("build"));
    assert_eq!(front.get("LevelFile").map(String::as_str), Some("file"));
    assert!(!front.contains_key("fmt"));
}
