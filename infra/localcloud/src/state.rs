//! The state file (`localcloud serve --state-file`): DynamoDB tables and SQS
//! queues with their messages, saved on a clean shutdown and loaded at start.
//!
//! Saving writes a temporary file beside the state file, flushes it to disk,
//! then renames it over the old one, so a kill at any moment leaves either the
//! old file or the new one, never a mix. Loading reads and checks the whole
//! file before any service is built: a truncated or corrupt file stops the
//! start with an error naming it, and nothing is half-loaded.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use localcloud_dynamodb::{DynamoDb, DynamoDbConfig, DynamoSnapshot};
use localcloud_sqs::{SqsService, SqsSnapshot};
use serde::{Deserialize, Serialize};

/// Tells a state file from any other JSON document, and its layout version.
const FORMAT: &str = "localcloud-state/1";

#[derive(Serialize, Deserialize)]
struct StateFile {
    format: String,
    dynamodb: DynamoSnapshot,
    sqs: SqsSnapshot,
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot read the state file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the state file {path} is truncated or corrupt ({source}); nothing was loaded. \
         Remove it to start empty, or restore a good copy"
    )]
    Corrupt {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path} is not a local cloud state file (format {found:?}, expected {FORMAT:?})")]
    Format { path: PathBuf, found: String },
    #[error("the state file {path} cannot be restored: {reason}; nothing was loaded")]
    Content { path: PathBuf, reason: String },
    #[error("cannot write the state file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The data services, as a state file held them.
pub struct Restored {
    pub dynamodb: Arc<DynamoDb>,
    pub sqs: Arc<SqsService>,
}

/// The services as saved at `path`, or `None` when there is no such file
/// (the first start). `endpoint` is the base of the restored queue URLs.
pub fn load(
    path: &Path,
    dynamodb: DynamoDbConfig,
    endpoint: &str,
) -> Result<Option<Restored>, StateError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StateError::Read {
                path: path.into(),
                source,
            })
        }
    };
    let state: StateFile = serde_json::from_slice(&bytes).map_err(|source| {
        // A document of another kind says so, rather than "missing field".
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(value) if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) => {
                StateError::Format {
                    path: path.into(),
                    found: value["format"].as_str().unwrap_or("none").into(),
                }
            }
            _ => StateError::Corrupt {
                path: path.into(),
                source,
            },
        }
    })?;
    let content = |reason: String| StateError::Content {
        path: path.into(),
        reason,
    };
    let db = DynamoDb::restore(state.dynamodb, dynamodb).map_err(|e| content(e.to_string()))?;
    let sqs = Arc::new(SqsService::new(endpoint));
    sqs.restore(state.sqs)
        .map_err(|e| content(format!("SQS: {}", e.message)))?;
    Ok(Some(Restored { dynamodb: db, sqs }))
}

/// Writes the services' state to `path` atomically (temporary file, flush,
/// rename, then the directory is flushed so the rename itself is durable).
pub fn save(path: &Path, dynamodb: &DynamoDb, sqs: &SqsService) -> Result<(), StateError> {
    let state = StateFile {
        format: FORMAT.into(),
        dynamodb: dynamodb.snapshot(),
        sqs: sqs.snapshot(),
    };
    let write_error = |source| StateError::Write {
        path: path.into(),
        source,
    };
    let bytes = serde_json::to_vec(&state).map_err(|e| write_error(e.into()))?;
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = std::fs::File::create(&tmp).map_err(write_error)?;
    file.write_all(&bytes).map_err(write_error)?;
    file.sync_all().map_err(write_error)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(write_error)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}
