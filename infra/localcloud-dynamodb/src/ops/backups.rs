//! UpdateContinuousBackups and DescribeContinuousBackups: point-in-time
//! recovery as a setting. Continuous backups are always on (as on AWS); the
//! local cloud keeps no history to restore from, so only the setting is
//! kept and reported (docs/divergences-dynamodb.md).
//! https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContinuousBackups.html

use serde::Deserialize;
use serde_json::{json, Value};

use crate::codec::{decode, encode};
use crate::error::{validation, DdbError, DdbResult};
use crate::ops::control::now_seconds;
use crate::registry::DynamoDb;
use crate::table::{Recovery, Table};

/// The default and largest recovery period.
const MAX_RECOVERY_DAYS: i64 = 35;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RecoverySpec {
    point_in_time_recovery_enabled: Option<bool>,
    recovery_period_in_days: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BackupsInput {
    table_name: Option<String>,
    point_in_time_recovery_specification: Option<RecoverySpec>,
}

pub fn update_continuous_backups(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: BackupsInput = decode(body)?;
    let spec = input.point_in_time_recovery_specification.ok_or_else(|| {
        validation("1 validation error detected: Value null at 'pointInTimeRecoverySpecification' failed to satisfy constraint: Member must not be null")
    })?;
    let enabled = spec.point_in_time_recovery_enabled.ok_or_else(|| {
        validation("1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null")
    })?;
    let days = match spec.recovery_period_in_days {
        None => MAX_RECOVERY_DAYS,
        Some(d) if (1..=MAX_RECOVERY_DAYS).contains(&d) => d,
        Some(d) => return Err(validation(format!(
            "1 validation error detected: Value '{d}' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value {}",
            if d < 1 { "greater than or equal to 1" } else { "less than or equal to 35" }
        ))),
    };
    if !enabled && spec.recovery_period_in_days.is_some() {
        return Err(validation(
            "RecoveryPeriodInDays can only be specified when PointInTimeRecoveryEnabled is true",
        ));
    }
    let table = backup_table(db, input.table_name.as_deref())?;
    {
        let mut meta = table.meta.lock();
        meta.recovery = match (enabled, meta.recovery.take()) {
            (false, _) => None,
            (true, Some(current)) => Some(Recovery {
                days: days as u32,
                ..current
            }),
            (true, None) => Some(Recovery {
                days: days as u32,
                since: now_seconds(),
            }),
        };
    }
    encode(&json!({"ContinuousBackupsDescription": description(&table)}))
}

pub fn describe_continuous_backups(db: &DynamoDb, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: BackupsInput = decode(body)?;
    let table = backup_table(db, input.table_name.as_deref())?;
    encode(&json!({"ContinuousBackupsDescription": description(&table)}))
}

/// These operations name a missing table `TableNotFoundException`.
fn backup_table(db: &DynamoDb, name: Option<&str>) -> DdbResult<std::sync::Arc<Table>> {
    db.table(name).map_err(|e| match e {
        DdbError::ResourceNotFound(_) => {
            DdbError::TableNotFound(format!("Table not found: {}", name.unwrap_or_default()))
        }
        other => other,
    })
}

fn description(table: &Table) -> Value {
    let recovery = match &table.meta.lock().recovery {
        Some(r) => json!({
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": r.days,
            "EarliestRestorableDateTime": r.since,
            "LatestRestorableDateTime": now_seconds(),
        }),
        None => json!({"PointInTimeRecoveryStatus": "DISABLED"}),
    };
    json!({
        "ContinuousBackupsStatus": "ENABLED",
        "PointInTimeRecoveryDescription": recovery,
    })
}
