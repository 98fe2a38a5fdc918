//! IAM least privilege for every function of `template.yaml`: its grants are
//! exactly what its code calls (the NEEDS table), nothing on `*` but
//! `sqs:ListQueues`, no wildcard actions.
//!
//! When a function is added to the template, add its row to NEEDS from the
//! SDK calls its code makes (`grep -rn '\.send()' shared/ functions/`).

use localcloud_template::{Grant, Policy, PolicySource, Target};
use template_checks::iam::{check, Needs, Resource, Use, Violation};
use template_checks::load_template;

/// The reply queues the orders API creates per execution environment
/// (`REPLY_QUEUE_PREFIX` in the template).
const ORDERS_REPLY_QUEUES: &str = "{stack}-orders-reply-*";

/// What the orders back end calls (shared/orders/src/backend.rs): one Query
/// per request. It never writes: the bench seeds the table (`bench seed-orders`).
const ORDERS_TABLE_USE: Use = Use {
    resource: Resource::Table("OrdersTable"),
    actions: &["dynamodb:Query"],
};

/// The DynamoDB actions that only read items or describe a table.
const DYNAMODB_READS: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:Scan",
    "dynamodb:ConditionCheckItem",
    "dynamodb:DescribeTable",
];

/// What the Conduit store calls on each of its tables
/// (shared/conduit/src/store/dynamo): single-item and batch reads and
/// writes, queries, and transactions of Put/Update/Delete, which IAM
/// authorises per underlying action. No Scan, no ConditionCheck.
const CONDUIT_TABLE_ACTIONS: &[&str] = &[
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
];

const fn conduit_table(logical_id: &'static str) -> Use {
    Use {
        resource: Resource::Table(logical_id),
        actions: CONDUIT_TABLE_ACTIONS,
    }
}

/// What the SQS event source mapping does with the function's role
/// (SQSPollerPolicy).
const POLLER: &[&str] = &[
    "sqs:ChangeMessageVisibility",
    "sqs:ChangeMessageVisibilityBatch",
    "sqs:DeleteMessage",
    "sqs:DeleteMessageBatch",
    "sqs:GetQueueAttributes",
    "sqs:ReceiveMessage",
];

/// What a caller does with its own reply queues (transport::reply). It
/// never lists queues nor reads tags: the sweeper cleans up; nor deletes a
/// reply: replies end with the queue's retention.
const REPLY_QUEUE_OWNER: &[&str] = &[
    "sqs:CreateQueue",
    "sqs:TagQueue",
    "sqs:ReceiveMessage",
    "sqs:DeleteQueue",
];

/// What the reply-queue sweeper does with every caller's reply queues
/// (transport::sweep): reads their heartbeat tag, deletes the stale ones.
const SWEEP: &[&str] = &["sqs:ListQueueTags", "sqs:DeleteQueue"];

const fn table(logical_id: &'static str, actions: &'static [&'static str]) -> Use {
    Use {
        resource: Resource::Table(logical_id),
        actions,
    }
}

const fn invoke(function: &'static str) -> Use {
    Use {
        resource: Resource::Function(function),
        actions: &["lambda:InvokeFunction"],
    }
}

/// SQSSendMessagePolicy grants SendMessage*; the code uses SendMessage.
const fn send_to(queue: &'static str) -> Use {
    Use {
        resource: Resource::Queue(queue),
        actions: &["sqs:SendMessage*"],
    }
}

const fn poll(queue: &'static str) -> Use {
    Use {
        resource: Resource::Queue(queue),
        actions: POLLER,
    }
}

const fn reply_to(callers_pattern: &'static str) -> Use {
    Use {
        resource: Resource::QueuePattern(callers_pattern),
        actions: &["sqs:SendMessage"],
    }
}

const fn own_replies(pattern: &'static str) -> Use {
    Use {
        resource: Resource::QueuePattern(pattern),
        actions: REPLY_QUEUE_OWNER,
    }
}

const LIST_QUEUES: Use = Use {
    resource: Resource::Any,
    actions: &["sqs:ListQueues"],
};

// Conduit microservices: each service reaches only its own table (what the
// store calls for that owner in shared/conduit/src/store/dynamo), and the
// services it calls, by Invoke or by SQS request/reply.
const USERS_TABLE: Use = table(
    "ConduitUsersTable",
    &[
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
    ],
);
const FOLLOWS_TABLE: Use = table(
    "ConduitFollowsTable",
    &[
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
    ],
);
const ARTICLES_TABLE: Use = table(
    "ConduitArticlesTable",
    &[
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
    ],
);
const COMMENTS_TABLE: Use = table(
    "ConduitCommentsTable",
    &[
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
    ],
);

const MICRO_NEEDS: &[Needs] = &[
    Needs {
        function: "ConduitMicroInvokeUsersFunction",
        uses: &[USERS_TABLE],
    },
    Needs {
        function: "ConduitMicroInvokeProfilesFunction",
        uses: &[FOLLOWS_TABLE, invoke("ConduitMicroInvokeUsersFunction")],
    },
    Needs {
        function: "ConduitMicroInvokeArticlesFunction",
        uses: &[
            ARTICLES_TABLE,
            invoke("ConduitMicroInvokeUsersFunction"),
            invoke("ConduitMicroInvokeProfilesFunction"),
            invoke("ConduitMicroInvokeCommentsFunction"),
        ],
    },
    Needs {
        function: "ConduitMicroInvokeCommentsFunction",
        uses: &[
            COMMENTS_TABLE,
            invoke("ConduitMicroInvokeUsersFunction"),
            invoke("ConduitMicroInvokeProfilesFunction"),
            invoke("ConduitMicroInvokeArticlesFunction"),
        ],
    },
    Needs {
        function: "ConduitMicroQueueUsersFunction",
        uses: &[
            USERS_TABLE,
            poll("ConduitMicroUsersRequests"),
            reply_to("{stack}-cr-*-users-*"),
        ],
    },
    Needs {
        function: "ConduitMicroQueueProfilesFunction",
        uses: &[
            FOLLOWS_TABLE,
            poll("ConduitMicroProfilesRequests"),
            reply_to("{stack}-cr-*-profiles-*"),
            own_replies("{stack}-cr-profiles-*"),
            send_to("ConduitMicroUsersRequests"),
        ],
    },
    Needs {
        function: "ConduitMicroQueueArticlesFunction",
        uses: &[
            ARTICLES_TABLE,
            poll("ConduitMicroArticlesRequests"),
            reply_to("{stack}-cr-*-articles-*"),
            own_replies("{stack}-cr-articles-*"),
            send_to("ConduitMicroUsersRequests"),
            send_to("ConduitMicroProfilesRequests"),
            send_to("ConduitMicroCommentsRequests"),
        ],
    },
    Needs {
        function: "ConduitMicroQueueReplySweeperFunction",
        uses: &[sweep("{stack}-cr-*"), LIST_QUEUES],
    },
    Needs {
        function: "ConduitMicroQueueCommentsFunction",
        uses: &[
            COMMENTS_TABLE,
            poll("ConduitMicroCommentsRequests"),
            reply_to("{stack}-cr-*-comments-*"),
            own_replies("{stack}-cr-comments-*"),
            send_to("ConduitMicroUsersRequests"),
            send_to("ConduitMicroProfilesRequests"),
            send_to("ConduitMicroArticlesRequests"),
        ],
    },
];

const fn sweep(pattern: &'static str) -> Use {
    Use {
        resource: Resource::QueuePattern(pattern),
        actions: SWEEP,
    }
}

const NEEDS: &[Needs] = &[
    Needs {
        function: "ConduitMonolithFunction",
        uses: &[
            conduit_table("ConduitUsersTable"),
            conduit_table("ConduitFollowsTable"),
            conduit_table("ConduitArticlesTable"),
            conduit_table("ConduitCommentsTable"),
        ],
    },
    // orders-api, direct path: transport::invoke.
    Needs {
        function: "OrdersDirectFunction",
        uses: &[invoke("OrdersBackendFunction")],
    },
    Needs {
        function: "OrdersBackendFunction",
        uses: &[ORDERS_TABLE_USE],
    },
    // orders-api, queue path: transport::reply sends the request, then
    // creates, tags, polls and (when idle) deletes its own reply queue.
    Needs {
        function: "OrdersQueueFunction",
        uses: &[
            send_to("OrdersRequestQueue"),
            own_replies(ORDERS_REPLY_QUEUES),
        ],
    },
    // reply-sweeper, one per experiment: transport::sweep lists the callers'
    // reply queues, reads their heartbeat and deletes the stale ones.
    Needs {
        function: "OrdersReplySweeperFunction",
        uses: &[sweep(ORDERS_REPLY_QUEUES), LIST_QUEUES],
    },
    // orders-backend as the queue worker: the event source mapping polls
    // with the function's role; transport::worker replies.
    Needs {
        function: "OrdersWorkerFunction",
        uses: &[
            poll("OrdersRequestQueue"),
            reply_to(ORDERS_REPLY_QUEUES),
            ORDERS_TABLE_USE,
        ],
    },
];

fn report(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(|v| format!("  - {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_function_is_granted_exactly_what_its_code_needs() {
    // GIVEN the project's template, resolved as stack `local`
    let app = load_template().expect("template.yaml loads");
    // WHEN each function's grants are compared with the NEEDS table
    let violations = check(&app, "local", &all_needs());
    // THEN there is no extra, missing or wildcard grant
    assert!(
        violations.is_empty(),
        "template.yaml grants differ from what the code needs:\n{}",
        report(&violations)
    );
}

fn all_needs() -> Vec<Needs> {
    NEEDS.iter().chain(MICRO_NEEDS).copied().collect()
}

#[test]
fn a_scan_granted_in_the_real_template_is_reported_with_function_and_table() {
    // GIVEN the real template with dynamodb:Scan on its table granted to the
    // orders back end
    let mut app = load_template().expect("template.yaml loads");
    let table = app.table("OrdersTable").expect("OrdersTable").name.clone();
    let backend = app
        .functions
        .iter_mut()
        .find(|f| f.logical_id == "OrdersBackendFunction")
        .expect("OrdersBackendFunction");
    backend.policies.push(Policy {
        source: PolicySource::Inline,
        grants: vec![Grant {
            allow: true,
            actions: vec!["dynamodb:Scan".into()],
            target: Target::table(&table),
        }],
        document: serde_json::Value::Null,
    });
    // WHEN it is checked against the needs
    let violations = check(&app, "local", &all_needs());
    // THEN that one extra grant is reported, naming function, table and action
    assert_eq!(
        violations,
        vec![Violation::Extra {
            function: "OrdersBackendFunction".into(),
            on: "table OrdersTable".into(),
            actions: vec!["dynamodb:Scan".into()],
        }]
    );
}

#[test]
fn nothing_is_granted_on_every_resource_but_listing_queues() {
    // GIVEN the project's template
    let app = load_template().expect("template.yaml loads");
    for function in &app.functions {
        // WHEN the actions granted on `*` are listed
        let on_any = function.actions_on(&Target::Other("*".into()));
        // THEN only sqs:ListQueues (which IAM cannot scope) is among them
        let broad: Vec<&&str> = on_any
            .iter()
            .filter(|a| !a.eq_ignore_ascii_case("sqs:ListQueues"))
            .collect();
        assert!(
            broad.is_empty(),
            "{} is granted {broad:?} on every resource",
            function.logical_id
        );
    }
}

#[test]
fn every_sqs_event_source_can_poll_its_queue() {
    // GIVEN the functions fed by an SQS event source mapping
    let app = load_template().expect("template.yaml loads");
    for function in &app.functions {
        for event in &function.sqs_events {
            let queue = Target::from_arn(&event.queue_arn);
            // WHEN the actions granted on the event's queue are listed
            let granted = function.actions_on(&queue);
            // THEN the mapping can receive, delete and read attributes, as
            // Lambda requires of the execution role
            for needed in [
                "sqs:ReceiveMessage",
                "sqs:DeleteMessage",
                "sqs:GetQueueAttributes",
            ] {
                assert!(
                    granted.iter().any(|g| g.eq_ignore_ascii_case(needed)),
                    "{} event {} lacks {needed} on {queue:?}",
                    function.logical_id,
                    event.name
                );
            }
        }
    }
}

#[test]
fn the_orders_back_ends_may_only_read_their_table() {
    // GIVEN the project's template and the orders table
    let app = load_template().expect("template.yaml loads");
    let table = Target::table(&app.table("OrdersTable").expect("OrdersTable").name);
    for logical_id in ["OrdersBackendFunction", "OrdersWorkerFunction"] {
        // WHEN the actions granted on the table are listed
        let function = app.function(logical_id).expect("function");
        let granted = function.actions_on(&table);
        // THEN every one of them reads, and the Query the back end sends is among them
        let not_reads: Vec<&&str> = granted
            .iter()
            .filter(|a| !DYNAMODB_READS.iter().any(|r| r.eq_ignore_ascii_case(a)))
            .collect();
        assert!(
            not_reads.is_empty(),
            "{logical_id} may only read the orders table, but is granted {not_reads:?}"
        );
        assert!(
            granted.contains(&"dynamodb:Query"),
            "{logical_id}: {granted:?}"
        );
    }
}
