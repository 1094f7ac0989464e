//! No module of the library imports a module that imports it back, directly or around a
//! loop. A module is a file (`mod.rs` is its folder's module, `lib.rs` the crate's), and
//! module `a` imports module `b` when code in `a` names a path into `b` starting from
//! `crate::`, `super::` or `self::`, in a `use` declaration or inline; comments (doc
//! comments too) and string literals do not count. A path names the deepest file module
//! it passes through: `crate::gpu::buffers::Slot` is `gpu::buffers`, `crate::Body` is the
//! crate root. A module's inline `mod tests { use super::*; }` is the module itself.
//! `src/main.rs` is the command-line binary, a crate of its own, and is left out.
//!
//! A folder's module naming its own children by their bare names (`pub use
//! collider::GpuCollider` in `src/gpu/mod.rs`) is how it exposes them and does not count: a
//! path through such a re-export (`super::GpuCollider` from `src/gpu/pending.rs`) names the
//! folder's module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// A module: its path from the crate root, `[]` for the root.
type Module = Vec<String>;

/// Where one module names another: file, line and the path as written.
#[derive(Debug, Clone)]
struct Site {
    file: String,
    line: usize,
    path: String,
}

/// Module `a` → module `b` → the first place `a` names `b`.
type Graph = BTreeMap<Module, BTreeMap<Module, Site>>;

/// The module a file under `src/` is, from its path relative to `src/`.
fn module_of(relative: &str) -> Module {
    let mut parts: Vec<String> = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// `source` with comments and the contents of string and character literals blanked
/// out, newlines kept so that lines still count.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if !ident_before && (c == 'r' || (c == 'b' && next == Some('r'))) && {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"')
        } {
            // A raw string: r"..", r#".."#, br"..".
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while chars[j] == '#' {
                hashes += 1;
                j += 1;
            }
            out.push('"');
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (1..=hashes).all(|h| chars.get(j + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[j]);
                j += 1;
            }
            out.push('"');
            i = j;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('a', '\n', '\u{..}'), not a lifetime ('a, 'static).
            out.push('\'');
            i += 1;
            if chars.get(i) == Some(&'\\') {
                i += 2;
            }
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// A token of code: an identifier (keywords included), `::`, or one punctuation character.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                line,
            });
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(Token {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The paths of a use tree, `tokens[*at..]` up to its end (`;`, `,` or `}`), each
/// prefixed with `prefix`.
fn use_tree(tokens: &[Token], at: &mut usize, prefix: &[String], paths: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    while *at < tokens.len() {
        match tokens[*at].text.as_str() {
            "::" => *at += 1,
            "{" => {
                *at += 1;
                while *at < tokens.len() && tokens[*at].text != "}" {
                    use_tree(tokens, at, &path, paths);
                    if tokens.get(*at).is_some_and(|t| t.text == ",") {
                        *at += 1;
                    }
                }
                *at += 1;
                return;
            }
            "as" => *at += 2,
            "*" => *at += 1,
            ";" | "," | "}" => break,
            t if is_ident(t) => {
                path.push(t.to_string());
                *at += 1;
            }
            _ => *at += 1,
        }
    }
    paths.push(path);
}

/// Every module path (`crate::`, `super::`, `self::`) that `source`, the file of module
/// `module`, names, resolved against the modules in `modules`: `(target, line, path)`.
fn named_modules(
    module: &Module,
    source: &str,
    modules: &BTreeSet<Module>,
) -> Vec<(Module, usize, String)> {
    let tokens = tokens(&code_only(source));
    let mut found = Vec::new();
    // Inline modules open around the current token: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    let resolve = |inline: &[(String, usize)], path: &[String]| -> Option<Module> {
        let mut base: Module = module.clone();
        base.extend(inline.iter().map(|(name, _)| name.clone()));
        let mut rest = path;
        match path.first().map(String::as_str) {
            Some("crate") => {
                base.clear();
                rest = &path[1..];
            }
            Some("super" | "self") => {
                while let Some(first) = rest.first() {
                    match first.as_str() {
                        "super" => {
                            base.pop()?;
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            _ => return None,
        }
        while !modules.contains(&base) {
            base.pop()?;
        }
        for segment in rest {
            base.push(segment.clone());
            if !modules.contains(&base) {
                base.pop();
                break;
            }
        }
        Some(base)
    };
    while i < tokens.len() {
        let t = tokens[i].text.as_str();
        match t {
            "mod" if tokens.get(i + 2).is_some_and(|t| t.text == "{") => {
                depth += 1;
                inline.push((tokens[i + 1].text.clone(), depth));
                i += 3;
                continue;
            }
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|&(_, d)| d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            "use" if i == 0 || tokens[i - 1].text != "+" => {
                let line = tokens[i].line;
                let mut at = i + 1;
                let mut paths = Vec::new();
                while at < tokens.len() && tokens[at].text != ";" {
                    use_tree(&tokens, &mut at, &[], &mut paths);
                    if tokens.get(at).is_some_and(|t| t.text == ",") {
                        at += 1;
                    }
                }
                for path in paths {
                    if let Some(target) = resolve(&inline, &path) {
                        found.push((target, line, format!("use {}", path.join("::"))));
                    }
                }
                i = at + 1;
                continue;
            }
            "crate" | "super" | "self"
                if tokens.get(i + 1).is_some_and(|t| t.text == "::")
                    && (i == 0 || tokens[i - 1].text != "in") =>
            {
                let line = tokens[i].line;
                let mut path = vec![t.to_string()];
                let mut at = i + 1;
                while tokens.get(at).is_some_and(|t| t.text == "::")
                    && tokens.get(at + 1).is_some_and(|t| is_ident(&t.text))
                {
                    path.push(tokens[at + 1].text.clone());
                    at += 2;
                }
                if let Some(target) = resolve(&inline, &path) {
                    found.push((target, line, path.join("::")));
                }
                i = at;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The import graph of the files given as (path relative to `src/`, source).
fn graph_of(files: &[(String, String)]) -> Graph {
    let mut modules: BTreeSet<Module> = files.iter().map(|(path, _)| module_of(path)).collect();
    // The crate root is there even when the files given leave `lib.rs` out.
    modules.insert(Module::new());
    let mut graph = Graph::new();
    for (path, source) in files {
        let module = module_of(path);
        let edges = graph.entry(module.clone()).or_default();
        for (target, line, named) in named_modules(&module, source, &modules) {
            if target != module {
                edges.entry(target).or_insert_with(|| Site {
                    file: format!("src/{path}"),
                    line,
                    path: named,
                });
            }
        }
    }
    graph
}

/// A loop of imports in `graph`, as the modules around it (the first again at the end),
/// or `None` when there is none.
fn find_cycle(graph: &Graph) -> Option<Vec<Module>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        graph: &Graph,
        module: &Module,
        marks: &mut BTreeMap<Module, Mark>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        marks.insert(module.clone(), Mark::Open);
        stack.push(module.clone());
        for next in graph.get(module).into_iter().flat_map(|edges| edges.keys()) {
            match marks.get(next) {
                Some(Mark::Open) => {
                    let from = stack.iter().position(|m| m == next).expect("on the stack");
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(cycle) = visit(graph, next, marks, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        marks.insert(module.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for module in graph.keys() {
        if !marks.contains_key(module) {
            if let Some(cycle) = visit(graph, module, &mut marks, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

fn name(module: &Module) -> String {
    if module.is_empty() {
        "crate".into()
    } else {
        module.join("::")
    }
}

/// The cycle told edge by edge, with where each import is written.
fn describe(graph: &Graph, cycle: &[Module]) -> String {
    cycle
        .windows(2)
        .map(|w| {
            let site = &graph[&w[0]][&w[1]];
            format!(
                "  {} -> {}   ({}:{}: {})",
                name(&w[0]),
                name(&w[1]),
                site.file,
                site.line,
                site.path
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `dir`, as (path relative to `root`, source).
fn read_sources(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_sources(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(root)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let source = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            files.push((relative, source));
        }
    }
}

fn library_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_sources(&src, &src, &mut files);
    files.retain(|(path, _)| path != "main.rs");
    files
}

fn modules(names: &[&str]) -> Vec<Module> {
    names
        .iter()
        .map(|n| n.split("::").map(str::to_string).collect())
        .collect()
}

#[test]
fn the_library_modules_import_one_another_without_a_loop() {
    let graph = graph_of(&library_sources());
    // The scan sees the imports it should: a graph with no edges would pass vacuously.
    let edges: usize = graph.values().map(BTreeMap::len).sum();
    assert!(
        edges > 100,
        "only {edges} imports found among the library's modules"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "modules import one another around a loop; move the shared items to a module \
             of their own that none of them is imported by:\n{}",
            describe(&graph, &cycle)
        );
    }
    // Among them, some that this layout rests on.
    for (from, to) in [
        ("gpu::collider", "gpu::contact"),
        ("gpu::collider::pending", "gpu::collider"),
        ("gpu::buffers", "gpu::readback"),
        ("answer::contact", "answer::pair"),
        ("cpu::reference", "cpu::broad"),
    ] {
        let [from, to] = [from, to].map(|n| n.split("::").map(str::to_string).collect());
        assert!(
            graph
                .get(&from)
                .is_some_and(|edges| edges.contains_key(&to)),
            "the scan missed {} -> {}",
            name(&from),
            name(&to)
        );
    }
}

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(path, source)| (path.to_string(), source.to_string()))
        .collect()
}

#[test]
fn a_type_imported_back_by_its_user_is_a_loop() {
    let graph = graph_of(&files(&[
        ("lib.rs", "pub mod collider;\npub mod contact;\n"),
        (
            "collider.rs",
            "use crate::contact::Contact;\npub type Pair = [u32; 2];\n",
        ),
        (
            "contact.rs",
            "use crate::collider::Pair;\npub struct Contact(Pair);\n",
        ),
    ]));
    let cycle = find_cycle(&graph).expect("a loop");
    assert_eq!(cycle.len(), 3, "{cycle:?}");
    let told = describe(&graph, &cycle);
    assert!(
        told.contains("src/contact.rs:1: use crate::collider::Pair"),
        "{told}"
    );
    assert!(
        told.contains("src/collider.rs:1: use crate::contact::Contact"),
        "{told}"
    );
}

#[test]
fn a_loop_through_super_and_an_inline_path_is_found() {
    // gpu::buffers -> gpu::collider (an inline path in code) -> gpu::buffers (super::).
    let graph = graph_of(&files(&[
        ("gpu/mod.rs", "mod buffers;\nmod collider;\n"),
        (
            "gpu/buffers.rs",
            "fn size() -> u64 {\n    crate::gpu::collider::PAIRS_AT + 8\n}\n",
        ),
        (
            "gpu/collider.rs",
            "use super::{buffers::{self, Buffers}, readback::read};\npub const PAIRS_AT: u64 = 0;\n",
        ),
    ]));
    let cycle = find_cycle(&graph).expect("a loop");
    assert_eq!(
        cycle[..2],
        modules(&["gpu::buffers", "gpu::collider"])[..],
        "{cycle:?}"
    );
    let told = describe(&graph, &cycle);
    assert!(
        told.contains("src/gpu/buffers.rs:2: crate::gpu::collider::PAIRS_AT"),
        "{told}"
    );
    assert!(
        told.contains("src/gpu/collider.rs:1: use super::buffers::self"),
        "{told}"
    );
}

#[test]
fn comments_strings_and_a_module_own_tests_are_no_imports() {
    let graph = graph_of(&files(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        (
            "b.rs",
            r##"//! Unlike [`crate::a::A`], a B ...
/* crate::a::A /* nested crate::a::A */ */
pub struct B;
/// See [`super::a`].
pub fn name() -> &'static str {
    let _quote = '"';
    let _raw = r#"crate::a::A "quoted" "#;
    "crate::a::A"
}
pub(super) fn private() {}
#[cfg(test)]
mod tests {
    use super::*;
    fn t() -> B { self::super::B }
}
"##,
        ),
    ]));
    assert_eq!(find_cycle(&graph), None, "{graph:#?}");
    let b: Module = modules(&["b"]).remove(0);
    assert!(graph[&b].is_empty(), "{:#?}", graph[&b]);
    // The same file naming `a` in code is a loop.
    let graph = graph_of(&files(&[
        ("lib.rs", "pub mod a;\npub mod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B;\nfn f() { let _ = crate::a::A; }\n"),
    ]));
    assert!(find_cycle(&graph).is_some(), "{graph:#?}");
}
