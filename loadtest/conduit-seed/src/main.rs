//! Loads a realistic Conduit data set into EMPTY tables with BatchWriteItem.
//!
//!     AWS_ENDPOINT_URL=http://127.0.0.1:4566 conduit-seed --create-tables
//!
//! Every user `user<i>` (email `user<i>@seed.conduit.local`) has the password
//! `conduit-seed-password`, hashed once with Argon2id and reused.

use std::time::Instant;

use anyhow::Context;
use clap::Parser;
use conduit::model::Timestamp;
use conduit::passwords::Passwords;
use conduit::seed::{generate, Sizes, SEED_PASSWORD};
use conduit::store::dynamo::{create_tables, BulkLoader, TableNames};

#[derive(Parser, Debug)]
#[command(about = "Seed the Conduit DynamoDB tables (must be empty)")]
struct Args {
    #[arg(long, default_value_t = 1_000)]
    users: usize,
    #[arg(long, default_value_t = 10_000)]
    articles: usize,
    #[arg(long, default_value_t = 50_000)]
    comments: usize,
    #[arg(long, default_value_t = 10)]
    follows_per_user: usize,
    #[arg(long, default_value_t = 20)]
    favorites_per_user: usize,
    /// Random seed: the same seed gives the same data set.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// BatchWriteItem calls in flight.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    #[arg(long, env = "USERS_TABLE", default_value = "conduit-users")]
    users_table: String,
    #[arg(long, env = "FOLLOWS_TABLE", default_value = "conduit-follows")]
    follows_table: String,
    #[arg(long, env = "ARTICLES_TABLE", default_value = "conduit-articles")]
    articles_table: String,
    #[arg(long, env = "COMMENTS_TABLE", default_value = "conduit-comments")]
    comments_table: String,
    /// Create the four tables first (local runs; on AWS the template does it).
    #[arg(long)]
    create_tables: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let tables = TableNames {
        users: args.users_table.clone(),
        follows: args.follows_table.clone(),
        articles: args.articles_table.clone(),
        comments: args.comments_table.clone(),
    };
    // Honours AWS_ENDPOINT_URL, AWS_REGION and the usual credential chain.
    let config = aws_config::load_from_env().await;
    let client = aws_sdk_dynamodb::Client::new(&config);
    if args.create_tables {
        create_tables(&client, &tables)
            .await
            .context("creating tables")?;
    }

    let started = Instant::now();
    let hash = Passwords::default()
        .hash(SEED_PASSWORD)
        .await
        .context("hashing the seed password")?;
    let sizes = Sizes {
        users: args.users,
        articles: args.articles,
        comments: args.comments,
        follows_per_user: args.follows_per_user,
        favorites_per_user: args.favorites_per_user,
    };
    let data = generate(sizes, args.seed, &hash, Timestamp::now());
    let loader = BulkLoader::new(client, tables, args.concurrency);
    let items = loader.users(&data.users).await.context("users")?
        + loader.follows(&data.follows).await.context("follows")?
        + loader
            .articles(&data.articles, &data.favorites)
            .await
            .context("articles")?
        + loader.comments(&data.comments).await.context("comments")?;
    println!(
        "{}",
        serde_json::json!({
            "users": data.users.len(),
            "follows": data.follows.len(),
            "articles": data.articles.len(),
            "favorites": data.favorites.len(),
            "comments": data.comments.len(),
            "items": items,
            "seconds": started.elapsed().as_secs_f64(),
            "password": SEED_PASSWORD,
        })
    );
    Ok(())
}
