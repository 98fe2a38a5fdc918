//! Loads a SAM template and prints what the local cloud would create, or
//! every problem found: `cargo run -p localcloud-template --example check -- template.yaml`.

use localcloud_template::{load, ResolveContext};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: check <template.yaml>");
        std::process::exit(2);
    };
    let ctx = ResolveContext {
        generate_no_echo: true,
        ..ResolveContext::default()
    };
    match load(&path, &ctx) {
        Ok(app) => {
            for w in &app.warnings {
                println!("{w}");
            }
            println!("{app:#?}");
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
