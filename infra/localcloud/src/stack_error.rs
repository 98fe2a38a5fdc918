//! Why a stack could not be brought up from its template.

#[derive(Debug, thiserror::Error)]
pub enum StackError {
    #[error(transparent)]
    Template(#[from] localcloud_template::TemplateError),
    #[error("cannot create {what}: {message}")]
    Resource { what: String, message: String },
    #[error("function {function}: no binary to run (tried {tried}); build the functions first with `cargo build --workspace --bins`{hint}, `sam build` or `cargo lambda build`")]
    MissingBinary {
        function: String,
        tried: String,
        hint: String,
    },
    #[error("cannot start {what}: {message}")]
    Start { what: String, message: String },
    /// A policy IAM would refuse (`MalformedPolicyDocument`).
    #[error("function {function}: {message}")]
    Policy { function: String, message: String },
    #[error("--memory-size {function}={mb}: the template has no function {function} (logical id or name)")]
    UnknownMemorySizeFunction { function: String, mb: u32 },
}
