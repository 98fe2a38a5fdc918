//! The two listeners' connections: a thread each, keep-alive unless the
//! client asks to close.

use std::io::BufReader;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use crate::http::{read_request, write_response, Request};
use crate::invoke::Init;

type Handler = fn(&Init, &Request) -> (u16, Vec<(String, String)>, Vec<u8>);

/// Serves `listener`'s connections, a thread each, keep-alive.
pub(crate) fn serve(init: Arc<Init>, listener: TcpListener, handler: Handler) {
    for stream in listener.incoming().flatten() {
        let init = Arc::clone(&init);
        std::thread::spawn(move || serve_connection(&init, stream, handler));
    }
}

fn serve_connection(init: &Init, stream: TcpStream, handler: Handler) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        match read_request(&mut reader) {
            Ok(Some(request)) => {
                let (status, headers, body) = handler(init, &request);
                let close = request
                    .header("Connection")
                    .is_some_and(|v| v.eq_ignore_ascii_case("close"));
                if write_response(&mut writer, status, &headers, &body).is_err() || close {
                    return;
                }
            }
            Ok(None) => return,
            Err(e) => {
                let _ = write_response(&mut writer, 400, &[], e.to_string().as_bytes());
                return;
            }
        }
    }
}
