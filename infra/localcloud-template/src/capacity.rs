//! Lambda Managed Instances in a template: capacity providers and a
//! function's `CapacityProviderConfig`.
//!
//! - `AWS::Serverless::CapacityProvider`
//!   (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-resource-capacityprovider.html)
//!   and `AWS::Lambda::CapacityProvider`
//!   (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-lambda-capacityprovider.html):
//!   the name, `MaxVCpuCount` and `InstanceRequirements` (the instance type
//!   whose size the local cloud fills and meters) matter locally; networking,
//!   roles and keys are ignored with a warning.
//! - SAM's function property `CapacityProviderConfig` (`Arn`,
//!   `ExecutionEnvironmentMemoryGiBPerVCpu`, `PerExecutionEnvironmentMaxConcurrency`:
//!   https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-capacityproviderconfig.html),
//!   checked against the limits of CloudFormation's
//!   `LambdaManagedInstancesCapacityProviderConfig`
//!   (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-function-lambdamanagedinstancescapacityproviderconfig.html).

use serde_json::Value;

use crate::diag::At;
use crate::model::{CapacityProvider, CapacityProviderConfig};
use crate::props::{check_keys, render, Reader};
use crate::scope::ResKind;
use crate::yaml::Node;

pub(crate) const SAM_TYPE: &str = "AWS::Serverless::CapacityProvider";
pub(crate) const CFN_TYPE: &str = "AWS::Lambda::CapacityProvider";

/// Settings of the EC2 fleet that change nothing a function observes locally.
const SAM_IGNORED: &[&str] = &[
    "VpcConfig",
    "OperatorRole",
    "Tags",
    "PropagateTags",
    "LoggingConfig",
    "KmsKeyArn",
    "ManagedResourceTags",
];
const CFN_IGNORED: &[&str] = &[
    "VpcConfig",
    "PermissionsConfig",
    "Tags",
    "PropagateTags",
    "KmsKeyArn",
];

/// The memory-to-vCPU ratios Lambda offers, in GiB per vCPU (SAM:
/// "The supported memory-to-CPU ratios are 2GB, 4GB, or 8GB per CPU").
pub const MEMORY_GIB_PER_VCPU: [u32; 3] = [2, 4, 8];
/// The ratio when the template gives none: the smallest, which CloudFormation
/// documents as the property's minimum.
pub const DEFAULT_MEMORY_GIB_PER_VCPU: u32 = 2;
/// "The minimum supported function size is 2GB and 1 vCPU" (Best practices
/// for Lambda Managed Instances,
/// https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-best-practices.html).
pub const MIN_MEMORY_MB: u32 = 2048;
/// CloudFormation: `PerExecutionEnvironmentMaxConcurrency` 1 to 1,600.
pub const MAX_CONCURRENCY: u32 = 1600;

/// A capacity provider resource of either form.
pub(crate) fn capacity_provider(
    id: &str,
    ty: &str,
    props: &Node,
    name: &str,
    r: &mut Reader,
) -> Option<CapacityProvider> {
    let at = At::resource(id).child("Properties");
    let sam = ty == SAM_TYPE;
    let (scaling_key, ignored) = if sam {
        ("ScalingConfig", SAM_IGNORED)
    } else {
        ("CapacityProviderScalingConfig", CFN_IGNORED)
    };
    check_keys(
        props,
        &["CapacityProviderName", scaling_key, "InstanceRequirements"],
        ignored,
        &at,
        r.diags,
    );
    if !valid_name(name) {
        let line = props
            .get("CapacityProviderName")
            .map_or(props.line, |e| e.key_line);
        let m = format!("capacity provider name `{name}` must be letters, digits, - or _");
        r.diags.error(&at.child("CapacityProviderName"), line, m);
        return None;
    }
    let scaling = props.get(scaling_key);
    let max_vcpu_count = scaling.and_then(|scaling| {
        let at = at.child(scaling_key);
        let keys: &[&str] = if sam {
            &["MaxVCpuCount", "AverageCPUUtilization"]
        } else {
            &["MaxVCpuCount", "ScalingMode", "ScalingPolicies"]
        };
        check_keys(&scaling.value, keys, &[], &at, r.diags);
        r.u32(&scaling.value, "MaxVCpuCount", &at)
    });
    let target_cpu_utilization = match scaling {
        Some(scaling) => cpu_target(&scaling.value, sam, &at.child(scaling_key), r).ok()?,
        None => None,
    };
    let requirements = instance_requirements(props, sam, &at, r)?;
    Some(CapacityProvider {
        logical_id: id.to_string(),
        name: name.to_string(),
        arn: arn(r, name),
        max_vcpu_count,
        target_cpu_utilization,
        architecture: requirements.architecture,
        allowed_instance_types: requirements.allowed,
        excluded_instance_types: requirements.excluded,
    })
}

/// The CPU utilisation target (percent, 0-100) of a provider's scaling
/// configuration: SAM's `AverageCPUUtilization`, which SAM turns into
/// `ScalingMode: Manual` and one `LambdaCapacityProviderAverageCPUUtilization`
/// policy, the CloudFormation form
/// (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-lambda-capacityprovider-targettrackingscalingpolicy.html;
/// `TargetValue` 0.0 to 100.0 in the Lambda API's `TargetTrackingScalingPolicy`).
/// `Err` after an error diagnostic.
fn cpu_target(scaling: &Node, sam: bool, at: &At, r: &mut Reader) -> Result<Option<f64>, ()> {
    let percent = |value: &Value| number(value).filter(|p| (0.0..=100.0).contains(p));
    if sam {
        let key = "AverageCPUUtilization";
        let Some((v, line)) = r.value(scaling, key, at) else {
            return Ok(None);
        };
        return match percent(&v) {
            Some(p) => Ok(Some(p)),
            None => {
                let m = format!("must be a percentage from 0 to 100, got {}", render(&v));
                r.diags.error(&at.child(key), line, m);
                Err(())
            }
        };
    }
    if let Some((mode, line)) = r.value(scaling, "ScalingMode", at) {
        if !matches!(mode.as_str(), Some("Auto" | "Manual")) {
            let m = format!("must be Auto or Manual, got {}", render(&mode));
            r.diags.error(&at.child("ScalingMode"), line, m);
            return Err(());
        }
    }
    let Some((policies, line)) = r.value(scaling, "ScalingPolicies", at) else {
        return Ok(None);
    };
    let at = at.child("ScalingPolicies");
    let Some(list) = policies.as_array() else {
        let m = format!(
            "must be a list of scaling policies, got {}",
            render(&policies)
        );
        r.diags.error(&at, line, m);
        return Err(());
    };
    let mut target = None;
    for policy in list {
        let metric = policy.get("PredefinedMetricType").and_then(Value::as_str);
        let value = policy.get("TargetValue").and_then(percent);
        match (metric, value) {
            (Some("LambdaCapacityProviderAverageCPUUtilization"), Some(p)) => target = Some(p),
            _ => {
                let m = format!(
                    "each policy needs PredefinedMetricType LambdaCapacityProviderAverageCPUUtilization and a TargetValue from 0 to 100, got {policy}"
                );
                r.diags.error(&at, line, m);
                return Err(());
            }
        }
    }
    Ok(target)
}

/// A provider's `InstanceRequirements`, read.
struct InstanceRequirements {
    architecture: String,
    allowed: Vec<String>,
    excluded: Vec<String>,
}

/// `InstanceRequirements`: the architecture (one; `x86_64` by default), the
/// allowed instance types (SAM `AllowedTypes`, CloudFormation
/// `AllowedInstanceTypes`; empty: any) and the excluded ones (SAM
/// `ExcludedTypes`, CloudFormation `ExcludedInstanceTypes`). SAM: "You can choose to specify either AllowedTypes or
/// ExcludedTypes ..., but not both"
/// (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-capacityprovider-instancerequirements.html).
fn instance_requirements(
    props: &Node,
    sam: bool,
    at: &At,
    r: &mut Reader,
) -> Option<InstanceRequirements> {
    let Some(entry) = props.get("InstanceRequirements") else {
        return Some(InstanceRequirements {
            architecture: "x86_64".to_string(),
            allowed: Vec::new(),
            excluded: Vec::new(),
        });
    };
    let at = at.child("InstanceRequirements");
    let (allowed_key, excluded_key) = if sam {
        ("AllowedTypes", "ExcludedTypes")
    } else {
        ("AllowedInstanceTypes", "ExcludedInstanceTypes")
    };
    let requirements = &entry.value;
    check_keys(
        requirements,
        &["Architectures", allowed_key, excluded_key],
        &[],
        &at,
        r.diags,
    );
    let architectures = string_list(requirements, "Architectures", &at, r)?;
    let allowed = string_list(requirements, allowed_key, &at, r)?;
    let excluded = string_list(requirements, excluded_key, &at, r)?;
    let line = entry.key_line;
    if !allowed.is_empty() && !excluded.is_empty() {
        let m = format!("give {allowed_key} or {excluded_key}, not both");
        r.diags.error(&at, line, m);
        return None;
    }
    let architecture = match architectures.as_slice() {
        [] => "x86_64".to_string(),
        [one] if one == "x86_64" || one == "arm64" => one.clone(),
        other => {
            let m = format!("Architectures must be one of x86_64 or arm64, got {other:?}");
            r.diags.error(&at.child("Architectures"), line, m);
            return None;
        }
    };
    Some(InstanceRequirements {
        architecture,
        allowed,
        excluded,
    })
}

/// A list of strings (absent: empty); `None` after reporting anything else.
fn string_list(map: &Node, key: &str, at: &At, r: &mut Reader) -> Option<Vec<String>> {
    let Some((value, line)) = r.value(map, key, at) else {
        return Some(Vec::new());
    };
    let items = match &value {
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>(),
        _ => None,
    };
    if items.is_none() {
        let m = format!("{key} must be a list of strings, got {}", render(&value));
        r.diags.error(&at.child(key), line, m);
    }
    items
}

/// The ARN `Fn::GetAtt Provider.Arn` gives.
pub(crate) fn arn(r: &Reader, name: &str) -> String {
    r.scope
        .ctx
        .arn("lambda", &format!("capacity-provider:{name}"))
}

/// SAM's `CapacityProviderConfig` of a function of `memory_mb`.
pub(crate) fn function_config(
    props: &Node,
    memory_mb: u32,
    at: &At,
    r: &mut Reader,
) -> Option<CapacityProviderConfig> {
    let Some(entry) = props.get("CapacityProviderConfig") else {
        // A FunctionScalingConfig without it is an error.
        crate::scaling::function_scaling(props, at, r);
        return None;
    };
    let at_function = at;
    let at = at.child("CapacityProviderConfig");
    let config = &entry.value;
    let keys = [
        "Arn",
        "ExecutionEnvironmentMemoryGiBPerVCpu",
        "PerExecutionEnvironmentMaxConcurrency",
    ];
    check_keys(config, &keys, &[], &at, r.diags);
    let Some(arn) = r.string(config, "Arn", &at) else {
        r.diags
            .error(&at.child("Arn"), entry.key_line, "Arn is required");
        return None;
    };
    let line_of = |key: &str| config.get(key).map_or(entry.key_line, |e| e.key_line);
    if !valid_arn(&arn) {
        let m = format!("`{arn}` is not a capacity provider ARN (arn:aws:lambda:<region>:<account>:capacity-provider:<name>)");
        r.diags.error(&at.child("Arn"), line_of("Arn"), m);
        return None;
    }
    let provider = declared_provider(r, &arn);
    let ratio = memory_ratio(config, &at, r)?;
    let concurrency = r.u32(config, "PerExecutionEnvironmentMaxConcurrency", &at);
    if concurrency.is_some_and(|n| !(1..=MAX_CONCURRENCY).contains(&n)) {
        let key = "PerExecutionEnvironmentMaxConcurrency";
        let m = format!("must be between 1 and {MAX_CONCURRENCY}");
        r.diags.error(&at.child(key), line_of(key), m);
        return None;
    }
    let least = MIN_MEMORY_MB.max(ratio * 1024);
    if memory_mb < least {
        let m = format!(
            "MemorySize {memory_mb} is too small for Lambda Managed Instances at {ratio} GiB per vCPU: at least {least} MB (2 GB and one vCPU)"
        );
        r.diags.error(&at, entry.key_line, m);
        return None;
    }
    Some(CapacityProviderConfig {
        arn,
        provider,
        memory_gib_per_vcpu: ratio,
        per_environment_max_concurrency: concurrency,
        scaling: crate::scaling::function_scaling(props, at_function, r),
    })
}

/// `ExecutionEnvironmentMemoryGiBPerVCpu`: 2, 4 or 8 (a number, `4.0` too).
fn memory_ratio(config: &Node, at: &At, r: &mut Reader) -> Option<u32> {
    let key = "ExecutionEnvironmentMemoryGiBPerVCpu";
    let Some((v, line)) = r.value(config, key, at) else {
        return Some(DEFAULT_MEMORY_GIB_PER_VCPU);
    };
    let ratio =
        number(&v).and_then(|n| MEMORY_GIB_PER_VCPU.into_iter().find(|&r| f64::from(r) == n));
    if ratio.is_none() {
        let m = format!("must be 2, 4 or 8 (GiB per vCPU), got {}", render(&v));
        r.diags.error(&at.child(key), line, m);
    }
    ratio
}

/// A number written as one or as a string (`4.0`, `"70"`).
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

/// The logical id of the provider of this template that has `arn`.
fn declared_provider(r: &Reader, arn: &str) -> Option<String> {
    r.scope
        .symbols
        .iter()
        .filter(|(_, s)| s.kind == ResKind::CapacityProvider)
        .find(|(_, s)| s.name.as_deref().is_some_and(|n| self::arn(r, n) == arn))
        .map(|(id, _)| id.clone())
}

/// CloudFormation's pattern for `CapacityProviderArn`:
/// `arn:aws[a-zA-Z-]*:lambda:(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:\d{12}:capacity-provider:[a-zA-Z0-9-_]+`,
/// at most 140 characters.
pub(crate) fn valid_arn(arn: &str) -> bool {
    let parts: Vec<&str> = arn.splitn(7, ':').collect();
    let [arn_, partition, service, region, account, kind, name] = parts.as_slice() else {
        return false;
    };
    arn.len() <= 140
        && *arn_ == "arn"
        && partition
            .strip_prefix("aws")
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_alphabetic() || c == '-'))
        && *service == "lambda"
        && valid_region(region)
        && account.len() == 12
        && account.bytes().all(|b| b.is_ascii_digit())
        && *kind == "capacity-provider"
        && valid_name(name)
}

/// `xx-name-1`, `xx-gov-name-1`, `xx-iso-name-1` (and `eusc-` in front).
fn valid_region(region: &str) -> bool {
    let region = region.strip_prefix("eusc-").unwrap_or(region);
    let parts: Vec<&str> = region.split('-').collect();
    let lower = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase());
    let digit = |s: &str| s.len() == 1 && s.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        [area, name, n] => area.len() == 2 && lower(area) && lower(name) && digit(n),
        [area, special, name, n] => {
            let special_ok = *special == "gov"
                || special.strip_prefix("iso").is_some_and(|rest| {
                    rest.len() <= 1 && rest.bytes().all(|b| b.is_ascii_lowercase())
                });
            area.len() == 2 && lower(area) && special_ok && lower(name) && digit(n)
        }
        _ => false,
    }
}

/// `[a-zA-Z0-9-_]+`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arns_follow_cloudformations_pattern() {
        for ok in [
            "arn:aws:lambda:us-east-1:123456789012:capacity-provider:fleet",
            "arn:aws-us-gov:lambda:us-gov-west-1:123456789012:capacity-provider:a_b-1",
            "arn:aws:lambda:eusc-de-east-1:123456789012:capacity-provider:x",
        ] {
            assert!(valid_arn(ok), "{ok}");
        }
        for bad in [
            "arn:aws:lambda:us-east-1:123456789012:function:fleet",
            "arn:aws:lambda:us-east-1:12345:capacity-provider:fleet",
            "arn:aws:lambda:useast1:123456789012:capacity-provider:fleet",
            "arn:aws:lambda:us-east-1:123456789012:capacity-provider:",
            "arn:aws:lambda:us-east-1:123456789012:capacity-provider:a.b",
            "fleet",
        ] {
            assert!(!valid_arn(bad), "{bad}");
        }
        let long = format!(
            "arn:aws:lambda:us-east-1:123456789012:capacity-provider:{}",
            "a".repeat(90)
        );
        assert!(!valid_arn(&long));
    }
}
