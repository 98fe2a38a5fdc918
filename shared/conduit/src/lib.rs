//! The RealWorld Conduit API.
