//! Helpers shared by the integration tests that drive the command line.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's binary, ready for arguments.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_implicit-contact"))
}

/// A scenario file of `paper_cases/`.
pub fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("paper_cases")
        .join(name)
}

/// A fresh, empty folder under the system temp dir, unique to the test file (`area`), the
/// test (`tag`) and this process.
pub fn temp_dir(area: &str, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "implicit-contact-{area}-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A process's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
