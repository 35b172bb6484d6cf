//! Positions the notation fuzz targets read moves against: the start, and positions with
//! like pieces stacked on files (tandem chariots, elephants, three to five soldiers, soldiers
//! stacked on two files), for both sides.
use xiangqi::Position;

pub const FENS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
    "3k5/9/9/9/9/9/8R/9/9/4K3R w - - 0 1",
    "2bk5/9/9/9/2b6/9/9/9/4A4/3AK4 b - - 0 1",
    "5k3/9/4P4/4P4/4P4/9/9/9/9/3K5 w - - 0 1",
    "5k3/4P4/4P4/4P4/4P4/4P4/9/9/9/3K5 w - - 0 1",
    "5k3/9/2P6/2P1P4/2P1P4/9/9/9/9/3K5 w - - 0 1",
    "5k3/9/9/9/2p6/2p3p2/2p3p2/9/9/4K4 b - - 0 1",
];

pub fn position(selector: u8) -> Position {
    Position::from_fen(FENS[selector as usize % FENS.len()]).expect("valid FEN")
}
