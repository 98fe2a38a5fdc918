//! AddPermission and RemovePermission through the real aws-sdk-sqs client:
//! each label is a statement of the queue's `Policy` attribute; and the
//! same scenario compared with moto.

use aws_sdk_sqs::types::QueueAttributeName as A;
use aws_sdk_sqs::Client;
use serde_json::Value;

use crate::common::{client_for, code, create_queue, queue_arn, start};
use crate::differential_moto::moto_endpoint;

/// The queue's policy document, if it has one.
async fn policy(client: &Client, url: &str) -> Option<Value> {
    let out = client
        .get_queue_attributes()
        .queue_url(url)
        .attribute_names(A::Policy)
        .send()
        .await
        .unwrap();
    let text = out.attributes?.get(&A::Policy)?.clone();
    Some(serde_json::from_str(&text).unwrap())
}

async fn add(
    client: &Client,
    url: &str,
    label: &str,
    accounts: &[&str],
    actions: &[&str],
) -> Result<(), String> {
    let mut request = client.add_permission().queue_url(url).label(label);
    for account in accounts {
        request = request.aws_account_ids(*account);
    }
    for action in actions {
        request = request.actions(*action);
    }
    request
        .send()
        .await
        .map(|_| ())
        .map_err(|e| code(&e.into_service_error()))
}

async fn remove(client: &Client, url: &str, label: &str) -> Result<(), String> {
    client
        .remove_permission()
        .queue_url(url)
        .label(label)
        .send()
        .await
        .map(|_| ())
        .map_err(|e| code(&e.into_service_error()))
}

#[tokio::test]
async fn permissions_are_statements_of_the_queue_policy() {
    // GIVEN a queue without a policy
    let cloud = start().await;
    let url = cloud.queue("shared", &[]).await;
    let arn = cloud.arn(&url).await;
    assert_eq!(policy(&cloud.client, &url).await, None);
    // WHEN two labels are granted
    add(
        &cloud.client,
        &url,
        "send",
        &["111122223333"],
        &["SendMessage"],
    )
    .await
    .unwrap();
    add(
        &cloud.client,
        &url,
        "consume",
        &["111122223333", "444455556666"],
        &["ReceiveMessage", "DeleteMessage"],
    )
    .await
    .unwrap();
    // THEN the policy has one statement per label, Sid = label
    let doc = policy(&cloud.client, &url).await.unwrap();
    assert_eq!(doc["Id"], format!("{arn}/SQSDefaultPolicy"));
    assert_eq!(
        doc["Statement"][0],
        serde_json::json!({
            "Sid": "send", "Effect": "Allow",
            "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
            "Action": "SQS:SendMessage", "Resource": arn,
        })
    );
    assert_eq!(
        doc["Statement"][1]["Principal"]["AWS"],
        serde_json::json!([
            "arn:aws:iam::111122223333:root",
            "arn:aws:iam::444455556666:root"
        ])
    );
    // AND a label is unique and well formed, and only known actions, at
    // most seven, are granted
    let refusals: [(&str, &[&str], &str); 4] = [
        ("send", &["SendMessage"], "InvalidParameterValue"),
        ("x", &["CreateQueue"], "InvalidParameterValue"),
        ("x", &["SendMessage"; 8], "OverLimit"),
        ("bad label", &["SendMessage"], "InvalidParameterValue"),
    ];
    for (label, actions, expected) in refusals {
        let answer = add(&cloud.client, &url, label, &["111122223333"], actions).await;
        assert_eq!(answer, Err(expected.to_string()), "{label} {actions:?}");
    }
    // WHEN the labels are removed
    remove(&cloud.client, &url, "send").await.unwrap();
    let doc = policy(&cloud.client, &url).await.unwrap();
    assert_eq!(doc["Statement"].as_array().unwrap().len(), 1);
    assert_eq!(
        remove(&cloud.client, &url, "send").await,
        Err("InvalidParameterValue".to_string())
    );
    remove(&cloud.client, &url, "consume").await.unwrap();
    // THEN the queue has no policy again
    assert_eq!(policy(&cloud.client, &url).await, None);
    // AND an unknown queue is refused
    let gone = format!("{}/000000000000/nope", cloud.endpoint);
    assert_eq!(
        remove(&cloud.client, &gone, "x").await,
        Err("AWS.SimpleQueueService.NonExistentQueue".to_string())
    );
}

/// Grants and removals with their errors; what each answered and the
/// policy's statements, with the queue's own ARN replaced.
async fn permission_scenario(client: &Client, name: &str) -> Vec<String> {
    let url = create_queue(client, name, &[]).await;
    let arn = queue_arn(client, &url).await;
    let mut seen = Vec::new();
    let steps: [(&str, &[&str], &[&str]); 6] = [
        ("send", &["111122223333"], &["SendMessage"]),
        (
            "both",
            &["111122223333", "444455556666"],
            &["ReceiveMessage", "*"],
        ),
        ("send", &["111122223333"], &["SendMessage"]),
        ("none", &["111122223333"], &[]),
        ("owner", &["111122223333"], &["CreateQueue"]),
        ("many", &["111122223333"], &["SendMessage"; 8]),
    ];
    for (label, accounts, actions) in steps {
        let answer = add(client, &url, label, accounts, actions).await;
        seen.push(format!("add {label}: {answer:?}"));
    }
    for label in ["send", "send", "both"] {
        let before = policy(client, &url).await;
        let statements = before
            .as_ref()
            .map(|p| p["Statement"].to_string().replace(&arn, "<queue>"));
        seen.push(format!("statements: {statements:?}"));
        let answer = remove(client, &url, label).await;
        seen.push(format!("remove {label}: {answer:?}"));
    }
    seen.push(format!(
        "policy at the end: {:?}",
        policy(client, &url).await
    ));
    seen
}

#[tokio::test]
async fn permissions_agree_with_moto() {
    let Some(moto) = moto_endpoint() else {
        eprintln!("skipped: MOTO_ENDPOINT is not set (scripts/oracles/moto.sh starts moto)");
        return;
    };
    let cloud = start().await;
    let name = format!("permissions{}", std::process::id());
    let ours = permission_scenario(&cloud.client, &name).await;
    let theirs = permission_scenario(&client_for(&moto), &name).await;
    assert!(ours.contains(&"add send: Ok(())".to_string()), "{ours:#?}");
    assert_eq!(ours, theirs);
}
