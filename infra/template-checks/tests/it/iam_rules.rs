//! The least-privilege comparison itself, on small templates: each kind of
//! difference is found and named.

use localcloud_template::{load_str, Application, ResolveContext};
use template_checks::iam::{check, Needs, Resource, Use, Violation};

fn app(resources: &str) -> Application {
    let text = format!(
        "Transform: AWS::Serverless-2016-10-31\nResources:\n  Orders:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      BillingMode: PAY_PER_REQUEST\n      KeySchema: [{{AttributeName: pk, KeyType: HASH}}]\n      AttributeDefinitions: [{{AttributeName: pk, AttributeType: S}}]\n  Users:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      BillingMode: PAY_PER_REQUEST\n      KeySchema: [{{AttributeName: pk, KeyType: HASH}}]\n      AttributeDefinitions: [{{AttributeName: pk, AttributeType: S}}]\n  Jobs:\n    Type: AWS::SQS::Queue\n{resources}"
    );
    load_str(&text, &ResolveContext::default()).expect("test template loads")
}

fn function(policies: &str) -> String {
    format!(
        "  Fn:\n    Type: AWS::Serverless::Function\n    Properties:\n      Runtime: provided.al2023\n      Handler: bootstrap\n      Policies:\n{policies}"
    )
}

const READS_ORDERS: &[Needs] = &[Needs {
    function: "Fn",
    uses: &[Use {
        resource: Resource::Table("Orders"),
        actions: &["dynamodb:GetItem"],
    }],
}];

const GET_ORDERS: &str = "        - Statement:\n            - {Effect: Allow, Action: [dynamodb:GetItem], Resource: !GetAtt Orders.Arn}\n";

#[test]
fn a_function_granted_exactly_its_needs_passes() {
    let app = app(&function(GET_ORDERS));
    assert_eq!(check(&app, "local", READS_ORDERS), vec![]);
}

#[test]
fn a_crud_policy_where_only_reads_are_needed_is_reported_as_extra() {
    // GIVEN a function with DynamoDBCrudPolicy on the table it only reads
    let app = app(&function(
        "        - DynamoDBCrudPolicy: {TableName: !Ref Orders}\n",
    ));
    // WHEN it is checked
    let violations = check(&app, "local", READS_ORDERS);
    // THEN the write actions are extra on that table, and the message says so
    let extra = violations
        .iter()
        .find_map(|v| match v {
            Violation::Extra { on, actions, .. } if on == "table Orders" => Some(actions),
            _ => None,
        })
        .expect("an extra grant on table Orders");
    assert!(extra.contains(&"dynamodb:PutItem".to_string()), "{extra:?}");
    assert!(!extra.contains(&"dynamodb:GetItem".to_string()));
    assert!(violations[0].to_string().starts_with("Fn: extra grant of"));
}

#[test]
fn access_to_a_table_the_function_does_not_own_is_reported() {
    // GIVEN a function that may also read the Users table
    let policies = format!(
        "{GET_ORDERS}        - Statement:\n            - {{Effect: Allow, Action: [dynamodb:GetItem], Resource: !GetAtt Users.Arn}}\n"
    );
    let app = app(&function(&policies));
    // WHEN it is checked
    let violations = check(&app, "local", READS_ORDERS);
    // THEN that grant is extra on table Users
    assert_eq!(
        violations,
        vec![Violation::Extra {
            function: "Fn".into(),
            on: "table Users".into(),
            actions: vec!["dynamodb:GetItem".into()],
        }]
    );
}

#[test]
fn a_table_name_pattern_reaching_several_tables_is_extra_on_the_others() {
    // GIVEN a grant on every table of the stack
    let app = app(&function(
        "        - Statement:\n            - {Effect: Allow, Action: [dynamodb:GetItem], Resource: !Sub 'arn:aws:dynamodb:us-east-1:000000000000:table/local-*'}\n",
    ));
    // WHEN it is checked
    let violations = check(&app, "local", READS_ORDERS);
    // THEN it is extra on Users (and fine on Orders)
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(violations[0].to_string().contains("table Users"));
}

#[test]
fn a_wildcard_action_on_every_resource_is_reported() {
    // GIVEN dynamodb:* on *
    let policies = format!(
        "{GET_ORDERS}        - Statement:\n            - {{Effect: Allow, Action: 'dynamodb:*', Resource: '*'}}\n"
    );
    let app = app(&function(&policies));
    // WHEN it is checked
    let violations = check(&app, "local", READS_ORDERS);
    // THEN both the wildcard and the grant on * are reported
    assert!(violations.contains(&Violation::WildcardAction {
        function: "Fn".into(),
        on: "*".into(),
        action: "dynamodb:*".into(),
    }));
    assert!(violations
        .iter()
        .any(|v| matches!(v, Violation::Extra { on, .. } if on == "*")));
}

#[test]
fn a_needed_action_without_a_grant_is_missing() {
    // GIVEN a function with no policy at all
    let app = app(&function("        []\n").replace("      Policies:\n        []\n", ""));
    // WHEN it is checked against a need to read Orders
    let violations = check(&app, "local", READS_ORDERS);
    // THEN the read is missing
    assert_eq!(
        violations,
        vec![Violation::Missing {
            function: "Fn".into(),
            on: "table Orders".into(),
            actions: vec!["dynamodb:GetItem".into()],
        }]
    );
}

#[test]
fn functions_missing_from_either_side_are_reported() {
    // GIVEN a template function that is not listed, and a listed one that is absent
    let app = app(&function(GET_ORDERS));
    let needs = [Needs {
        function: "Gone",
        uses: &[],
    }];
    // WHEN checked
    let violations = check(&app, "local", &needs);
    // THEN both are named
    assert!(violations.contains(&Violation::Unlisted {
        function: "Fn".into()
    }));
    assert!(violations
        .iter()
        .any(|v| matches!(v, Violation::Stale { function, .. } if function == "Gone")));
}

#[test]
fn a_runtime_queue_pattern_matches_only_the_declared_pattern() {
    // GIVEN a grant on reply queues by pattern, declared in the needs
    let app = app(&function(
        "        - Statement:\n            - {Effect: Allow, Action: [sqs:SendMessage], Resource: !Sub 'arn:aws:sqs:us-east-1:000000000000:${AWS::StackName}-reply-*'}\n",
    ));
    let declared = [Needs {
        function: "Fn",
        uses: &[Use {
            resource: Resource::QueuePattern("{stack}-reply-*"),
            actions: &["sqs:SendMessage"],
        }],
    }];
    let undeclared = [Needs {
        function: "Fn",
        uses: &[],
    }];
    // WHEN checked with and without the pattern declared
    // THEN only the undeclared case reports it
    assert_eq!(check(&app, "local", &declared), vec![]);
    assert_eq!(
        check(&app, "local", &undeclared)[0].to_string(),
        "Fn: extra grant of [\"sqs:SendMessage\"] on queues local-reply-*"
    );
}
