//! Each function's environment settings on Lambda Managed Instances
//! (`PerExecutionEnvironmentMaxConcurrency`, `ExecutionEnvironmentMemoryGiBPerVCpu`)
//! for runs that did not record them. A local cloud of metrics version 8 or
//! later records them ([`costmodel::ManagedUsage`]); an older run's
//! results.json has none, and its LMI month would be sized at the runtime's
//! default of 8 invocations per vCPU whatever the template configured. Such a
//! run's settings are read from the LMI template the run started
//! (`bench run --lmi-template`, default `template-lmi.yaml`) with the
//! parameters it recorded: right as long as that template has not changed
//! since the run (`git diff <its commit> -- template-lmi.yaml`).

use std::path::Path;

use localcloud_template::{Application, ResolveContext, TemplateError};

use crate::compute::ComputeType;
use crate::results::{Results, RunRecord};

/// How many functions of LMI runs lacked their settings, and of them how
/// many the template gave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Completed {
    pub missing: usize,
    pub completed: usize,
}

/// Fills in the settings of every LMI function that did not record them,
/// from the template at `template`. The template is read only if some
/// function needs it.
pub fn complete_from_template(
    results: &mut Results,
    template: &Path,
) -> Result<Completed, TemplateError> {
    if missing(results) == 0 {
        return Ok(Completed::default());
    }
    let text = std::fs::read_to_string(template).map_err(|source| TemplateError::Io {
        path: template.display().to_string(),
        source,
    })?;
    complete_from_text(results, &text)
}

/// [`complete_from_template`] with the template's text.
pub fn complete_from_text(results: &mut Results, text: &str) -> Result<Completed, TemplateError> {
    let mut done = Completed {
        missing: missing(results),
        completed: 0,
    };
    for record in results.records.iter_mut().filter(|r| needs(r) > 0) {
        let ctx = ResolveContext {
            parameter_overrides: record.settings.parameters.clone(),
            // Secrets (`NoEcho` without a default, JwtSecret) size nothing.
            generate_no_echo: true,
            ..ResolveContext::default()
        };
        let app = localcloud_template::load_str(text, &ctx)?;
        done.completed += complete_record(record, &app);
    }
    Ok(done)
}

/// Functions of LMI runs without their settings.
fn missing(results: &Results) -> usize {
    results.records.iter().map(needs).sum()
}

fn needs(r: &RunRecord) -> usize {
    if r.compute != ComputeType::Managed {
        return 0;
    }
    r.metering.as_ref().map_or(0, |m| {
        m.functions
            .values()
            .filter_map(|f| f.managed.as_ref())
            .filter(|m| m.max_concurrency.is_none())
            .count()
    })
}

/// A function recorded as `{stack}-{LogicalId}` takes the settings of the
/// template's function of that logical id, at the memory it ran with.
fn complete_record(record: &mut RunRecord, app: &Application) -> usize {
    let Some(metering) = record.metering.as_mut() else {
        return 0;
    };
    let mut completed = 0;
    for (name, figures) in &mut metering.functions {
        let memory_mb = figures.memory_mb;
        let Some(managed) = figures
            .managed
            .as_mut()
            .filter(|m| m.max_concurrency.is_none())
        else {
            continue;
        };
        let declared = app.functions.iter().find(|f| {
            name.strip_suffix(f.logical_id.as_str())
                .is_some_and(|stack| stack.is_empty() || stack.ends_with('-'))
        });
        let Some(config) = declared.and_then(|f| f.capacity_provider.as_ref()) else {
            continue;
        };
        let memory_gib_per_vcpu = f64::from(config.memory_gib_per_vcpu);
        let vcpus = memory_mb / 1024.0 / memory_gib_per_vcpu;
        managed.memory_gib_per_vcpu = Some(memory_gib_per_vcpu);
        managed.max_concurrency = Some(
            config
                .per_environment_max_concurrency
                .unwrap_or_else(|| localcloud_metrics::instances::default_max_concurrency(vcpus)),
        );
        completed += 1;
    }
    completed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata;

    const TEMPLATE: &str = r#"
Transform: AWS::Serverless-2016-10-31
Parameters:
  OrdersConcurrency:
    Type: Number
    Default: 64
Resources:
  Fleet:
    Type: AWS::Serverless::CapacityProvider
    Properties:
      VpcConfig: {SubnetIds: [subnet-1], SecurityGroupIds: [sg-1]}
      InstanceRequirements:
        Architectures: [x86_64]
  OrdersDirectFunction:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      MemorySize: 2048
      CapacityProviderConfig:
        Arn: !GetAtt Fleet.Arn
        ExecutionEnvironmentMemoryGiBPerVCpu: 2
        PerExecutionEnvironmentMaxConcurrency: !Ref OrdersConcurrency
  OrdersBackendFunction:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      MemorySize: 2048
      CapacityProviderConfig:
        Arn: !GetAtt Fleet.Arn
        ExecutionEnvironmentMemoryGiBPerVCpu: 2
"#;

    /// The sample's orders-direct baseline, also run on LMI by a local cloud
    /// that did not record the settings, its functions named as the
    /// template's (`bench-OrdersDirectFunction`).
    fn lmi_run() -> Results {
        let mut results = testdata::results();
        let mut on_lmi = testdata::on_lmi(&results.records[0], 60.0);
        // The sample's parameters are not this template's.
        on_lmi.settings.parameters.clear();
        let metering = on_lmi.metering.as_mut().unwrap();
        metering.functions = std::mem::take(&mut metering.functions)
            .into_iter()
            .map(|(name, f)| {
                let logical = if name.contains("sweeper") {
                    "bench-OrdersReplySweeperFunction".to_string()
                } else if name.to_lowercase().contains("backend") {
                    "bench-OrdersBackendFunction".to_string()
                } else {
                    "bench-OrdersDirectFunction".to_string()
                };
                (logical, f)
            })
            .collect();
        results.records.push(on_lmi);
        results
    }

    fn settings(results: &Results, function: &str) -> (Option<u32>, Option<f64>) {
        let record = results.records.last().unwrap();
        let managed = record.metering.as_ref().unwrap().functions[function]
            .managed
            .clone()
            .unwrap();
        (managed.max_concurrency, managed.memory_gib_per_vcpu)
    }

    #[test]
    fn a_run_without_its_lmi_settings_takes_the_templates_with_its_parameters() {
        // GIVEN an LMI run that recorded no settings
        let mut results = lmi_run();
        assert_eq!(needs(results.records.last().unwrap()), 3);
        // WHEN completed from the template
        let done = complete_from_text(&mut results, TEMPLATE).unwrap();
        // THEN each function the template declares has its concurrency, or
        // the runtime's 8 per vCPU where it sets none, and its ratio
        assert_eq!(
            settings(&results, "bench-OrdersDirectFunction"),
            (Some(64), Some(2.0))
        );
        assert_eq!(
            settings(&results, "bench-OrdersBackendFunction"),
            (Some(8), Some(2.0))
        );
        // AND one it does not declare stays without
        assert_eq!(
            settings(&results, "bench-OrdersReplySweeperFunction"),
            (None, None)
        );
        assert_eq!(
            done,
            Completed {
                missing: 3,
                completed: 2
            }
        );
        // AND the run's own parameters are the template's
        let mut results = lmi_run();
        let record = results.records.last_mut().unwrap();
        record
            .settings
            .parameters
            .insert("OrdersConcurrency".into(), "32".into());
        complete_from_text(&mut results, TEMPLATE).unwrap();
        assert_eq!(settings(&results, "bench-OrdersDirectFunction").0, Some(32));
    }

    #[test]
    fn recorded_settings_are_kept_and_the_template_is_not_read_for_them() {
        // GIVEN an LMI run that recorded its settings
        let mut results = lmi_run();
        let record = results.records.last_mut().unwrap();
        for f in record.metering.as_mut().unwrap().functions.values_mut() {
            let managed = f.managed.as_mut().unwrap();
            (managed.max_concurrency, managed.memory_gib_per_vcpu) = (Some(16), Some(4.0));
        }
        // WHEN completed from a template that is not there
        let done = complete_from_template(&mut results, Path::new("/nonexistent.yaml")).unwrap();
        // THEN nothing was missing and nothing changed
        assert_eq!(done, Completed::default());
        assert_eq!(
            settings(&results, "bench-OrdersDirectFunction"),
            (Some(16), Some(4.0))
        );
    }
}
