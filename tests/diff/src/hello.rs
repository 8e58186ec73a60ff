// SPDX-License-Identifier: GPL-2.0
// A tiny Rust program: its binary carries Rust std's .eh_frame.
use std::collections::HashMap;

fn main() {
    let mut m = HashMap::new();
    for (i, a) in std::env::args().enumerate() {
        m.insert(a, i);
    }
    println!("{}", m.len());
}
