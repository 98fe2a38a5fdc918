//! Where usage comes from: the local cloud's metering and Lambda REPORT log lines.
//! (The third source, the what-if calculator, lives in `whatif`.)

pub mod lambda_report;
pub mod localcloud;
