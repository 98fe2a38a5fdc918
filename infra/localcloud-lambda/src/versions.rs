//! A function's published versions and aliases: what `PublishVersion`, the
//! alias operations and qualified invokes read and change. A version is a
//! snapshot of the function's code and configuration that does not change
//! ("Manage Lambda function versions",
//! https://docs.aws.amazon.com/lambda/latest/dg/configuration-versions.html);
//! an alias points to one version, or splits invocations between two.
//!
//! Every version runs in the function's own execution environments, with
//! its current code and configuration: the local cloud cannot change a
//! function while it runs, so a snapshot differs from `$LATEST` only for a
//! binary rebuilt underneath it or a version kept from the stack's previous
//! deployment, which shows its snapshot but runs today's function (see
//! docs/managed-instances.md).

use std::collections::BTreeMap;
use std::sync::Arc;

use localcloud_core::context::new_request_id;
use parking_lot::Mutex;

use crate::config::Publication;
pub use crate::config::{Code, CodeReader, InheritedVersion, Snapshot};
use crate::names::{self, Qualifier, LATEST, LATEST_PUBLISHED};

/// The number `PublishVersion` gives `current` after `inherited` (oldest
/// first): the last one's when nothing changed, else the next.
pub fn next_version(inherited: &[InheritedVersion], current: &Snapshot) -> u64 {
    match inherited.last() {
        Some(last) if last.snapshot.same_function(current) => last.number,
        Some(last) => last.number + 1,
        None => 1,
    }
}

/// A published version.
#[derive(Debug, Clone)]
pub struct Version {
    /// `1`, `2`... or `$LATEST.PUBLISHED`.
    pub name: String,
    pub snapshot: Arc<Snapshot>,
    pub description: String,
    pub revision_id: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Alias {
    pub name: String,
    pub function_version: String,
    pub description: String,
    /// `RoutingConfig.AdditionalVersionWeights`: version -> share of invocations.
    pub additional_weights: BTreeMap<String, f64>,
    pub revision_id: String,
}

/// A change to an alias (`UpdateAlias`): what is `None` stays.
#[derive(Debug, Clone, Default)]
pub struct AliasUpdate {
    pub function_version: Option<String>,
    pub description: Option<String>,
    pub additional_weights: Option<BTreeMap<String, f64>>,
    pub revision_id: Option<String>,
}

/// What a qualifier resolves to.
#[derive(Debug, Clone)]
pub struct Target {
    /// The version that runs (`X-Amz-Executed-Version`).
    pub version: String,
    /// That version as published; `None` for `$LATEST`.
    pub published: Option<Version>,
}

impl Target {
    fn latest() -> Self {
        Self {
            version: LATEST.to_string(),
            published: None,
        }
    }

    fn of(version: &Version) -> Self {
        Self {
            version: version.name.clone(),
            published: Some(version.clone()),
        }
    }
}

/// How an invocation was addressed.
#[derive(Debug, Clone, PartialEq)]
pub struct Invoked {
    /// The ARN the runtime reports as invoked (`Lambda-Runtime-Invoked-Function-Arn`):
    /// qualified when the invoke named a version or an alias, as on AWS.
    pub arn: String,
    /// The version that runs, for the START line.
    pub version: String,
}

/// The errors of the version and alias operations, each with Lambda's code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VersionError {
    /// 404 `ResourceNotFoundException`.
    #[error("{0}")]
    NotFound(String),
    /// 409 `ResourceConflictException`.
    #[error("{0}")]
    Conflict(String),
    /// 400 `InvalidParameterValueException`.
    #[error("{0}")]
    InvalidParameter(String),
    /// 412 `PreconditionFailedException`.
    #[error("{0}")]
    PreconditionFailed(String),
    /// 400 `ValidationException`: a parameter outside the API's pattern.
    #[error("{0}")]
    Validation(String),
}

impl VersionError {
    /// HTTP status and Lambda's error code.
    pub fn status_and_code(&self) -> (u16, &'static str) {
        match self {
            Self::NotFound(_) => (404, "ResourceNotFoundException"),
            Self::Conflict(_) => (409, "ResourceConflictException"),
            Self::InvalidParameter(_) => (400, "InvalidParameterValueException"),
            Self::PreconditionFailed(_) => (412, "PreconditionFailedException"),
            Self::Validation(_) => (400, "ValidationException"),
        }
    }
}

impl From<VersionError> for localcloud_core::InvokeError {
    fn from(err: VersionError) -> Self {
        let (status, code) = err.status_and_code();
        Self::Service {
            status,
            code: code.to_string(),
            message: err.to_string(),
        }
    }
}

/// One function's versions and aliases.
pub struct Versions {
    /// The function's unqualified ARN, for messages and qualified ARNs.
    arn: String,
    /// On Lambda Managed Instances, which have `$LATEST.PUBLISHED`.
    managed: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    numbered: Vec<Version>,
    latest_published: Option<Version>,
    aliases: BTreeMap<String, Alias>,
}

impl Versions {
    pub fn new(arn: &str, managed: bool) -> Self {
        Self {
            arn: arn.to_string(),
            managed,
            state: Mutex::new(State::default()),
        }
    }

    /// What a stack creates with the function: the versions its previous
    /// deployment published, `$LATEST.PUBLISHED` for a function on a
    /// capacity provider ("If you use AWS CloudFormation ... to create a
    /// Lambda Managed Instances function, Lambda automatically creates the
    /// $LATEST.PUBLISHED version", same page as [`LATEST_PUBLISHED`]), then
    /// `publication`'s version and aliases. `current` reads the function's
    /// code only when something is published.
    pub fn create(
        arn: &str,
        managed: bool,
        publication: &Publication,
        current: impl Fn() -> Snapshot,
    ) -> Result<Self, VersionError> {
        let versions = Self::new(arn, managed);
        versions.state.lock().numbered = publication
            .inherited
            .iter()
            .map(|v| Version {
                name: v.number.to_string(),
                snapshot: Arc::new(v.snapshot.clone()),
                description: v.description.clone(),
                revision_id: new_request_id(),
            })
            .collect();
        if managed {
            versions.publish(current(), None, None, true)?;
        }
        if publication.version {
            versions.publish(current(), None, None, false)?;
        }
        for alias in &publication.aliases {
            versions.create_alias(
                &alias.name,
                &alias.function_version,
                &alias.description,
                BTreeMap::new(),
            )?;
        }
        Ok(versions)
    }

    /// `PublishVersion`: a new numbered version of `current`, unless the last
    /// one has the same code and configuration ("Lambda doesn't publish a
    /// version if the function's configuration and code haven't changed since
    /// the last version",
    /// https://docs.aws.amazon.com/lambda/latest/api/API_PublishVersion.html);
    /// with `to_latest_published` (`PublishTo: LATEST_PUBLISHED`), a new
    /// `$LATEST.PUBLISHED` of a managed function.
    pub fn publish(
        &self,
        current: Snapshot,
        description: Option<String>,
        code_sha256: Option<&str>,
        to_latest_published: bool,
    ) -> Result<Version, VersionError> {
        if let Some(expected) = code_sha256.filter(|c| *c != current.code.sha256()) {
            return Err(VersionError::InvalidParameter(format!(
                "CodeSHA256 ({expected}) is different from current CodeSHA256 in $LATEST ({}). Please try again.",
                current.code.sha256()
            )));
        }
        let mut state = self.state.lock();
        let version = |name: String| Version {
            name,
            snapshot: Arc::new(current.clone()),
            description: description.clone().unwrap_or_default(),
            revision_id: new_request_id(),
        };
        if to_latest_published {
            if !self.managed {
                return Err(VersionError::InvalidParameter(
                    "PublishTo LATEST_PUBLISHED is only supported for functions with a capacity provider".into(),
                ));
            }
            let published = version(LATEST_PUBLISHED.to_string());
            state.latest_published = Some(published.clone());
            return Ok(published);
        }
        if let Some(last) = state
            .numbered
            .last()
            .filter(|v| v.snapshot.same_function(&current))
        {
            return Ok(last.clone());
        }
        let published = version((state.numbered.len() + 1).to_string());
        state.numbered.push(published.clone());
        Ok(published)
    }

    /// The numbered versions, for the stack's next deployment.
    pub fn inheritable(&self) -> Vec<InheritedVersion> {
        let state = self.state.lock();
        state
            .numbered
            .iter()
            .filter_map(|v| {
                Some(InheritedVersion {
                    number: v.name.parse().ok()?,
                    snapshot: (*v.snapshot).clone(),
                    description: v.description.clone(),
                })
            })
            .collect()
    }

    /// The published versions: numbered ones in order, then `$LATEST.PUBLISHED`.
    pub fn published(&self) -> Vec<Version> {
        let state = self.state.lock();
        state
            .numbered
            .iter()
            .chain(state.latest_published.as_ref())
            .cloned()
            .collect()
    }

    /// The version `qualifier` names, or an alias's version; unqualified, a
    /// managed function runs `$LATEST.PUBLISHED` when it has one ("When you
    /// invoke a Lambda Managed Instances function using an unqualified ARN,
    /// Lambda implicitly invokes the $LATEST.PUBLISHED version").
    pub fn resolve(&self, qualifier: Option<&str>) -> Result<Target, VersionError> {
        let state = self.state.lock();
        let Some(qualifier) = qualifier else {
            return Ok(match &state.latest_published {
                Some(published) => Target::of(published),
                None => Target::latest(),
            });
        };
        let version = match Qualifier::parse(qualifier) {
            Qualifier::Alias(name) => {
                let alias = state
                    .aliases
                    .get(name)
                    .ok_or_else(|| self.not_found(name))?;
                pick_version(alias, rand::random::<f64>()).to_string()
            }
            _ => qualifier.to_string(),
        };
        state
            .version(&version)
            .ok_or_else(|| self.not_found(&version))
    }

    /// `CreateAlias`.
    pub fn create_alias(
        &self,
        name: &str,
        function_version: &str,
        description: &str,
        additional_weights: BTreeMap<String, f64>,
    ) -> Result<Alias, VersionError> {
        if !names::is_valid_alias_name(name) {
            return Err(VersionError::Validation(format!(
                "1 validation error detected: Value '{name}' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: (?!^[0-9]+$)([a-zA-Z0-9-_]+)"
            )));
        }
        let mut state = self.state.lock();
        self.check_routing(&state, function_version, &additional_weights)?;
        if state.aliases.contains_key(name) {
            return Err(VersionError::Conflict(format!(
                "Alias already exists: {}",
                names::qualified_arn(&self.arn, name)
            )));
        }
        let alias = Alias {
            name: name.to_string(),
            function_version: function_version.to_string(),
            description: description.to_string(),
            additional_weights,
            revision_id: new_request_id(),
        };
        state.aliases.insert(name.to_string(), alias.clone());
        Ok(alias)
    }

    /// `UpdateAlias`; a `RevisionId` other than the alias's fails, as on AWS.
    pub fn update_alias(&self, name: &str, update: AliasUpdate) -> Result<Alias, VersionError> {
        let mut state = self.state.lock();
        let mut alias = state
            .aliases
            .get(name)
            .cloned()
            .ok_or_else(|| self.alias_not_found(name))?;
        if update
            .revision_id
            .as_ref()
            .is_some_and(|r| *r != alias.revision_id)
        {
            return Err(VersionError::PreconditionFailed(
                "The Revision Id provided does not match the latest Revision Id. Call the GetAlias API to retrieve the latest Revision Id".into(),
            ));
        }
        alias.function_version = update.function_version.unwrap_or(alias.function_version);
        alias.description = update.description.unwrap_or(alias.description);
        alias.additional_weights = update
            .additional_weights
            .unwrap_or(alias.additional_weights);
        self.check_routing(&state, &alias.function_version, &alias.additional_weights)?;
        alias.revision_id = new_request_id();
        state.aliases.insert(name.to_string(), alias.clone());
        Ok(alias)
    }

    /// `GetAlias`.
    pub fn alias(&self, name: &str) -> Result<Alias, VersionError> {
        let state = self.state.lock();
        state
            .aliases
            .get(name)
            .cloned()
            .ok_or_else(|| self.alias_not_found(name))
    }

    /// `DeleteAlias`. Deleting an alias that does not exist succeeds: the
    /// operation's errors do not include ResourceNotFoundException
    /// (https://docs.aws.amazon.com/lambda/latest/api/API_DeleteAlias.html).
    pub fn delete_alias(&self, name: &str) {
        self.state.lock().aliases.remove(name);
    }

    /// `ListAliases`, by name; with `function_version`, only its aliases.
    pub fn aliases(&self, function_version: Option<&str>) -> Vec<Alias> {
        let state = self.state.lock();
        state
            .aliases
            .values()
            .filter(|a| function_version.is_none_or(|v| a.function_version == v))
            .cloned()
            .collect()
    }

    /// An alias's versions must exist; a split needs weights from 0 to 1 and
    /// a published primary version.
    fn check_routing(
        &self,
        state: &State,
        function_version: &str,
        weights: &BTreeMap<String, f64>,
    ) -> Result<(), VersionError> {
        if matches!(Qualifier::parse(function_version), Qualifier::Alias(_)) {
            return Err(VersionError::Validation(format!(
                "1 validation error detected: Value '{function_version}' at 'functionVersion' failed to satisfy constraint: Member must satisfy regular expression pattern: (\\$LATEST|[0-9]+)"
            )));
        }
        for version in std::iter::once(function_version).chain(weights.keys().map(String::as_str)) {
            if state.version(version).is_none() {
                return Err(self.not_found(version));
            }
        }
        if weights.values().any(|w| !(0.0..=1.0).contains(w)) {
            return Err(VersionError::Validation(
                "1 validation error detected: Value at 'routingConfig.additionalVersionWeights' failed to satisfy constraint: Map value must satisfy constraint: [Member must have value less than or equal to 1.0, Member must have value greater than or equal to 0.0]".into(),
            ));
        }
        if !weights.is_empty() && function_version == LATEST {
            return Err(VersionError::InvalidParameter(
                "$LATEST is not supported for an alias pointing to more than 1 version".into(),
            ));
        }
        Ok(())
    }

    fn not_found(&self, qualifier: &str) -> VersionError {
        VersionError::NotFound(format!(
            "Function not found: {}",
            names::qualified_arn(&self.arn, qualifier)
        ))
    }

    fn alias_not_found(&self, name: &str) -> VersionError {
        VersionError::NotFound(format!(
            "Alias not found: {}",
            names::qualified_arn(&self.arn, name)
        ))
    }
}

impl State {
    /// `$LATEST`, a numbered version or `$LATEST.PUBLISHED`, if it exists.
    fn version(&self, name: &str) -> Option<Target> {
        match Qualifier::parse(name) {
            Qualifier::Latest => Some(Target::latest()),
            Qualifier::LatestPublished => self.latest_published.as_ref().map(Target::of),
            Qualifier::Number(n) => {
                let index = usize::try_from(n).ok()?.checked_sub(1)?;
                self.numbered.get(index).map(Target::of)
            }
            Qualifier::Alias(_) => None,
        }
    }
}

/// The version an invocation of `alias` runs, for `draw` uniform in [0, 1):
/// each additional version takes its weight's share, the primary the rest
/// ("Implement Lambda canary deployments using a weighted alias",
/// https://docs.aws.amazon.com/lambda/latest/dg/configuring-alias-routing.html).
pub fn pick_version(alias: &Alias, draw: f64) -> &str {
    let mut bound = 0.0;
    for (version, weight) in &alias.additional_weights {
        bound += weight;
        if draw < bound {
            return version;
        }
    }
    &alias.function_version
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FunctionConfig;

    const ARN: &str = "arn:aws:lambda:us-east-1:000000000000:function:orders";

    fn snapshot(memory_mb: u32) -> Snapshot {
        Snapshot {
            config: FunctionConfig {
                memory_mb,
                ..FunctionConfig::new("orders", "/bin/orders")
            },
            code: Code::known("sha", 1),
            last_modified: "2026-01-01T00:00:00.000+0000".into(),
        }
    }

    #[test]
    fn publishing_numbers_versions_and_keeps_the_snapshot() {
        let versions = Versions::new(ARN, false);
        let first = versions.publish(snapshot(128), None, None, false).unwrap();
        let second = versions
            .publish(snapshot(256), Some("big".into()), None, false)
            .unwrap();
        assert_eq!((first.name.as_str(), second.name.as_str()), ("1", "2"));
        let one = versions.resolve(Some("1")).unwrap();
        assert_eq!(one.published.unwrap().snapshot.config.memory_mb, 128);
        assert_eq!(second.description, "big");
    }

    #[test]
    fn publishing_an_unchanged_function_returns_the_last_version() {
        let versions = Versions::new(ARN, false);
        versions.publish(snapshot(128), None, None, false).unwrap();
        let again = versions.publish(snapshot(128), None, None, false).unwrap();
        assert_eq!(again.name, "1");
        assert_eq!(versions.published().len(), 1);
    }

    #[test]
    fn a_code_sha256_other_than_latest_s_is_refused() {
        let versions = Versions::new(ARN, false);
        let err = versions
            .publish(snapshot(128), None, Some("other"), false)
            .unwrap_err();
        assert_eq!(
            err,
            VersionError::InvalidParameter(
                "CodeSHA256 (other) is different from current CodeSHA256 in $LATEST (sha). Please try again.".into()
            )
        );
        assert!(versions
            .publish(snapshot(128), None, Some("sha"), false)
            .is_ok());
    }

    #[test]
    fn latest_published_is_for_managed_functions_and_runs_unqualified() {
        let on_demand = Versions::new(ARN, false);
        assert!(matches!(
            on_demand.publish(snapshot(128), None, None, true),
            Err(VersionError::InvalidParameter(_))
        ));
        assert_eq!(on_demand.resolve(None).unwrap().version, "$LATEST");
        let managed = Versions::new(ARN, true);
        assert_eq!(managed.resolve(None).unwrap().version, "$LATEST");
        managed.publish(snapshot(2048), None, None, true).unwrap();
        assert_eq!(managed.resolve(None).unwrap().version, "$LATEST.PUBLISHED");
        assert_eq!(managed.resolve(Some("$LATEST")).unwrap().version, "$LATEST");
    }

    #[test]
    fn a_stack_publishes_latest_published_for_managed_functions_then_its_version_and_aliases() {
        let publication = Publication {
            version: true,
            aliases: vec![crate::config::AliasConfig {
                name: "live".into(),
                function_version: "1".into(),
                description: String::new(),
            }],
            inherited: Vec::new(),
        };
        let versions = Versions::create(ARN, true, &publication, || snapshot(2048)).unwrap();
        let names: Vec<String> = versions.published().into_iter().map(|v| v.name).collect();
        assert_eq!(names, ["1", "$LATEST.PUBLISHED"]);
        assert_eq!(versions.resolve(Some("live")).unwrap().version, "1");
        let on_demand =
            Versions::create(ARN, false, &Publication::default(), || snapshot(128)).unwrap();
        assert!(on_demand.published().is_empty());
    }

    #[test]
    fn a_deployment_keeps_its_predecessor_s_versions_and_numbers_a_changed_function_next() {
        let inherited = vec![InheritedVersion {
            number: 1,
            snapshot: snapshot(128),
            description: "first".into(),
        }];
        assert_eq!(next_version(&inherited, &snapshot(128)), 1);
        assert_eq!(next_version(&inherited, &snapshot(256)), 2);
        assert_eq!(next_version(&[], &snapshot(128)), 1);
        let publication = Publication {
            version: true,
            aliases: vec![crate::config::AliasConfig {
                name: "live".into(),
                function_version: "2".into(),
                description: String::new(),
            }],
            inherited,
        };
        let versions = Versions::create(ARN, false, &publication, || snapshot(256)).unwrap();
        let names: Vec<String> = versions.published().into_iter().map(|v| v.name).collect();
        assert_eq!(names, ["1", "2"]);
        assert_eq!(versions.resolve(Some("live")).unwrap().version, "2");
        let one = versions.resolve(Some("1")).unwrap().published.unwrap();
        assert_eq!(
            (one.snapshot.config.memory_mb, one.description.as_str()),
            (128, "first")
        );
        assert_eq!(versions.inheritable().len(), 2);
    }

    #[test]
    fn unknown_qualifiers_are_not_found_with_the_qualified_arn() {
        let versions = Versions::new(ARN, false);
        let err = versions.resolve(Some("live")).unwrap_err();
        assert_eq!(
            err,
            VersionError::NotFound(format!("Function not found: {ARN}:live"))
        );
        assert!(matches!(
            versions.resolve(Some("1")),
            Err(VersionError::NotFound(_))
        ));
        assert!(matches!(
            versions.resolve(Some("$LATEST.PUBLISHED")),
            Err(VersionError::NotFound(_))
        ));
    }

    #[test]
    fn aliases_are_created_once_and_point_to_existing_versions() {
        let versions = Versions::new(ARN, false);
        versions.publish(snapshot(128), None, None, false).unwrap();
        let alias = versions
            .create_alias("live", "1", "prod", BTreeMap::new())
            .unwrap();
        assert_eq!(alias.function_version, "1");
        assert_eq!(
            versions.create_alias("live", "1", "", BTreeMap::new()),
            Err(VersionError::Conflict(format!(
                "Alias already exists: {ARN}:live"
            )))
        );
        assert_eq!(
            versions.create_alias("next", "2", "", BTreeMap::new()),
            Err(VersionError::NotFound(format!(
                "Function not found: {ARN}:2"
            )))
        );
        assert!(matches!(
            versions.create_alias("7", "1", "", BTreeMap::new()),
            Err(VersionError::Validation(_))
        ));
        assert!(matches!(
            versions.create_alias("other", "live", "", BTreeMap::new()),
            Err(VersionError::Validation(_))
        ));
        assert!(versions
            .create_alias("dev", "$LATEST", "", BTreeMap::new())
            .is_ok());
        let names: Vec<String> = versions.aliases(None).into_iter().map(|a| a.name).collect();
        assert_eq!(names, ["dev", "live"]);
        assert_eq!(versions.aliases(Some("1")).len(), 1);
    }

    #[test]
    fn updates_check_the_revision_and_keep_what_they_do_not_name() {
        let versions = Versions::new(ARN, false);
        versions.publish(snapshot(128), None, None, false).unwrap();
        versions.publish(snapshot(256), None, None, false).unwrap();
        let alias = versions
            .create_alias("live", "1", "prod", BTreeMap::new())
            .unwrap();
        let stale = AliasUpdate {
            function_version: Some("2".into()),
            revision_id: Some("stale".into()),
            ..AliasUpdate::default()
        };
        assert!(matches!(
            versions.update_alias("live", stale),
            Err(VersionError::PreconditionFailed(_))
        ));
        let update = AliasUpdate {
            function_version: Some("2".into()),
            revision_id: Some(alias.revision_id.clone()),
            ..AliasUpdate::default()
        };
        let updated = versions.update_alias("live", update).unwrap();
        assert_eq!(
            (
                updated.function_version.as_str(),
                updated.description.as_str()
            ),
            ("2", "prod")
        );
        assert_ne!(updated.revision_id, alias.revision_id);
        assert_eq!(versions.resolve(Some("live")).unwrap().version, "2");
        assert_eq!(
            versions.update_alias("gone", AliasUpdate::default()),
            Err(VersionError::NotFound(format!(
                "Alias not found: {ARN}:gone"
            )))
        );
    }

    #[test]
    fn deleting_an_alias_twice_succeeds_and_it_is_gone() {
        let versions = Versions::new(ARN, false);
        versions
            .create_alias("dev", "$LATEST", "", BTreeMap::new())
            .unwrap();
        versions.delete_alias("dev");
        versions.delete_alias("dev");
        assert!(matches!(
            versions.alias("dev"),
            Err(VersionError::NotFound(_))
        ));
        assert!(matches!(
            versions.resolve(Some("dev")),
            Err(VersionError::NotFound(_))
        ));
    }

    #[test]
    fn weighted_aliases_split_by_weight_and_need_a_published_primary() {
        let versions = Versions::new(ARN, false);
        versions.publish(snapshot(128), None, None, false).unwrap();
        versions.publish(snapshot(256), None, None, false).unwrap();
        let weights = BTreeMap::from([("2".to_string(), 0.25)]);
        let alias = versions
            .create_alias("canary", "1", "", weights.clone())
            .unwrap();
        assert_eq!(pick_version(&alias, 0.1), "2");
        assert_eq!(pick_version(&alias, 0.25), "1");
        assert_eq!(pick_version(&alias, 0.9), "1");
        assert!(matches!(
            versions.create_alias("bad", "$LATEST", "", weights),
            Err(VersionError::InvalidParameter(_))
        ));
        let too_much = BTreeMap::from([("2".to_string(), 1.5)]);
        assert!(matches!(
            versions.create_alias("bad", "1", "", too_much),
            Err(VersionError::Validation(_))
        ));
    }
}
