//! The README's examples are tests (issue 12): every `$ semfuzz ...` block of README.md and
//! docs/*.md runs through trycmd and must print what the page shows.

use std::path::{Path, PathBuf};

/// The workspace root: the README's commands use paths relative to it.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ is in the workspace")
        .to_path_buf()
}

/// The pages with examples: README.md and every docs/*.md that shows a `$ semfuzz` line.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.starts_with("$ semfuzz")))
        })
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// trycmd runs only ```console (or ```trycmd) blocks: an example anywhere else would silently
/// go untested, so every `$ semfuzz` line must be in one.
#[test]
fn every_example_is_in_a_console_block() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("readable");
        let mut fence: Option<&str> = None;
        for (n, line) in text.lines().enumerate() {
            if let Some(info) = line.strip_prefix("```") {
                fence = match fence {
                    Some(_) => None,
                    None => Some(info.trim()),
                };
            } else if line.trim_start().starts_with("$ semfuzz") {
                assert!(
                    matches!(fence, Some("console" | "trycmd")),
                    "{}:{}: `{line}` is outside a ```console block, so no test runs it",
                    page.display(),
                    n + 1
                );
            }
        }
    }
}

#[test]
fn readme_examples_print_what_they_show() {
    // The commands name files relative to the repository root, as a reader runs them.
    std::env::set_current_dir(root()).expect("cd to the workspace root");
    let cases = trycmd::TestCases::new();
    for page in pages() {
        cases.case(page);
    }
    cases.env("NO_COLOR", "1");
}
