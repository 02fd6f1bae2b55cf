//! Integration tests of the `tailrace` binary: it is run on temporary
//! safetensors files and its output is compared with the library crates.

mod bench;
mod common;
mod errors;
mod noise;
mod sample;
