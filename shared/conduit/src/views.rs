//! Wire shapes of the responses (OpenAPI `User`, `Profile`, `Article`, `Comment`).

use serde::Serialize;

use crate::model::{Article, BodyText, Comment, Profile, User};

#[derive(Debug, Serialize)]
pub struct UserView {
    pub email: String,
    pub token: String,
    pub username: String,
    pub bio: Option<String>,
    pub image: Option<String>,
}

impl UserView {
    pub fn new(user: User, token: String) -> Self {
        Self {
            email: user.email,
            token,
            username: user.username,
            bio: user.bio,
            image: user.image,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ProfileView {
    pub username: String,
    pub bio: Option<String>,
    pub image: Option<String>,
    pub following: bool,
}

impl ProfileView {
    pub fn new(profile: &Profile, following: bool) -> Self {
        Self {
            username: profile.username.clone(),
            bio: profile.bio.clone(),
            image: profile.image.clone(),
            following,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArticleView {
    pub slug: String,
    pub title: String,
    pub description: String,
    /// Absent in lists (spec 2.0: `MultipleArticlesResponse` items have no body).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    pub tag_list: Vec<String>,
    pub created_at: String,
    pub updated_at: String,
    pub favorited: bool,
    pub favorites_count: i64,
    pub author: ProfileView,
}

impl ArticleView {
    /// With the body if the article carries one (lists read none).
    pub fn new<B: BodyText>(article: Article<B>, favorited: bool, author: ProfileView) -> Self {
        Self {
            slug: article.slug,
            title: article.title,
            description: article.description,
            body: article.body.into_text(),
            tag_list: article.tags,
            created_at: article.created_at.to_rfc3339(),
            updated_at: article.updated_at.to_rfc3339(),
            favorited,
            favorites_count: article.favorites_count.max(0),
            author,
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentView {
    pub id: i64,
    pub created_at: String,
    pub updated_at: String,
    pub body: String,
    pub author: ProfileView,
}

impl CommentView {
    pub fn new(comment: Comment, author: ProfileView) -> Self {
        Self {
            id: comment.id,
            created_at: comment.created_at.to_rfc3339(),
            updated_at: comment.updated_at.to_rfc3339(),
            body: comment.body,
            author,
        }
    }
}
