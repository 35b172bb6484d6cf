//! Any bytes: the XQF reader never panics, whatever it is given, both as a whole file and as
//! the move area of a file whose header is built from the first bytes (so that mutations
//! reach the move tree of every version, plain and encrypted). Whatever it reads replays
//! legally, and the lenient reading agrees with the strict one. The checks live in
//! `crates/xiangqi-record/tests/common/readers.rs`, shared with the plain test suite.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/xiangqi-record/tests/common/readers.rs"]
mod readers;

fuzz_target!(|data: &[u8]| {
    readers::xqf_target(data);
});
