//! The record formats of issue 29 read from real files (tests/data/records, sources in its
//! SOURCES.md): coordinate SAN in WinBoard's (ranks 0-9) and pychess-variants' (ranks 1-10)
//! numbering, XieXie `.wxf` files ending `}END`, and EPD/FEN files.

use std::path::PathBuf;

use xiangqi::notation::Notation;
use xiangqi_record::detect::{read_any, read_any_mode, read_any_strict, Mode, RecordFormat};
use xiangqi_record::pgn::{self, detect_san_ranks, SanRanks};
use xiangqi_record::GameRecord;

#[path = "common/readers.rs"]
mod readers;

fn data(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/records")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every game of the file, read strictly; each replays legally.
fn games(name: &str) -> (RecordFormat, Vec<GameRecord>) {
    let r = read_any_strict(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let games: Vec<GameRecord> = r
        .games
        .into_iter()
        .enumerate()
        .map(|(i, g)| g.unwrap_or_else(|e| panic!("{name} game {}: {e}", i + 1)))
        .collect();
    for g in &games {
        readers::replay_legally(&g.start, &g.moves);
    }
    (r.format, games)
}

fn iccs(g: &GameRecord) -> Vec<String> {
    g.mainline().map(|m| m.to_string()).collect()
}

#[test]
fn winboard_san_files_read_in_ranks_0_to_9() {
    let text = String::from_utf8(data("elephantchess-winboard-cyclone-eleeye.pgn")).unwrap();
    assert_eq!(detect_san_ranks(&text), Some(SanRanks::ZeroToNine));
    let (format, g) = games("elephantchess-winboard-cyclone-eleeye.pgn");
    assert_eq!(format, RecordFormat::Pgn);
    assert_eq!(g.len(), 1);
    // 66. c5: Red's 66th move is the last, ply 131.
    assert_eq!(g[0].moves.len(), 131);
    // 1. Cbe2 Hg7 2. Hc2 Cd7: ranks 0-9 as ICCS writes them.
    assert_eq!(iccs(&g[0])[..4], ["b2e2", "h9g7", "b0c2", "b7d7"]);
    // The engine's evaluations are kept as comments.
    assert_eq!(g[0].moves[0].comment.as_deref(), Some("+0.38/19"));
    assert_eq!(g[0].tag("Variant"), Some("xiangqi"));

    let (_, g) = games("elephantchess-winboard-issue545.pgn");
    assert_eq!(g.len(), 1);
    // Ends with Black's 56... Hd3+: 112 plies.
    assert_eq!(g[0].moves.len(), 112);
    assert_eq!(iccs(&g[0])[..2], ["b2e2", "b9c7"]);
}

#[test]
fn pychess_san_file_reads_in_ranks_1_to_10() {
    let text = String::from_utf8(data("elephantchess-pychess-davide2022.pgn")).unwrap();
    assert_eq!(detect_san_ranks(&text), Some(SanRanks::OneToTen));
    let (format, g) = games("elephantchess-pychess-davide2022.pgn");
    assert_eq!(format, RecordFormat::Pgn);
    assert_eq!(g.len(), 26);
    // 1. Cbe3 Hc8 2. Pc5 Rb10: pychess's b3 is ICCS b2.
    assert_eq!(iccs(&g[0])[..4], ["b2e2", "b9c7", "c3c4", "a9b9"]);
    // 40 moves each side, ending 40. Af3 Kf10 0-1.
    assert_eq!(g[0].moves.len(), 80);
    assert_eq!(g[0].result, xiangqi_record::GameResult::BlackWins);
    assert_eq!(g[0].tag("White"), Some("davide2022"));
    // Every game's result agrees with its last move: a mate ends on `#` in the file.
    assert!(g.iter().all(|g| !g.moves.is_empty()));
}

#[test]
fn the_numbering_is_told_by_a_move_only_one_can_be() {
    // No rank 0 or 10 anywhere: read as WinBoard first, pychess when only that is legal.
    assert_eq!(detect_san_ranks("1. Che2 Hg7 2. Hc2"), None);
    let g = pgn::read_all("[Variant \"xiangqi\"]\n1. Che2 Hg7 *")
        .remove(0)
        .unwrap();
    assert_eq!(iccs(&g), ["h2e2", "h9g7"]);
    // `Che3` is no WinBoard move from the start (h2-e3 is no cannon move): pychess.
    let g = pgn::read_all("[Variant \"Xiangqi\"]\n1. Che3 Hg8 2. Hg3 *")
        .remove(0)
        .unwrap();
    assert_eq!(iccs(&g), ["h2e2", "h9g7", "h0g2"]);
    // Words of comments do not count.
    assert_eq!(
        detect_san_ranks("1. Che2 {Rh10} Hg7 ; Ad10\n2. Rb0"),
        Some(SanRanks::ZeroToNine)
    );
    // Told by a later move.
    assert_eq!(
        detect_san_ranks("1. Pg5 Hg8 2. Hg3 Rh10 *"),
        Some(SanRanks::OneToTen)
    );
    let g = pgn::read_all("1. Pg5 Hg8 2. Hg3 Rh10 *").remove(0).unwrap();
    assert_eq!(iccs(&g), ["g3g4", "h9g7", "h0g2", "i9h9"]);
    let e = pgn::read_all("[Event \"x\"]\n1. Che3 Hg8 2. Cxe9 *")
        .remove(0)
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("game 1") && msg.contains("Cxe9") && msg.contains("ply 3"),
        "{msg}"
    );
    assert!(msg.contains("ranks 1-10"), "{msg}");
}

#[test]
fn xiexie_files_ending_with_end_read() {
    let (format, g) = games("elephantchess-xiexie-end-game2.wxf");
    assert_eq!(format, RecordFormat::XieXie);
    assert_eq!(g.len(), 1);
    // 51. H4+2 ends it: 101 plies.
    assert_eq!(g[0].moves.len(), 101);
    assert_eq!(g[0].tag("Red"), Some("Fairy Stockfish Winboard;;;"));
    // `5. R1+1! C2.3`: a mark glued to the move.
    assert_eq!(g[0].moves[8].nags, [1]);
    let back = pgn::read_all(&pgn::write_games([&g[0]], Notation::Wxf))
        .remove(0)
        .unwrap();
    assert_eq!(back.moves, g[0].moves);
}

#[test]
fn an_ambiguous_xiexie_move_cuts_the_game_there_leniently() {
    let bytes = data("elephantchess-xiexie-end-game1.wxf");
    // `61. C6-5 P3+1`: Black has soldiers on c1 and c3 (file 3) and XieXie wrote no
    // front/rear. Strictly the game is an error naming the game, line and move.
    let strict = read_any_strict(&bytes).unwrap();
    let e = strict.games[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("game 1")
            && e.contains("line 38")
            && e.contains("P3+1")
            && e.contains("ply 122"),
        "{e}"
    );
    // Leniently it is still the game's error (a bad main-line move); salvaging, the game is
    // kept up to the move before, with one warning saying so.
    assert!(read_any(&bytes).unwrap().games[0].is_err());
    let r = read_any_mode(&bytes, Mode::Salvage).unwrap();
    assert_eq!(r.format, RecordFormat::XieXie);
    let g = r.games[0].as_ref().unwrap();
    readers::replay_legally(&g.start, &g.moves);
    assert_eq!(g.moves.len(), 121);
    assert_eq!(r.warnings.len(), 1);
    let w = r.warnings[0].to_string();
    assert!(
        w.contains("P3+1") && w.contains("the game is kept up to"),
        "{w}"
    );
    // `11. C8+2 C8-2 !!12. E5+7`: the mark before the move number is Black's 11th move's.
    assert_eq!(g.moves[21].nags, [3]);
}

#[test]
fn fen_lines_read_as_games_with_no_moves() {
    let (format, g) = games("ianfab-books-xiangqi-first200.epd");
    assert_eq!(format, RecordFormat::Epd);
    assert_eq!(g.len(), 200);
    assert!(g.iter().all(|g| g.moves.is_empty()));
    // Line by line: the position is the line's FEN (placement, side, counters).
    let text = String::from_utf8(data("ianfab-books-xiangqi-first200.epd")).unwrap();
    for (line, g) in text.lines().zip(&g) {
        assert_eq!(g.start.fen(), line.trim(), "{line}");
    }
}

#[test]
fn title_bar_fen_lines_of_the_cchess_library_read() {
    let r = read_any(&data("walker-cchess-level0.epd")).unwrap();
    assert_eq!(r.format, RecordFormat::Epd);
    // 263 puzzles; 6 are no legal position (5 with the side not to move in check, one with
    // an advisor off its points): skipped, each with a warning naming its line.
    assert_eq!(r.games.len(), 257);
    let lines: Vec<String> = r.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert!(lines[0].contains("position 37 (line 37)") && lines[0].contains("in check"));
    assert!(lines[5].contains("line 246") && lines[5].contains("advisor on d9"));
    let g: Vec<GameRecord> = r.games.into_iter().map(Result::unwrap).collect();
    assert_eq!(g[0].tag("Event"), Some("兵的杀法"));
    assert_eq!(g[0].start.fen(), "9/3k5/3aP4/9/9/9/9/9/9/4K4 w - - 0 1");
    // Written as PGN (a FEN tag, no moves) and read back: the same positions and titles.
    let written = pgn::write_games(g.iter(), Notation::Iccs);
    let back: Vec<GameRecord> = pgn::read_all(&written)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back.len(), g.len());
    for (a, b) in g.iter().zip(&back) {
        assert_eq!(
            (a.start.fen(), a.tag("Event")),
            (b.start.fen(), b.tag("Event"))
        );
    }
}

#[test]
fn a_bad_position_line_is_skipped_with_a_warning_naming_its_line() {
    let mut text = String::from_utf8(data("ianfab-books-xiangqi-first200.epd")).unwrap();
    // Line 3's board loses a rank.
    let lines: Vec<&str> = text.lines().collect();
    let bad = lines[2].replacen("/9/", "/", 1);
    text = text.replacen(lines[2], &bad, 1);
    let r = read_any(text.as_bytes()).unwrap();
    assert_eq!(r.format, RecordFormat::Epd);
    assert_eq!(r.games.len(), 199);
    assert_eq!(r.warnings.len(), 1);
    let w = r.warnings[0].to_string();
    assert!(
        w.contains("position 3 (line 3)") && w.contains("9 ranks"),
        "{w}"
    );
    // Strictly it is the third game's error, the others read.
    let s = read_any_strict(text.as_bytes()).unwrap();
    assert_eq!(s.games.len(), 200);
    assert!(s.games[2].is_err() && s.games[3].is_ok());
    assert_eq!(s.games[2].as_ref().unwrap_err().game(), Some(3));
}

#[test]
fn salvaging_keeps_every_pgn_game_up_to_its_bad_move() {
    let text =
        "[Event \"a\"]\n1. h2e2 h9g7 2. a0a5 h0g2 *\n\n[Event \"b\"]\n1. Che3 Hg8 2. Cxe9 *\n";
    // Read leniently, both games are errors; salvaging, both are kept up to the bad move.
    let r = read_any(text.as_bytes()).unwrap();
    assert!(r.games.iter().all(|g| g.is_err()));
    let r = read_any_mode(text.as_bytes(), Mode::Salvage).unwrap();
    let g: Vec<&GameRecord> = r.games.iter().map(|g| g.as_ref().unwrap()).collect();
    assert_eq!(iccs(g[0]), ["h2e2", "h9g7"]);
    assert_eq!(iccs(g[1]), ["h2e2", "h9g7"]);
    let w: Vec<String> = r.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("game 1, line 2") && w[0].contains("'a0a5' (ply 3)"),
        "{w:?}"
    );
    assert!(
        w[1].contains("game 2, line 5") && w[1].contains("'Cxe9' (ply 3)"),
        "{w:?}"
    );
}

#[test]
fn dhtmlxq_forum_tags_without_the_wrapper_read() {
    // A UBB forum post: the DhtmlXQ tags with no `[DhtmlXQ]...[/DhtmlXQ]` around them.
    let post = "看这盘棋：\n[DhtmlXQ_title]测试[/DhtmlXQ_title]\n\
                [DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]\n谢谢";
    let r = read_any(post.as_bytes()).unwrap();
    assert_eq!(r.format, RecordFormat::DhtmlXq);
    let g = r.games[0].as_ref().unwrap();
    assert_eq!(iccs(g), ["h2e2", "h9g7"]);
}
