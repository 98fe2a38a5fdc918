//! Behaviour of the public API, written once and run against every store
//! implementation (in memory, DynamoDB emulator). Each takes a fresh client.

pub use super::{tokens, Client};
use http::Method;

pub const GET: Method = Method::GET;
pub const POST: Method = Method::POST;
pub const PUT: Method = Method::PUT;
pub const DELETE: Method = Method::DELETE;

mod articles;
mod comments;
mod favorites;
mod profiles;
mod tags;
mod users;

pub use articles::*;
pub use comments::*;
pub use favorites::*;
pub use profiles::*;
pub use tags::*;
pub use users::*;

/// Every scenario above, for `$each!(name, ...)`.
#[macro_export]
macro_rules! all_scenarios {
    ($each:ident) => {
        $each!(
            registration_returns_201_with_user_and_token,
            registration_with_taken_username_or_email_is_409,
            registration_with_missing_empty_or_null_fields_is_422,
            registration_with_wrong_types_is_422,
            non_json_body_without_content_type_is_422,
            json_body_without_content_type_is_accepted,
            oversized_body_is_rejected_without_crash,
            login_returns_user_and_wrong_password_is_401,
            login_without_password_is_422,
            current_user_requires_a_token,
            current_user_is_returned_for_a_valid_token,
            forged_or_expired_token_is_401_even_where_auth_is_optional,
            update_user_changes_only_given_fields,
            update_user_can_rename_and_change_password,
            update_user_to_taken_email_is_409,
            update_user_with_empty_user_or_blank_email_is_422,
            empty_bio_and_image_are_stored_as_null,
            registration_stores_empty_bio_and_image_as_null,
            registration_enforces_the_password_length_policy,
            password_update_enforces_the_same_policy,
            emails_are_unique_case_insensitively_and_shown_as_typed,
            profile_of_unknown_user_is_404,
            follow_and_unfollow_toggle_following,
            follow_requires_auth_and_existing_user,
            create_article_returns_201_with_full_article,
            create_article_without_auth_is_401_and_without_title_is_422,
            equal_titles_get_distinct_slugs,
            get_unknown_article_is_404,
            list_articles_is_newest_first_without_body_with_count,
            list_articles_pages_with_offset_and_limit,
            list_articles_filters_by_tag_author_and_favorited,
            list_articles_combines_filters,
            feed_shows_followed_authors_only,
            feed_pages_across_several_authors,
            update_article_keeps_tags_unless_given_and_empty_list_clears,
            update_article_title_changes_slug,
            only_the_author_may_update_or_delete_an_article,
            update_article_with_blank_title_is_422,
            delete_article_is_204_and_then_404,
            favorite_and_unfavorite_update_count_idempotently,
            favorite_requires_auth_and_existing_article,
            lists_feed_and_updates_show_what_the_viewer_favorited,
            comments_can_be_added_listed_and_deleted_by_their_author,
            comment_errors_follow_the_spec,
            tags_lists_each_used_tag_once,
            unknown_route_is_404_json,
        );
    };
}
