//! Document paths (`a.b[2].c`) with placeholders already substituted, and how they
//! read and write nested values.

use crate::value::{AttributeValue, Item};

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathElement {
    Attribute(String),
    Index(usize),
}

/// A resolved path; the first element is always an attribute name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentPath(pub Vec<PathElement>);

/// The path cannot be walked for an update (missing or wrongly typed parent).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct InvalidPath;

impl DocumentPath {
    pub fn top_level(&self) -> &str {
        match self.0.first() {
            Some(PathElement::Attribute(name)) => name,
            _ => "",
        }
    }

    /// AWS's rendering in overlap messages: `[a, b, [2]]`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|e| match e {
                PathElement::Attribute(name) => name.clone(),
                PathElement::Index(i) => format!("[{i}]"),
            })
            .collect();
        format!("[{}]", parts.join(", "))
    }

    pub fn get<'a>(&self, item: &'a Item) -> Option<&'a AttributeValue> {
        let (first, rest) = self.0.split_first()?;
        let PathElement::Attribute(name) = first else {
            return None;
        };
        rest.iter()
            .try_fold(item.get(name)?, |current, element| child(current, element))
    }

    /// Sets the value, creating only the last element; past-the-end list indexes append.
    pub(crate) fn set(&self, item: &mut Item, value: AttributeValue) -> Result<(), InvalidPath> {
        let Some((last, parents)) = self.0.split_last() else {
            return Err(InvalidPath);
        };
        if parents.is_empty() {
            let PathElement::Attribute(name) = last else {
                return Err(InvalidPath);
            };
            item.insert(name.clone(), value);
            return Ok(());
        }
        let parent = walk_mut(item, parents).ok_or(InvalidPath)?;
        match (parent, last) {
            (AttributeValue::M(map), PathElement::Attribute(name)) => {
                map.insert(name.clone(), value);
                Ok(())
            }
            (AttributeValue::L(list), PathElement::Index(i)) => {
                match list.get_mut(*i) {
                    Some(slot) => *slot = value,
                    None => list.push(value),
                }
                Ok(())
            }
            _ => Err(InvalidPath),
        }
    }

    /// Removes the value if present; a missing leaf is no error, a path through a
    /// missing or wrongly typed parent is.
    pub(crate) fn remove(&self, item: &mut Item) -> Result<(), InvalidPath> {
        let Some((last, parents)) = self.0.split_last() else {
            return Err(InvalidPath);
        };
        if parents.is_empty() {
            if let PathElement::Attribute(name) = last {
                item.remove(name);
            }
            return Ok(());
        }
        let parent = walk_mut(item, parents).ok_or(InvalidPath)?;
        match (parent, last) {
            (AttributeValue::M(map), PathElement::Attribute(name)) => {
                map.remove(name);
                Ok(())
            }
            (AttributeValue::L(list), PathElement::Index(i)) => {
                if *i < list.len() {
                    list.remove(*i);
                }
                Ok(())
            }
            _ => Err(InvalidPath),
        }
    }

    /// Whether the parent of the last element exists with the right container type.
    pub(crate) fn parent_is_valid(&self, item: &Item) -> bool {
        let Some((last, parents)) = self.0.split_last() else {
            return false;
        };
        if parents.is_empty() {
            return true;
        }
        let parent = DocumentPath(parents.to_vec());
        matches!(
            (parent.get(item), last),
            (Some(AttributeValue::M(_)), PathElement::Attribute(_))
                | (Some(AttributeValue::L(_)), PathElement::Index(_))
        )
    }
}

fn child<'a>(value: &'a AttributeValue, element: &PathElement) -> Option<&'a AttributeValue> {
    match (value, element) {
        (AttributeValue::M(map), PathElement::Attribute(name)) => map.get(name),
        (AttributeValue::L(list), PathElement::Index(i)) => list.get(*i),
        _ => None,
    }
}

fn walk_mut<'a>(item: &'a mut Item, path: &[PathElement]) -> Option<&'a mut AttributeValue> {
    let (first, rest) = path.split_first()?;
    let PathElement::Attribute(name) = first else {
        return None;
    };
    let mut current = item.get_mut(name)?;
    for element in rest {
        current = match (current, element) {
            (AttributeValue::M(map), PathElement::Attribute(name)) => map.get_mut(name)?,
            (AttributeValue::L(list), PathElement::Index(i)) => list.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(current)
}

/// AWS rejects two paths in one expression when one is a prefix of the other
/// ("overlap") or when they diverge by a name against an index ("conflict").
pub(crate) fn check_overlap(paths: &[DocumentPath]) -> Result<(), String> {
    for (i, later) in paths.iter().enumerate() {
        for earlier in &paths[..i] {
            if let Some(message) = overlap_message(earlier, later) {
                return Err(message);
            }
        }
    }
    Ok(())
}

fn overlap_message(one: &DocumentPath, two: &DocumentPath) -> Option<String> {
    let describe = || format!("path one: {}, path two: {}", one.describe(), two.describe());
    for (a, b) in one.0.iter().zip(&two.0) {
        match (a, b) {
            (PathElement::Attribute(_), PathElement::Index(_))
            | (PathElement::Index(_), PathElement::Attribute(_)) => {
                return Some(format!(
                    "Two document paths conflict with each other; must remove or rewrite one of these paths; {}",
                    describe()
                ))
            }
            _ if a != b => return None,
            _ => {}
        }
    }
    Some(format!(
        "Two document paths overlap with each other; must remove or rewrite one of these paths; {}",
        describe()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(s: &str) -> PathElement {
        PathElement::Attribute(s.into())
    }

    #[test]
    fn overlap_names_both_paths_like_aws() {
        let a = DocumentPath(vec![attr("a")]);
        let ab = DocumentPath(vec![attr("a"), attr("b")]);
        assert_eq!(
            check_overlap(&[a.clone(), ab]).unwrap_err(),
            "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"
        );
        let a0 = DocumentPath(vec![attr("a"), PathElement::Index(0)]);
        let ax = DocumentPath(vec![attr("a"), attr("x")]);
        assert!(check_overlap(&[a0, ax])
            .unwrap_err()
            .starts_with("Two document paths conflict"));
        let b = DocumentPath(vec![attr("b")]);
        assert!(check_overlap(&[a, b]).is_ok());
    }

    #[test]
    fn set_appends_past_the_end_of_a_list() {
        let mut item: Item = [(
            "l".to_string(),
            AttributeValue::L(vec![AttributeValue::Null]),
        )]
        .into();
        let path = DocumentPath(vec![attr("l"), PathElement::Index(9)]);
        path.set(&mut item, AttributeValue::Bool(true)).unwrap();
        assert_eq!(
            item["l"],
            AttributeValue::L(vec![AttributeValue::Null, AttributeValue::Bool(true)])
        );
    }

    #[test]
    fn set_under_a_missing_parent_is_invalid() {
        let mut item = Item::new();
        let path = DocumentPath(vec![attr("a"), attr("b")]);
        assert_eq!(path.set(&mut item, AttributeValue::Null), Err(InvalidPath));
        assert!(item.is_empty());
    }
}
