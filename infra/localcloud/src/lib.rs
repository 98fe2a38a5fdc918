//! The local cloud: composes the emulated services behind one endpoint.
