//! A realistic, reproducible data set for load tests (`conduit-seed`).
//!
//! Users are `user<i>` / `user<i>@seed.conduit.local`, all with the password
//! [`SEED_PASSWORD`]: it is hashed once and the hash reused, so seeding takes
//! seconds. Article `i` has the slug `<title words>-<i>`; tags come from a fixed pool.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::model::{slug_base, Article, Comment, Timestamp, User, UserId};

pub const SEED_PASSWORD: &str = "conduit-seed-password";

#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub users: usize,
    pub articles: usize,
    pub comments: usize,
    pub follows_per_user: usize,
    pub favorites_per_user: usize,
}

#[derive(Debug, Default)]
pub struct SeedData {
    pub users: Vec<User>,
    pub follows: Vec<(UserId, UserId)>,
    pub articles: Vec<Article>,
    /// (index into `articles`, user id)
    pub favorites: Vec<(usize, UserId)>,
    pub comments: Vec<Comment>,
}

const TAGS: &[&str] = &[
    "rust",
    "aws",
    "lambda",
    "serverless",
    "dynamodb",
    "databases",
    "devops",
    "testing",
    "performance",
    "architecture",
    "microservices",
    "monolith",
    "cloud",
    "security",
    "web",
    "frontend",
    "backend",
    "api",
    "design",
    "career",
    "productivity",
    "open-source",
    "linux",
    "networking",
    "observability",
    "cost",
    "scaling",
    "caching",
    "queues",
    "events",
];
const WORDS: &[&str] = &[
    "fast",
    "simple",
    "practical",
    "hidden",
    "modern",
    "robust",
    "cheap",
    "lazy",
    "eager",
    "guide",
    "lessons",
    "patterns",
    "pitfalls",
    "notes",
    "journey",
    "story",
    "tricks",
    "myths",
    "serverless",
    "functions",
    "tables",
    "queues",
    "latency",
    "throughput",
    "budgets",
    "teams",
];

pub fn username(i: usize) -> String {
    format!("user{i}")
}

pub fn email(i: usize) -> String {
    format!("user{i}@seed.conduit.local")
}

fn words(rng: &mut StdRng, count: usize) -> String {
    (0..count)
        .map(|_| WORDS[rng.random_range(0..WORDS.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

fn sentence(rng: &mut StdRng) -> String {
    let n = rng.random_range(8..16);
    let mut s = words(rng, n);
    if let Some(first) = s.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    s.push('.');
    s
}

fn paragraph(rng: &mut StdRng, sentences: usize) -> String {
    (0..sentences)
        .map(|_| sentence(rng))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Deterministic for a given `seed` and `now`.
pub fn generate(sizes: Sizes, seed: u64, password_hash: &str, now: Timestamp) -> SeedData {
    let mut rng = StdRng::seed_from_u64(seed);
    let year_ms = 365 * 24 * 3600 * 1000_i64;
    let users: Vec<User> = (0..sizes.users)
        .map(|i| User {
            id: format!("seed-user-{i}"),
            username: username(i),
            email: email(i),
            password_hash: password_hash.to_owned(),
            bio: (i % 3 != 0).then(|| sentence(&mut rng)),
            image: (i % 2 == 0)
                .then(|| format!("https://api.realworld.io/images/smiley-cyrus.jpeg?u={i}")),
        })
        .collect();
    let pick_user = |rng: &mut StdRng| rng.random_range(0..sizes.users.max(1));

    let mut follows = HashSet::new();
    if sizes.users > 1 {
        for (i, user) in users.iter().enumerate() {
            for _ in 0..sizes.follows_per_user.min(sizes.users - 1) {
                let other = pick_user(&mut rng);
                if other != i {
                    follows.insert((user.id.clone(), users[other].id.clone()));
                }
            }
        }
    }

    let articles: Vec<Article> = if users.is_empty() {
        Vec::new()
    } else {
        (0..sizes.articles)
            .map(|i| {
                let n = rng.random_range(2..6);
                let title = format!("{} {i}", words(&mut rng, n));
                let created = Timestamp(now.millis() - rng.random_range(0..year_ms));
                let tag_count = rng.random_range(0..4);
                let mut tags: Vec<String> = Vec::new();
                for _ in 0..tag_count {
                    let tag = TAGS[rng.random_range(0..TAGS.len())].to_owned();
                    if !tags.contains(&tag) {
                        tags.push(tag);
                    }
                }
                let author = &users[pick_user(&mut rng)];
                let paragraphs = rng.random_range(2..6);
                Article {
                    id: format!("seed-article-{i}"),
                    slug: slug_base(&title),
                    description: sentence(&mut rng),
                    body: (0..paragraphs)
                        .map(|_| paragraph(&mut rng, 4))
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                    title,
                    tags,
                    author_id: author.id.clone(),
                    created_at: created,
                    updated_at: created,
                    favorites_count: 0,
                }
            })
            .collect()
    };

    let mut favorites = HashSet::new();
    if !articles.is_empty() {
        for user in &users {
            for _ in 0..sizes.favorites_per_user.min(articles.len()) {
                favorites.insert((rng.random_range(0..articles.len()), user.id.clone()));
            }
        }
    }

    let mut comment_ids = HashSet::new();
    let mut comments = Vec::with_capacity(sizes.comments);
    if !articles.is_empty() {
        for _ in 0..sizes.comments {
            let article = &articles[rng.random_range(0..articles.len())];
            let span = (now.millis() - article.created_at.millis()).max(1);
            let created = Timestamp(article.created_at.millis() + rng.random_range(0..span));
            let mut id = created.millis() * 1000 + rng.random_range(0..1000);
            while !comment_ids.insert((article.id.clone(), id)) {
                id += 1;
            }
            let sentences = rng.random_range(1..4);
            comments.push(Comment {
                id,
                article_id: article.id.clone(),
                author_id: users[pick_user(&mut rng)].id.clone(),
                body: paragraph(&mut rng, sentences),
                created_at: created,
                updated_at: created,
            });
        }
    }

    SeedData {
        users,
        follows: follows.into_iter().collect(),
        articles,
        favorites: favorites.into_iter().collect(),
        comments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Sizes {
        Sizes {
            users: 20,
            articles: 100,
            comments: 300,
            follows_per_user: 5,
            favorites_per_user: 4,
        }
    }

    #[test]
    fn generated_sizes_match_the_request_and_slugs_are_unique() {
        let data = generate(small(), 7, "hash", Timestamp(1_800_000_000_000));
        assert_eq!(data.users.len(), 20);
        assert_eq!(data.articles.len(), 100);
        assert_eq!(data.comments.len(), 300);
        let slugs: HashSet<&str> = data.articles.iter().map(|a| a.slug.as_str()).collect();
        assert_eq!(slugs.len(), 100);
        assert!(data.follows.iter().all(|(a, b)| a != b));
        assert!(!data.favorites.is_empty());
    }

    #[test]
    fn same_seed_gives_same_data() {
        let now = Timestamp(1_800_000_000_000);
        let a = generate(small(), 1, "h", now);
        let b = generate(small(), 1, "h", now);
        assert_eq!(a.articles, b.articles);
        assert_eq!(a.comments, b.comments);
    }

    #[test]
    fn comments_are_not_older_than_their_article() {
        let data = generate(small(), 3, "h", Timestamp(1_800_000_000_000));
        for c in &data.comments {
            let article = data.articles.iter().find(|a| a.id == c.article_id).unwrap();
            assert!(c.created_at >= article.created_at);
        }
    }
}
