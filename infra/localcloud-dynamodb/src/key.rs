//! Key values as they are stored and ordered: DynamoDB keys are S, N or B, and
//! sort by UTF-8 bytes, numerically and by unsigned bytes respectively.

use dynamodb_lang::{AttributeValue, Item, Number};
use serde::{Deserialize, Serialize};

use crate::error::{validation, DdbResult};

/// One scalar key value. Within one key attribute all values share a type, so
/// the order across variants never matters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyPart {
    S(String),
    N(Number),
    B(Vec<u8>),
}

impl KeyPart {
    pub fn to_value(&self) -> AttributeValue {
        match self {
            KeyPart::S(s) => AttributeValue::S(s.clone()),
            KeyPart::N(n) => AttributeValue::N(n.clone()),
            KeyPart::B(b) => AttributeValue::B(b.clone()),
        }
    }

    /// The key part of a value already checked to be S, N or B (anything else
    /// maps to an empty binary, which sorts first).
    pub fn from_scalar(value: &AttributeValue) -> KeyPart {
        match value {
            AttributeValue::S(s) => KeyPart::S(s.clone()),
            AttributeValue::N(n) => KeyPart::N(n.clone()),
            AttributeValue::B(b) => KeyPart::B(b.clone()),
            _ => KeyPart::B(Vec::new()),
        }
    }

    /// The key part for `value` if it has the scalar type `ty`.
    pub fn from_value(value: &AttributeValue, ty: KeyType) -> Option<KeyPart> {
        match (value, ty) {
            (AttributeValue::S(s), KeyType::S) => Some(KeyPart::S(s.clone())),
            (AttributeValue::N(n), KeyType::N) => Some(KeyPart::N(n.clone())),
            (AttributeValue::B(b), KeyType::B) => Some(KeyPart::B(b.clone())),
            _ => None,
        }
    }

    fn byte_len(&self) -> usize {
        match self {
            KeyPart::S(s) => s.len(),
            KeyPart::B(b) => b.len(),
            KeyPart::N(_) => 0,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            KeyPart::S(s) => s.is_empty(),
            KeyPart::B(b) => b.is_empty(),
            KeyPart::N(_) => false,
        }
    }

    /// Bytes for the parallel-scan segment hash; stable across runs.
    pub fn hash_bytes(&self) -> Vec<u8> {
        match self {
            KeyPart::S(s) => s.as_bytes().to_vec(),
            KeyPart::N(n) => n.to_string().into_bytes(),
            KeyPart::B(b) => b.clone(),
        }
    }
}

/// The primary key of one item: hash part and, for composite keys, range part.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PrimaryKey {
    pub hash: KeyPart,
    pub range: Option<KeyPart>,
}

/// The scalar type of a key attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyType {
    S,
    N,
    B,
}

impl KeyType {
    pub fn code(self) -> &'static str {
        match self {
            KeyType::S => "S",
            KeyType::N => "N",
            KeyType::B => "B",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct KeyAttr {
    pub name: String,
    pub ty: KeyType,
}

/// The hash and range attributes of a table or an index.
#[derive(Clone, Debug, PartialEq)]
pub struct KeySchema {
    pub hash: KeyAttr,
    pub range: Option<KeyAttr>,
}

impl KeySchema {
    pub fn attrs(&self) -> impl Iterator<Item = &KeyAttr> {
        std::iter::once(&self.hash).chain(self.range.as_ref())
    }

    pub fn is_key_attribute(&self, name: &str) -> bool {
        self.attrs().any(|a| a.name == name)
    }

    /// The key of an item about to be written, checked as PutItem checks it.
    pub fn key_of_new_item(&self, item: &Item) -> DdbResult<PrimaryKey> {
        let part = |attr: &KeyAttr| -> DdbResult<KeyPart> {
            let value = item.get(&attr.name).ok_or_else(|| {
                validation(format!(
                    "One or more parameter values were invalid: Missing the key {} in the item",
                    attr.name
                ))
            })?;
            let part = KeyPart::from_value(value, attr.ty).ok_or_else(|| {
                validation(format!(
                    "One or more parameter values were invalid: Type mismatch for key {} expected: {} actual: {}",
                    attr.name,
                    attr.ty.code(),
                    value.type_code()
                ))
            })?;
            if part.is_empty() {
                return Err(empty_key(&attr.name));
            }
            Ok(part)
        };
        check_key_sizes(PrimaryKey {
            hash: part(&self.hash)?,
            range: self.range.as_ref().map(part).transpose()?,
        })
    }

    /// The key named by a `Key` parameter (GetItem, DeleteItem, ...): exactly the
    /// key attributes, of the right types.
    pub fn key_from_request(&self, key: &Item) -> DdbResult<PrimaryKey> {
        let mismatch = || validation("The provided key element does not match the schema");
        if key.len() != 1 + usize::from(self.range.is_some()) {
            return Err(mismatch());
        }
        let part = |attr: &KeyAttr| -> DdbResult<KeyPart> {
            let value = key.get(&attr.name).ok_or_else(mismatch)?;
            let part = KeyPart::from_value(value, attr.ty).ok_or_else(mismatch)?;
            if part.is_empty() {
                return Err(empty_key(&attr.name));
            }
            Ok(part)
        };
        check_key_sizes(PrimaryKey {
            hash: part(&self.hash)?,
            range: self.range.as_ref().map(part).transpose()?,
        })
    }

    /// The key of a stored item for an index; `None` when the item lacks one of
    /// the index's key attributes (it is then not in the index).
    pub fn index_key_of(&self, item: &Item) -> Option<(KeyPart, Option<KeyPart>)> {
        let part = |attr: &KeyAttr| {
            item.get(&attr.name)
                .and_then(|v| KeyPart::from_value(v, attr.ty))
        };
        let hash = part(&self.hash)?;
        let range = match &self.range {
            Some(attr) => Some(part(attr)?),
            None => None,
        };
        Some((hash, range))
    }

    /// Rebuilds the key attributes of an item as a map (for LastEvaluatedKey).
    pub fn key_item(&self, hash: &KeyPart, range: Option<&KeyPart>) -> Item {
        let mut out = Item::new();
        out.insert(self.hash.name.clone(), hash.to_value());
        if let (Some(attr), Some(range)) = (&self.range, range) {
            out.insert(attr.name.clone(), range.to_value());
        }
        out
    }
}

const MAX_HASH_BYTES: usize = 2048;
const MAX_RANGE_BYTES: usize = 1024;

/// AWS limits key values to 2048 bytes (hash) and 1024 bytes (range).
fn check_key_sizes(key: PrimaryKey) -> DdbResult<PrimaryKey> {
    if key.hash.byte_len() > MAX_HASH_BYTES {
        return Err(validation(
            "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes",
        ));
    }
    if key
        .range
        .as_ref()
        .is_some_and(|r| r.byte_len() > MAX_RANGE_BYTES)
    {
        return Err(validation(
            "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes",
        ));
    }
    Ok(key)
}

fn empty_key(name: &str) -> crate::error::DdbError {
    validation(format!(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: {name}"
    ))
}

/// FNV-1a: a fixed hash so that Scan segments are stable across processes.
pub fn segment_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}
