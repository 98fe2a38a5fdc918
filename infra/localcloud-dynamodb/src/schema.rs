//! Table definitions: what CreateTable accepts, how it is validated, and how
//! DescribeTable shows it.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::{validation, DdbResult};
use crate::key::{segment_hash, KeyAttr, KeySchema, KeyType};

// ---- CreateTable request, as the wire spells it ----

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct KeySchemaElement {
    pub attribute_name: String,
    pub key_type: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AttributeDefinition {
    pub attribute_name: String,
    pub attribute_type: String,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct ProjectionSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_key_attributes: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Throughput {
    pub read_capacity_units: Option<i64>,
    pub write_capacity_units: Option<i64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct IndexSpec {
    pub index_name: String,
    pub key_schema: Vec<KeySchemaElement>,
    pub projection: ProjectionSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct Tag {
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateTableInput {
    pub table_name: Option<String>,
    #[serde(default)]
    pub key_schema: Vec<KeySchemaElement>,
    #[serde(default)]
    pub attribute_definitions: Vec<AttributeDefinition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billing_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput: Option<Throughput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_secondary_indexes: Option<Vec<IndexSpec>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_secondary_indexes: Option<Vec<IndexSpec>>,
    /// Taken out at creation into the table's tags (`TableMeta`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<Tag>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_protection_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_class: Option<String>,
}

// ---- the validated definition ----

#[derive(Clone, Debug, PartialEq)]
pub enum Projection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct IndexDef {
    pub name: String,
    pub global: bool,
    pub keys: KeySchema,
    pub projection: Projection,
}

#[derive(Clone, Debug)]
pub struct TableDef {
    pub name: String,
    pub keys: KeySchema,
    pub indexes: Vec<IndexDef>,
    pub pay_per_request: bool,
    pub read_capacity: i64,
    pub write_capacity: i64,
    pub created_at: f64,
    pub deletion_protection: bool,
    /// STANDARD or STANDARD_INFREQUENT_ACCESS, when set.
    pub table_class: Option<String>,
    /// The request it was created from, kept for snapshots.
    pub input: CreateTableInput,
}

impl TableDef {
    pub fn from_input(input: CreateTableInput, created_at: f64) -> DdbResult<TableDef> {
        let name = input
            .table_name
            .clone()
            .ok_or_else(|| validation("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"))?;
        check_name(&name)?;
        let attr_type = |attr: &str| -> DdbResult<KeyType> {
            let def = input.attribute_definitions.iter().find(|d| d.attribute_name == attr).ok_or_else(|| {
                validation(format!(
                    "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [{attr}], AttributeDefinitions: [{}]",
                    input.attribute_definitions.iter().map(|d| d.attribute_name.as_str()).collect::<Vec<_>>().join(", ")
                ))
            })?;
            parse_key_type(&def.attribute_type)
        };
        let keys = key_schema(&input.key_schema, &attr_type)?;
        let mut indexes = Vec::new();
        for spec in input.local_secondary_indexes.iter().flatten() {
            let index = index_def(spec, false, &attr_type)?;
            if keys.range.is_none() {
                return Err(validation("One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"));
            }
            if index.keys.hash != keys.hash || index.keys.range.is_none() {
                return Err(validation(format!(
                    "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: {}. index hash key: {}, table hash key: {}",
                    index.name, index.keys.hash.name, keys.hash.name
                )));
            }
            indexes.push(index);
        }
        for spec in input.global_secondary_indexes.iter().flatten() {
            indexes.push(index_def(spec, true, &attr_type)?);
        }
        check_unique_index_names(&indexes)?;
        check_all_definitions_used(&input, &keys, &indexes)?;
        let pay_per_request = billing(&input)?;
        let table_class = match input.table_class.as_deref() {
            None => None,
            Some(class @ ("STANDARD" | "STANDARD_INFREQUENT_ACCESS")) => Some(class.to_string()),
            Some(other) => return Err(validation(format!(
                "1 validation error detected: Value '{other}' at 'tableClass' failed to satisfy constraint: Member must satisfy enum value set: [STANDARD_INFREQUENT_ACCESS, STANDARD]"
            ))),
        };
        let (read_capacity, write_capacity) = match &input.provisioned_throughput {
            Some(t) => (
                t.read_capacity_units.unwrap_or(0),
                t.write_capacity_units.unwrap_or(0),
            ),
            None => (0, 0),
        };
        Ok(TableDef {
            name,
            keys,
            indexes,
            pay_per_request,
            read_capacity,
            write_capacity,
            created_at,
            deletion_protection: input.deletion_protection_enabled.unwrap_or(false),
            table_class,
            input,
        })
    }

    pub fn index(&self, name: &str) -> Option<(usize, &IndexDef)> {
        self.indexes
            .iter()
            .enumerate()
            .find(|(_, i)| i.name == name)
    }

    pub fn arn(&self, region: &str, account: &str) -> String {
        format!("arn:aws:dynamodb:{region}:{account}:table/{}", self.name)
    }

    /// The `TableDescription` shape of DescribeTable; `stats` gives item count
    /// and bytes of the table and then of each index, in `indexes` order.
    pub fn describe(
        &self,
        region: &str,
        account: &str,
        status: &str,
        stats: &[(usize, usize)],
    ) -> Value {
        let arn = self.arn(region, account);
        let throughput = |r: i64, w: i64| json!({"NumberOfDecreasesToday": 0, "ReadCapacityUnits": r, "WriteCapacityUnits": w});
        let mut table = json!({
            "AttributeDefinitions": self.input.attribute_definitions,
            "TableName": self.name,
            "KeySchema": self.input.key_schema,
            "TableStatus": status,
            "CreationDateTime": self.created_at,
            "ProvisionedThroughput": throughput(self.read_capacity, self.write_capacity),
            "TableSizeBytes": stats.first().map_or(0, |s| s.1),
            "ItemCount": stats.first().map_or(0, |s| s.0),
            "TableArn": arn,
            "TableId": table_id(&self.name, self.created_at),
            "DeletionProtectionEnabled": self.deletion_protection,
        });
        if let Some(class) = &self.table_class {
            table["TableClassSummary"] = json!({"TableClass": class});
        }
        if self.pay_per_request {
            table["BillingModeSummary"] = json!({"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": self.created_at});
        }
        let describe_index = |i: usize, index: &IndexDef, spec: &IndexSpec| {
            let (count, bytes) = stats.get(i + 1).copied().unwrap_or((0, 0));
            let mut out = json!({
                "IndexName": index.name,
                "KeySchema": spec.key_schema,
                "Projection": spec.projection,
                "IndexSizeBytes": bytes,
                "ItemCount": count,
                "IndexArn": format!("{arn}/index/{}", index.name),
            });
            if index.global {
                out["IndexStatus"] = json!("ACTIVE");
                let (r, w) = spec.provisioned_throughput.as_ref().map_or((0, 0), |t| {
                    (
                        t.read_capacity_units.unwrap_or(0),
                        t.write_capacity_units.unwrap_or(0),
                    )
                });
                out["ProvisionedThroughput"] = throughput(r, w);
            }
            out
        };
        let specs_of = |global: bool| -> Vec<Value> {
            let specs = if global {
                &self.input.global_secondary_indexes
            } else {
                &self.input.local_secondary_indexes
            };
            self.indexes
                .iter()
                .enumerate()
                .filter(|(_, ix)| ix.global == global)
                .filter_map(|(i, ix)| {
                    let spec = specs.iter().flatten().find(|s| s.index_name == ix.name)?;
                    Some(describe_index(i, ix, spec))
                })
                .collect()
        };
        let lsis = specs_of(false);
        if !lsis.is_empty() {
            table["LocalSecondaryIndexes"] = Value::Array(lsis);
        }
        let gsis = specs_of(true);
        if !gsis.is_empty() {
            table["GlobalSecondaryIndexes"] = Value::Array(gsis);
        }
        table
    }
}

fn table_id(name: &str, created_at: f64) -> String {
    let h = segment_hash(format!("{name}/{created_at}").as_bytes());
    let l = segment_hash(format!("{created_at}/{name}").as_bytes());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0x0fff,
        ((l >> 48) & 0x3fff) | 0x8000,
        l & 0xffff_ffff_ffff
    )
}

pub fn check_name(name: &str) -> DdbResult<()> {
    let ok = (3..=255).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(validation("Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"))
    }
}

fn parse_key_type(code: &str) -> DdbResult<KeyType> {
    match code {
        "S" => Ok(KeyType::S),
        "N" => Ok(KeyType::N),
        "B" => Ok(KeyType::B),
        other => Err(validation(format!(
            "1 validation error detected: Value '{other}' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"
        ))),
    }
}

fn key_schema(
    elements: &[KeySchemaElement],
    attr_type: &dyn Fn(&str) -> DdbResult<KeyType>,
) -> DdbResult<KeySchema> {
    let attr = |e: &KeySchemaElement| -> DdbResult<KeyAttr> {
        Ok(KeyAttr {
            name: e.attribute_name.clone(),
            ty: attr_type(&e.attribute_name)?,
        })
    };
    match elements {
        [hash] if hash.key_type == "HASH" => Ok(KeySchema { hash: attr(hash)?, range: None }),
        [hash, range] if hash.key_type == "HASH" && range.key_type == "RANGE" => {
            if hash.attribute_name == range.attribute_name {
                return Err(validation("Both the Hash Key and the Range Key element in the KeySchema have the same name"));
            }
            Ok(KeySchema { hash: attr(hash)?, range: Some(attr(range)?) })
        }
        [] => Err(validation("1 validation error detected: Value null at 'keySchema' failed to satisfy constraint: Member must not be null")),
        [_] | [_, _] => Err(validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")),
        _ => Err(validation("1 validation error detected: Value at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2")),
    }
}

fn index_def(
    spec: &IndexSpec,
    global: bool,
    attr_type: &dyn Fn(&str) -> DdbResult<KeyType>,
) -> DdbResult<IndexDef> {
    check_name(&spec.index_name)?;
    let keys = key_schema(&spec.key_schema, attr_type)?;
    let projection = match (spec.projection.projection_type.as_deref(), &spec.projection.non_key_attributes) {
        (Some("ALL"), None) => Projection::All,
        (Some("KEYS_ONLY"), None) => Projection::KeysOnly,
        (Some("INCLUDE"), Some(attrs)) if !attrs.is_empty() => Projection::Include(attrs.clone()),
        (Some("INCLUDE"), _) => {
            return Err(validation("One or more parameter values were invalid: NonKeyAttributes must not be empty"))
        }
        (Some("ALL" | "KEYS_ONLY"), Some(_)) => {
            return Err(validation("One or more parameter values were invalid: ProjectionType is ALL or KEYS_ONLY, but NonKeyAttributes is specified"))
        }
        _ => return Err(validation("One or more parameter values were invalid: Unknown ProjectionType")),
    };
    Ok(IndexDef {
        name: spec.index_name.clone(),
        global,
        keys,
        projection,
    })
}

fn check_unique_index_names(indexes: &[IndexDef]) -> DdbResult<()> {
    for (i, a) in indexes.iter().enumerate() {
        if indexes[..i].iter().any(|b| b.name == a.name) {
            return Err(validation(format!(
                "One or more parameter values were invalid: Duplicate index name: {}",
                a.name
            )));
        }
    }
    Ok(())
}

fn check_all_definitions_used(
    input: &CreateTableInput,
    keys: &KeySchema,
    indexes: &[IndexDef],
) -> DdbResult<()> {
    let used = |name: &str| {
        keys.is_key_attribute(name) || indexes.iter().any(|i| i.keys.is_key_attribute(name))
    };
    if input
        .attribute_definitions
        .iter()
        .all(|d| used(&d.attribute_name))
    {
        Ok(())
    } else if indexes.is_empty() {
        Err(validation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"))
    } else {
        Err(validation("One or more parameter values were invalid: Some AttributeDefinitions are not used. AttributeDefinitions: [".to_string()
            + &input.attribute_definitions.iter().map(|d| d.attribute_name.as_str()).collect::<Vec<_>>().join(", ")
            + "], keys used: ["
            + &keys.attrs().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
            + "]"))
    }
}

/// Whether the table bills per request, checking the throughput that goes with the mode.
fn billing(input: &CreateTableInput) -> DdbResult<bool> {
    let gsi_throughput = input
        .global_secondary_indexes
        .iter()
        .flatten()
        .any(|g| g.provisioned_throughput.is_some());
    match input.billing_mode.as_deref() {
        Some("PAY_PER_REQUEST") => {
            if input.provisioned_throughput.is_some() || gsi_throughput {
                return Err(validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"));
            }
            Ok(true)
        }
        None | Some("PROVISIONED") => {
            let ok = |t: &Option<Throughput>| {
                matches!(t, Some(Throughput { read_capacity_units: Some(r), write_capacity_units: Some(w) }) if *r >= 1 && *w >= 1)
            };
            if !ok(&input.provisioned_throughput) {
                return Err(validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"));
            }
            if input.global_secondary_indexes.iter().flatten().any(|g| !ok(&g.provisioned_throughput)) {
                return Err(validation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index when BillingMode is PROVISIONED"));
            }
            Ok(false)
        }
        Some(other) => Err(validation(format!(
            "1 validation error detected: Value '{other}' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"
        ))),
    }
}
