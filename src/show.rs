//! `xiangqi show FILE|FEN`: prints a position, or a game of a record file (stepped through
//! with the arrow keys in a terminal).

use crate::cli::ShowArgs;
use crate::Fail;

pub fn cmd_show(_a: &ShowArgs) -> Result<(), Fail> {
    Err(Fail("not yet".into(), 1))
}
