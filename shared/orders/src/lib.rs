//! orders
