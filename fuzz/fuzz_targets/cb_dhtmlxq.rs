//! Any bytes: the CBR, CBL, CBF and DhtmlXQ readers, and the PengFei PFC, QQ CHE, XQR, CCM,
//! Yitian MXQ and Ourgame CHN readers, never panic; whatever they read replays legally, and each lenient reading
//! agrees with the strict one. The input is also tried as the move area of a CBR record with
//! the standard start (so mutations reach the move tree), as the body of a DhtmlXQ move list and
//! of a CBF move list, and made into each of PFC, CHE, XQR (with a correct CRC), CCM (both
//! layouts), MXQ and CHN (both layouts). The checks live in
//! `crates/xiangqi-record/tests/common/readers.rs`, shared with the plain test suite.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/xiangqi-record/tests/common/readers.rs"]
mod readers;

fuzz_target!(|data: &[u8]| {
    readers::cb_dhtmlxq_target(data);
});
