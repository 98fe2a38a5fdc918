//! `/var/rapid/init` in LocalStack's Lambda containers (see the library).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = localstack_init::Config::from_env(|name| std::env::var(name).ok(), args)
        .unwrap_or_else(|e| {
            eprintln!("init: {e}");
            std::process::exit(2)
        });
    if let Err(e) = localstack_init::run(config) {
        eprintln!("init: {e}");
        std::process::exit(1);
    }
}
