//! Where a function's binary is: in the directory given (`--binaries-dir`),
//! or where the usual build tools put it, relative to the template:
//! `.aws-sam/build/<LogicalId>/bootstrap` after `sam build`, and
//! `target/lambda/<binary>/bootstrap` after `cargo lambda build`.
//! A binary built for another CPU (an arm64 `sam build` on an x86_64
//! machine) is passed over, since it could not run here.

use std::fmt;
use std::path::{Path, PathBuf};

/// Which build produced the binary that will run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The directory given (`cargo build` output by default).
    BinariesDir,
    /// `sam build`.
    SamBuild,
    /// `cargo lambda build`.
    CargoLambda,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Origin::BinariesDir => "the binaries directory",
            Origin::SamBuild => "sam build",
            Origin::CargoLambda => "cargo lambda build",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Absolute, since function processes run in a directory of their own.
    pub path: PathBuf,
    pub origin: Origin,
}

/// What to look for, and where.
pub struct Search<'a> {
    pub logical_id: &'a str,
    /// The cargo binary (`BuildProperties.Binary`), or `bootstrap`.
    pub binary: &'a str,
    pub template_dir: &'a Path,
    pub binaries_dir: &'a Path,
    /// Look in the build tools' output directories before `binaries_dir`.
    pub build_outputs: bool,
}

/// The first runnable candidate, or every path tried (with why it was not
/// used) when there is none.
pub fn locate(search: &Search) -> Result<Located, Vec<String>> {
    let mut candidates = Vec::new();
    if search.build_outputs {
        candidates.push((
            Origin::SamBuild,
            search
                .template_dir
                .join(".aws-sam/build")
                .join(search.logical_id)
                .join("bootstrap"),
        ));
        candidates.push((
            Origin::CargoLambda,
            search
                .template_dir
                .join("target/lambda")
                .join(search.binary)
                .join("bootstrap"),
        ));
    }
    candidates.push((Origin::BinariesDir, search.binaries_dir.join(search.binary)));
    let mut tried = Vec::new();
    for (origin, path) in candidates {
        let path = std::path::absolute(&path).unwrap_or(path);
        if !path.is_file() {
            tried.push(format!("{} (not found)", path.display()));
            continue;
        }
        match foreign_architecture(&path) {
            Some(arch) => tried.push(format!("{} (built for {arch})", path.display())),
            None => return Ok(Located { path, origin }),
        }
    }
    Err(tried)
}

/// The CPU an ELF executable was built for, when it is not this machine's.
fn foreign_architecture(path: &Path) -> Option<&'static str> {
    use std::io::Read;
    let mut header = [0u8; 20];
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut header)
        .ok()?;
    elf_foreign_architecture(&header, std::env::consts::ARCH)
}

fn elf_foreign_architecture(header: &[u8; 20], host: &str) -> Option<&'static str> {
    if &header[..4] != b"\x7fELF" {
        return None;
    }
    let machine = match u16::from_le_bytes([header[18], header[19]]) {
        0x3e => "x86_64",
        0xb7 => "aarch64",
        _ => return None,
    };
    (machine != host).then_some(machine)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf(machine: u16) -> [u8; 20] {
        let mut h = [0u8; 20];
        h[..4].copy_from_slice(b"\x7fELF");
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h
    }

    #[test]
    fn elf_machines_other_than_the_host_are_foreign() {
        assert_eq!(
            elf_foreign_architecture(&elf(0xb7), "x86_64"),
            Some("aarch64")
        );
        assert_eq!(elf_foreign_architecture(&elf(0x3e), "x86_64"), None);
        assert_eq!(
            elf_foreign_architecture(&elf(0x3e), "aarch64"),
            Some("x86_64")
        );
        assert_eq!(elf_foreign_architecture(&[b'#'; 20], "x86_64"), None);
    }

    fn host_binary(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(std::env::current_exe().unwrap(), path).unwrap();
    }

    #[test]
    fn sam_build_then_cargo_lambda_then_the_binaries_dir() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let search = Search {
            logical_id: "HelloFunction",
            binary: "hello",
            template_dir: root,
            binaries_dir: &root.join("target/debug"),
            build_outputs: true,
        };
        let tried = locate(&search).unwrap_err();
        assert_eq!(tried.len(), 3, "{tried:?}");

        host_binary(&root.join("target/debug/hello"));
        assert_eq!(locate(&search).unwrap().origin, Origin::BinariesDir);
        host_binary(&root.join("target/lambda/hello/bootstrap"));
        assert_eq!(locate(&search).unwrap().origin, Origin::CargoLambda);
        host_binary(&root.join(".aws-sam/build/HelloFunction/bootstrap"));
        let found = locate(&search).unwrap();
        assert_eq!(found.origin, Origin::SamBuild);
        assert!(found.path.is_absolute());

        // Without build outputs only the given directory counts
        let only_dir = Search {
            build_outputs: false,
            ..search
        };
        assert_eq!(locate(&only_dir).unwrap().origin, Origin::BinariesDir);
    }

    #[test]
    fn a_binary_for_another_cpu_is_passed_over_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let foreign = if std::env::consts::ARCH == "aarch64" {
            0x3e
        } else {
            0xb7
        };
        let sam = root.join(".aws-sam/build/F/bootstrap");
        std::fs::create_dir_all(sam.parent().unwrap()).unwrap();
        std::fs::write(&sam, elf(foreign)).unwrap();
        let search = Search {
            logical_id: "F",
            binary: "f",
            template_dir: root,
            binaries_dir: &root.join("target/debug"),
            build_outputs: true,
        };
        let tried = locate(&search).unwrap_err();
        assert!(tried[0].contains("built for"), "{tried:?}");
    }
}
