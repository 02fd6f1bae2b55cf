//! Integration tests of tailrace-audit (one binary).

mod common;
mod draws;
mod replay;
mod stats;
mod triton;
