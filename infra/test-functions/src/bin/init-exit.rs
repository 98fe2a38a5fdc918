//! Fails during init: exits with code 2 before polling for its first event.

fn main() {
    eprintln!("init-exit: configuration missing, exiting during init");
    std::process::exit(2);
}
