//! IAM's wildcards: `*` matches any run of characters (also across `/` and
//! `:`), `?` any one character.
//! https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html

/// Case-sensitive match, as for resource ARNs and most condition values.
pub fn matches(pattern: &str, text: &str) -> bool {
    glob(pattern.as_bytes(), text.as_bytes(), false)
}

/// Case-insensitive match, as for action names (`dynamodb:getitem`).
pub fn matches_ignore_case(pattern: &str, text: &str) -> bool {
    glob(pattern.as_bytes(), text.as_bytes(), true)
}

fn glob(p: &[u8], t: &[u8], fold: bool) -> bool {
    let eq = |a: u8, b: u8| {
        if fold {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == b'?' || (p[pi] != b'*' && eq(p[pi], t[ti]))) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_iam_says() {
        let cases = [
            ("*", "anything", true),
            (
                "arn:aws:sqs:*:*:orders-*",
                "arn:aws:sqs:us-east-1:0:orders-1",
                true,
            ),
            (
                "arn:aws:dynamodb:r:0:table/T",
                "arn:aws:dynamodb:r:0:table/T/index/I",
                false,
            ),
            (
                "arn:aws:dynamodb:r:0:table/T/*",
                "arn:aws:dynamodb:r:0:table/T/index/I",
                true,
            ),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("Orders", "orders", false),
            ("", "", true),
            ("*a*b", "xxaxxb", true),
            ("*a*b", "xxaxxbc", false),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(matches(pattern, text), want, "{pattern} ~ {text}");
        }
    }

    #[test]
    fn actions_match_without_case() {
        assert!(matches_ignore_case("dynamodb:Get*", "dynamodb:getitem"));
        assert!(matches_ignore_case("SQS:SendMessage", "sqs:sendmessage"));
        assert!(!matches_ignore_case("sqs:Send*", "sqs:ReceiveMessage"));
    }
}
