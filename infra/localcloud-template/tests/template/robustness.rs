//! Arbitrary input never panics: it loads or it is reported.

use localcloud_template::load_str;
use proptest::prelude::*;

use crate::ctx;

/// Fragments that reach deep into the reader when shuffled together.
const PIECES: &[&str] = &[
    "Resources:\n",
    "  Fn:\n    Type: AWS::Serverless::Function\n",
    "    Properties:\n",
    "      Runtime: provided.al2023\n",
    "      Events:\n        E:\n          Type: HttpApi\n",
    "          Properties: {Method: GET, Path: /{x}}\n",
    "  Q:\n    Type: AWS::SQS::Queue\n",
    "      RedrivePolicy: {deadLetterTargetArn: !GetAtt Q.Arn, maxReceiveCount: 1}\n",
    "      Environment: {Variables: {A: !Sub '${Q.Arn}${'}}\n",
    "      Policies: [!Ref AWS::NoValue, {Statement: 1}]\n",
    "Conditions:\n  C: !Not [!Condition C]\n",
    "Globals: {Function: [1]}\n",
    "      X: !Select [9, !Split ['', x]]\n",
    "      Y: !If [C, !Join [1, 2], 3]\n",
    "  - ]\n",
    "Parameters: {P: {Type: Number, Default: x}}\n",
];

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
        let _ = load_str(&text, &ctx());
    }

    #[test]
    fn yaml_punctuation_soup_never_panics(text in "[a-zA-Z0-9 :\\-\\[\\]{}!&*,'\"|>#.$\n]{0,400}") {
        let _ = load_str(&text, &ctx());
    }

    #[test]
    fn shuffled_template_fragments_never_panic(picks in prop::collection::vec(0..PIECES.len(), 0..20)) {
        let text: String = picks.iter().map(|i| PIECES[*i]).collect();
        let _ = load_str(&format!("Transform: AWS::Serverless-2016-10-31\n{text}"), &ctx());
    }
}
