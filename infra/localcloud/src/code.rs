//! Function code from S3: a deployment package (zip) is unpacked once per
//! content hash into `{state dir}/code/{sha256}/`, and its `bootstrap` runs
//! as a binary built locally does.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

/// Lambda's limit on the unzipped size of a function's code.
/// https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html
const MAX_UNZIPPED: u64 = 250 * 1024 * 1024;

/// Why a package cannot run, worded as Lambda words it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CodeError {
    #[error("Could not unzip uploaded file. Please check your file, then try to upload again.")]
    NotAZip,
    #[error("Unzipped size must be smaller than {MAX_UNZIPPED} bytes")]
    TooLarge,
    /// What the `provided` runtimes report when the zip has no usable
    /// `bootstrap` (`Runtime.InvalidEntrypoint`).
    #[error("Couldn't find valid bootstrap(s): [/var/task/bootstrap /opt/bootstrap]")]
    NoBootstrap,
    #[error("cannot write the code cache at {path}: {message}")]
    Cache { path: String, message: String },
}

/// The directory holding the unpacked package, unpacked now unless an
/// earlier deploy already did; it has an executable `bootstrap`.
pub fn unpack(zip: &[u8], cache: &Path) -> Result<PathBuf, CodeError> {
    let dir = cache.join(hex::encode(Sha256::digest(zip)));
    if !dir.is_dir() {
        let entries = read_zip(zip)?;
        let staging = cache.join(format!(".unpacking-{}", uuid::Uuid::new_v4().simple()));
        let result = write_entries(&entries, &staging).and_then(|()| {
            std::fs::rename(&staging, &dir).or_else(|e| if dir.is_dir() { Ok(()) } else { Err(e) })
        });
        if let Err(e) = result {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(CodeError::Cache {
                path: dir.display().to_string(),
                message: e.to_string(),
            });
        }
    }
    let bootstrap = dir.join("bootstrap");
    if !is_executable(&bootstrap) {
        return Err(CodeError::NoBootstrap);
    }
    Ok(dir)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One file of a zip.
#[derive(Debug, PartialEq)]
struct Entry {
    name: String,
    mode: Option<u32>,
    data: Vec<u8>,
}

fn write_entries(entries: &[Entry], dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir)?;
    for e in entries {
        let path = dir.join(&e.name);
        if e.name.ends_with('/') {
            std::fs::create_dir_all(&path)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &e.data)?;
        let mode = e
            .mode
            .map(|m| m & 0o777)
            .filter(|m| *m != 0)
            .unwrap_or(0o644);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as usize)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Reads every entry through the central directory (stored and deflated
/// entries; names that would leave the directory are refused).
fn read_zip(zip: &[u8]) -> Result<Vec<Entry>, CodeError> {
    let eocd = (0..zip.len().saturating_sub(21))
        .rev()
        .take(65_557)
        .find(|&i| zip[i..].starts_with(&[0x50, 0x4b, 0x05, 0x06]))
        .ok_or(CodeError::NotAZip)?;
    let count = u16_at(zip, eocd + 10).ok_or(CodeError::NotAZip)?;
    let mut at = u32_at(zip, eocd + 16).ok_or(CodeError::NotAZip)? as usize;
    let mut entries = Vec::with_capacity(count);
    let mut total: u64 = 0;
    for _ in 0..count {
        if u32_at(zip, at) != Some(0x0201_4b50) {
            return Err(CodeError::NotAZip);
        }
        let field = |off: usize| u16_at(zip, at + off).ok_or(CodeError::NotAZip);
        let (made_by, method) = (field(4)?, field(10)?);
        let compressed = u32_at(zip, at + 20).ok_or(CodeError::NotAZip)? as usize;
        let size = u32_at(zip, at + 24).ok_or(CodeError::NotAZip)? as usize;
        let (name_len, extra_len, comment_len) = (field(28)?, field(30)?, field(32)?);
        let external = u32_at(zip, at + 38).ok_or(CodeError::NotAZip)?;
        let local = u32_at(zip, at + 42).ok_or(CodeError::NotAZip)? as usize;
        let name = zip
            .get(at + 46..at + 46 + name_len)
            .ok_or(CodeError::NotAZip)?;
        let name = String::from_utf8_lossy(name).into_owned();
        at += 46 + name_len + extra_len + comment_len;
        let safe = Path::new(&name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
        if !safe || name.is_empty() {
            return Err(CodeError::NotAZip);
        }
        total += size as u64;
        if total > MAX_UNZIPPED {
            return Err(CodeError::TooLarge);
        }
        let data_at = local
            + 30
            + u16_at(zip, local + 26).ok_or(CodeError::NotAZip)?
            + u16_at(zip, local + 28).ok_or(CodeError::NotAZip)?;
        let raw = zip
            .get(data_at..data_at + compressed)
            .ok_or(CodeError::NotAZip)?;
        let data = match method {
            0 => raw.to_vec(),
            8 => {
                let mut out = Vec::with_capacity(size);
                flate2::read::DeflateDecoder::new(raw)
                    .take(MAX_UNZIPPED)
                    .read_to_end(&mut out)
                    .map_err(|_| CodeError::NotAZip)?;
                out
            }
            _ => return Err(CodeError::NotAZip),
        };
        // The upper byte of "version made by" is 3 for Unix, whose mode
        // bits are the upper half of the external attributes.
        let mode = (made_by >> 8 == 3).then_some(external >> 16);
        entries.push(Entry { name, mode, data });
    }
    Ok(entries)
}

/// A zip of the given files (stored, Unix modes), for tests.
pub fn zip_of(files: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, mode, data) in files {
        let offset = out.len() as u32;
        let crc = crc32(data);
        let header = |sig: u32, central_dir: bool| {
            let mut h = Vec::new();
            h.extend(sig.to_le_bytes());
            if central_dir {
                h.extend((0x0314u16).to_le_bytes());
            }
            h.extend(20u16.to_le_bytes());
            h.extend([0u8; 4]);
            h.extend([0u8; 4]);
            h.extend(crc.to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((data.len() as u32).to_le_bytes());
            h.extend((name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes());
            if central_dir {
                // comment length, first disk, internal attributes
                h.extend([0u8; 6]);
                h.extend((mode << 16).to_le_bytes());
                h.extend(offset.to_le_bytes());
            }
            h.extend(name.as_bytes());
            h
        };
        let local = header(0x0403_4b50, false);
        central.extend(header(0x0201_4b50, true));
        out.extend(local);
        out.extend(*data);
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]);
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((files.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(cd_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_unpacked_once_with_its_modes() {
        // GIVEN a zip with an executable bootstrap and a data file
        let cache = tempfile::tempdir().unwrap();
        let zip = zip_of(&[
            ("bootstrap", 0o100755, b"#!/bin/sh\n"),
            ("conf/data.txt", 0o100644, b"x"),
        ]);
        // WHEN it is unpacked twice
        let dir = unpack(&zip, cache.path()).unwrap();
        let again = unpack(&zip, cache.path()).unwrap();
        // THEN both name one directory, with the files and the bootstrap executable
        assert_eq!(dir, again);
        assert_eq!(std::fs::read(dir.join("conf/data.txt")).unwrap(), b"x");
        assert!(is_executable(&dir.join("bootstrap")));
        assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_package_without_an_executable_bootstrap_is_refused() {
        let cache = tempfile::tempdir().unwrap();
        let not_executable = zip_of(&[("bootstrap", 0o100644, b"x")]);
        assert_eq!(
            unpack(&not_executable, cache.path()),
            Err(CodeError::NoBootstrap)
        );
        let missing = zip_of(&[("main", 0o100755, b"x")]);
        assert_eq!(unpack(&missing, cache.path()), Err(CodeError::NoBootstrap));
    }

    #[test]
    fn garbage_and_escaping_names_are_not_a_zip() {
        let cache = tempfile::tempdir().unwrap();
        assert_eq!(
            unpack(b"not a zip at all, certainly", cache.path()),
            Err(CodeError::NotAZip)
        );
        let escaping = zip_of(&[("../evil", 0o100755, b"x")]);
        assert_eq!(unpack(&escaping, cache.path()), Err(CodeError::NotAZip));
    }

    #[test]
    fn deflated_entries_are_inflated() {
        use std::io::Write;
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&b"hello ".repeat(100)).unwrap();
        let deflated = enc.finish().unwrap();
        let mut zip = zip_of(&[("bootstrap", 0o100755, &deflated)]);
        // method 8 (deflate) in the local and central headers; sizes differ only in the uncompressed field
        zip[8] = 8;
        let cd = zip
            .windows(4)
            .position(|w| w == [0x50, 0x4b, 0x01, 0x02])
            .unwrap();
        zip[cd + 10] = 8;
        zip[cd + 24..cd + 28].copy_from_slice(&600u32.to_le_bytes());
        let entries = read_zip(&zip).unwrap();
        assert_eq!(entries[0].data, b"hello ".repeat(100));
    }
}
