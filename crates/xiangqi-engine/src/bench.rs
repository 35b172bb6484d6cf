//! The positions of `bench`: a start position, common openings, a middlegame and endgames.
//! Each entry is a FEN (or `startpos`) and moves played from it.

/// Default search depth of `bench`.
pub const DEPTH: i32 = 12;

pub const POSITIONS: &[(&str, &str)] = &[
    ("startpos", ""),
    // Central cannon against screen horses.
    ("startpos", "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 g3g4 g6g5"),
    // Elephant opening.
    ("startpos", "c0e2 h9g7 h0g2 g6g5 b0c2 b9c7"),
    // Same-direction cannons.
    ("startpos", "b2e2 b7e7 b0c2 b9c7 a0b0 a9b9"),
    // Soldier opening.
    ("startpos", "g3g4 c6c5 h0g2 b9c7"),
    (
        "r1bakabr1/9/1cn4c1/p1p1p1p1p/6n2/2P6/P3P1P1P/1CN1C1N2/9/R1BAKAB1R w - - 0 1",
        "",
    ),
    (
        "2bak4/4a4/4b4/p3p3p/2n6/6P2/P3P3P/2N6/4A4/2BAK1B2 w - - 0 1",
        "",
    ),
    ("4ka3/4a4/9/9/9/9/9/9/9/3KR4 w - - 0 1", ""),
];
