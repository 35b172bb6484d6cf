//! Real files of other programs (issue 29): the sample folder of zfdang/chinese-chess-fish-android
//! (MIT; tests/data/records/SOURCES.md), one game of each kind, several of them the same game
//! in two formats, which must then agree: 联众's binary `.chn` and `.xqi` and its text export,
//! 象棋桥's `.cbf`, its text export and a PGN of the same opening study, 17pk's `.ccm`, QQ象棋's
//! `.che` and 弈天's `.mxq`.

use xiangqi_record::detect::{read_any, read_any_mode, read_any_strict, Mode, RecordFormat};
use xiangqi_record::MoveNode;

#[path = "common/readers.rs"]
mod readers;

use readers::{ccbridge_compressed, data, game};

fn bare(line: &[MoveNode]) -> Vec<String> {
    line.iter().map(|n| n.mv.to_string()).collect()
}

/// Cut and garbled copies: no panic, whatever reads replays legally.
fn cut_and_garbled_never_panic(bytes: &[u8]) {
    readers::cut_and_garbled_never_panic(bytes, 1 + bytes.len() / 600, 100);
}

#[test]
fn ourgame_chn_xqi_and_text_export_are_one_game() {
    let (f, chn) = game("zfdang-ourgame.chn");
    assert_eq!(f, RecordFormat::Chn);
    let (f, xqi) = game("zfdang-ourgame.xqi");
    assert_eq!(f, RecordFormat::Chn);
    let (f, text) = game("zfdang-ourgame-text-gbk.txt");
    assert_eq!(f, RecordFormat::ChineseText);
    let (chn, xqi, text_moves) = (bare(&chn.moves), bare(&xqi.moves), bare(&text.moves));
    assert_eq!(chn.len(), 45);
    // The .xqi was saved a ply earlier; the text export has the same 44 plies.
    assert_eq!(xqi, chn[..44]);
    assert_eq!(text_moves, xqi);
    assert_eq!(&chn[..4], ["h2e2", "b9c7", "h0g2", "h7e7"]);
    // The header: players, date and title, as the text export gives them.
    let (_, g) = game("zfdang-ourgame.chn");
    assert_eq!(g.tag("Red"), Some("木易四郎"));
    assert_eq!(g.tag("Black"), Some("温柔一刀"));
    assert_eq!(g.tag("Date"), Some("2016.12.27"));
    let (_, x) = game("zfdang-ourgame.xqi");
    assert_eq!(x.tag("Event"), Some("红方[689] - 黑方[811]"));
    assert_eq!(text.tag("Title"), Some("红方[689] - 黑方[811]"));
    assert_eq!(text.tag("Date"), Some("2016.12.27"));
    assert_eq!(text.tag("Red"), Some("木易四郎(05355621689)"));
    assert_eq!(text.tag("RedTime"), Some("2分 24秒"));
    assert_eq!(text.tag("BlackTime"), Some("4分  1秒"));
    cut_and_garbled_never_panic(&data("zfdang-ourgame.chn"));
    cut_and_garbled_never_panic(&data("zfdang-ourgame.xqi"));
}

#[test]
fn ourgame_chn_cut_short_keeps_its_moves_when_salvaging() {
    let b = data("zfdang-ourgame.chn");
    let cut = &b[..b.len() - 20];
    let e = read_any_strict(cut).err().map(|e| e.to_string());
    let r = read_any_mode(cut, Mode::Salvage).unwrap();
    assert_eq!(r.format, RecordFormat::Chn, "{e:?}");
    let g = r.games[0].as_ref().unwrap();
    assert_eq!(g.moves.len(), 44);
    assert!(!r.warnings.is_empty());
}

#[test]
fn ccbridge_cbf_text_export_and_pgn_agree() {
    // (Read leniently: two of its branches hold an illegal move, the next test.)
    let r = read_any(&data("zfdang-ccbridge.cbf")).unwrap();
    assert_eq!(r.format, RecordFormat::Cbf);
    let cbf = r.games.into_iter().next().unwrap().unwrap();
    readers::replay_legally(&cbf.start, &cbf.moves);
    let (f, text) = game("zfdang-ccbridge-text.txt");
    assert_eq!(f, RecordFormat::ChineseText);
    let (f, pgn) = game("zfdang-ccbridge-text.pgn");
    assert_eq!(f, RecordFormat::Pgn);
    // The text export and the PGN: the same 45 plies, the same opening comment.
    assert_eq!(bare(&text.moves), bare(&pgn.moves));
    assert_eq!(text.moves.len(), 45);
    assert_eq!(text.comment.as_deref(), Some("最新弈法"));
    assert_eq!(pgn.comment.as_deref(), Some("最新弈法"));
    assert_eq!(text.tag("ECCO"), Some("C66 五七炮对屏风马进７卒"));
    // The CBF is the study that line comes from: the same opening comment, a tree of
    // alternatives (its `branch` and `end` marks), and the line among its branches.
    assert_eq!(cbf.comment.as_deref().map(str::trim), Some("最新弈法"));
    fn count(line: &[MoveNode]) -> usize {
        line.iter()
            .map(|n| n.variations.len() + n.variations.iter().map(|v| count(v)).sum::<usize>())
            .sum()
    }
    assert!(count(&cbf.moves) > 30, "{}", count(&cbf.moves));
    /// Whether `want` is a path of the tree from its root.
    fn has_path(line: &[MoveNode], want: &[String]) -> bool {
        if want.is_empty() {
            return true;
        }
        let Some(first) = line.first() else {
            return false;
        };
        if first.mv.to_string() == want[0] && has_path(&line[1..], &want[1..]) {
            return true;
        }
        first.variations.iter().any(|v| has_path(v, want))
    }
    assert!(has_path(&cbf.moves, &bare(&pgn.moves)));
    cut_and_garbled_never_panic(&data("zfdang-ccbridge-text.txt"));
}

#[test]
fn ccbridge_cbf_with_two_broken_branches_reads_leniently() {
    // Two of the study's alternatives hold an illegal move (a general stepping into check):
    // the lenient reading drops those two branches from that move on, with a warning each.
    let r = read_any(&data("zfdang-ccbridge.cbf")).unwrap();
    assert_eq!(r.format, RecordFormat::Cbf);
    assert!(r.games[0].is_ok());
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r
        .warnings
        .iter()
        .all(|w| w.to_string().contains("in a variation")));
}

#[test]
fn pk17_ccm_reads_its_hundred_moves() {
    let (f, g) = game("zfdang-17pk.ccm");
    assert_eq!(f, RecordFormat::Ccm);
    assert_eq!(g.moves.len(), 100);
    assert_eq!(&bare(&g.moves)[..4], ["h2d2", "b7e7", "h0g2", "b9c7"]);
    assert_eq!(g.tag("Date"), Some("2016.12.26"));
    cut_and_garbled_never_panic(&data("zfdang-17pk.ccm"));
}

#[test]
fn qq_che_ends_with_an_illegal_move_and_a_general_taken() {
    // QQ象棋 let Red play 31. 仕五进四 with its general exposed to a cannon, and Black took
    // the general: the record's last two moves. Strictly that is the error, naming the move;
    // salvaging keeps the 60 plies before it.
    let b = data("zfdang-qqchess.che");
    let r = read_any_strict(&b).unwrap();
    let e = r.games[0].as_ref().unwrap_err().to_string();
    assert!(e.contains("illegal move e1d2 at ply 61"), "{e}");
    let r = read_any_mode(&b, Mode::Salvage).unwrap();
    assert_eq!(r.format, RecordFormat::Che);
    assert_eq!(r.games[0].as_ref().unwrap().moves.len(), 60);
    cut_and_garbled_never_panic(&b);
}

#[test]
fn yitian_mxq_reads_names_result_and_moves() {
    let (f, g) = game("zfdang-movesky.mxq");
    assert_eq!(f, RecordFormat::Mxq);
    assert_eq!(g.moves.len(), 68);
    assert_eq!(g.tag("Red"), Some("guest96928(5r)"));
    assert_eq!(g.tag("Black"), Some("zzxxbb(3r)"));
    assert_eq!(g.result, xiangqi_record::GameResult::BlackWins);
}

/// The 梅花谱 library inflated: "CCBridge", a 12-byte head, then a zlib stream.
fn meihuapu_inflated() -> Vec<u8> {
    use std::io::Read;
    let bytes = data("zfdang-meihuapu.cbl");
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(&bytes[20..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
fn cbl_in_the_gbk_layout_reads_every_game_of_the_meihuapu() {
    // 象棋桥's 梅花谱 library: compressed, and inflated not the "CCBridgeLibrary" layout but
    // length-prefixed GBK strings with a block per game (src/cbl/gbk.rs). 47 games, the
    // book's first five chapters and their variations, every one won by Black's 屏风马.
    let r = read_any_strict(&data("zfdang-meihuapu.cbl")).unwrap();
    assert_eq!(r.format, RecordFormat::Cbl);
    assert_eq!(r.games.len(), 47);
    assert!(r.warnings.is_empty());
    let games: Vec<_> = r.games.into_iter().map(|g| g.unwrap()).collect();
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    assert_eq!(plies, 1970);
    let mut mates = 0;
    for g in &games {
        readers::replay_legally(&g.start, &g.moves);
        assert_eq!(g.start.fen(), xiangqi::Position::new().fen());
        assert_eq!(g.result, xiangqi_record::GameResult::BlackWins);
        assert_eq!(g.tag("Opening"), Some("让先屏风马"));
        assert_eq!(g.tag("Author"), Some("盛昱"));
        let mut pos = g.start.clone();
        for n in &g.moves {
            pos.play_unchecked(n.mv);
        }
        mates += usize::from(pos.legal_moves().is_empty());
    }
    // Three end in mate; the others when Black has won enough material.
    assert_eq!(mates, 3);
    let first = &games[0];
    assert_eq!(first.tag("Title"), Some("让先屏风马破当头直车局  局一"));
    assert_eq!(first.tag("Variation"), Some("当头直车"));
    assert_eq!(first.moves.len(), 52);
    assert_eq!(&bare(&first.moves)[..4], ["h2e2", "h9g7", "h0g2", "b9c7"]);
    assert_eq!(
        games[1].tag("Title"),
        Some("让先屏风马破当头直车局  局一  (变 2)")
    );
    assert_eq!(games[46].tag("Variation"), Some("士角马"));
}

#[test]
fn cbl_gbk_layout_notation_bytes_agree_with_the_moves_read() {
    // Each move record ends with the move in Chinese notation as four nibbles (piece, file,
    // direction, target), which the reader does not use. Walked here on their own, they agree
    // with the notation of the moves the reader made from the squares, for every move whose
    // notation names its file (not 前/后): the squares, the board's orientation and the
    // colours are read right.
    let body = meihuapu_inflated();
    let r = read_any_strict(&data("zfdang-meihuapu.cbl")).unwrap();
    let le32 = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().unwrap()) as usize;
    let skip_text = |at: usize| at + 4 + le32(at);
    // The library's header: five strings, the times, the count, the preface.
    let mut at = 0;
    for _ in 0..5 {
        at = skip_text(at);
    }
    at += 38;
    assert_eq!(le32(at), 47);
    at = skip_text(at + 4);
    let (mut checked, mut named_by_place) = (0, 0);
    for g in r.games {
        let g = g.unwrap();
        let end = at + le32(at);
        let mut p = at + 4 + 32 + 12;
        for _ in 0..7 {
            p = skip_text(p);
        }
        p = skip_text(p + 12) + 8 + 1 + 38;
        assert_eq!(le32(p), g.moves.len());
        let mut pos = g.start.clone();
        for (k, n) in g.moves.iter().enumerate() {
            let r = &body[p + 4 + 6 * k..p + 10 + 6 * k];
            let text = xiangqi::notation::chinese::Chinese::from_move(&pos, n.mv).to_string();
            let c: Vec<char> = text.chars().collect();
            let digit = |ch: char| {
                "一二三四五六七八九123456789"
                    .chars()
                    .position(|d| d == ch)
                    .map(|i| i % 9)
            };
            if "前后中".contains(c[0]) {
                named_by_place += 1;
            } else {
                let piece = "车马相仕帅炮兵"
                    .chars()
                    .position(|x| x == c[0])
                    .or_else(|| "车马象士将炮卒".chars().position(|x| x == c[0]));
                let dir = "进退平".chars().position(|x| x == c[2]);
                let want = [piece, digit(c[1]), dir, digit(c[3])];
                let got = [r[4] >> 4, r[4] & 15, r[5] >> 4, r[5] & 15].map(|x| Some(x as usize));
                assert_eq!(got, want, "{text} in {}", pos.fen());
                checked += 1;
            }
            pos.play_unchecked(n.mv);
        }
        at = end;
    }
    assert_eq!(at, body.len());
    assert_eq!((checked, named_by_place), (1946, 24));
}

#[test]
fn cbl_gbk_layout_damaged_games_are_named_and_salvaged() {
    let body = meihuapu_inflated();
    // Game 5 starts at 0xa2a and holds 50 moves from 201 bytes on (its title is 36 bytes, game
    // 1's 28); cut it inside move 20.
    let game5 = 0xa2a;
    let cut = &body[..game5 + 201 + 6 * 19 + 3];
    let r = read_any_strict(&ccbridge_compressed(cut)).unwrap();
    assert_eq!(r.games.len(), 5);
    assert!(r.games[..4].iter().all(|g| g.is_ok()));
    let e = r.games[4].as_ref().unwrap_err().to_string();
    assert!(e.contains("game 5"), "{e}");
    // Salvaging keeps the moves before the damaged game's bad record.
    let r = read_any_mode(&ccbridge_compressed(cut), Mode::Salvage).unwrap();
    let g5 = r.games[4].as_ref().unwrap();
    assert_eq!(g5.moves.len(), 19);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.to_string().contains("kept as far as")));
    // A square off the board names the move and its byte.
    let mut bad = body.clone();
    bad[0x13e + 193 + 6 * 3 + 2] = 0x9f;
    let r = read_any_strict(&ccbridge_compressed(&bad)).unwrap();
    let e = r.games[0].as_ref().unwrap_err().to_string();
    assert!(e.contains("move 4: the from-square is column 9"), "{e}");
    assert!(r.games[1..].iter().all(|g| g.is_ok()));
    // The fuzz target's builder (tests/common/readers.rs) makes a library that reads: 炮二平五
    // 马8进7 as two records, then one off the board.
    let lib = readers::cbl_gbk(&[1, 0, 0x77, 0x47, 0x51, 0x24, 2, 0, 0x70, 0x62, 0x17, 0x06]);
    let r = read_any_strict(&lib).unwrap();
    assert_eq!(bare(&r.games[0].as_ref().unwrap().moves), ["h2e2", "h9g7"]);
    let lib = readers::cbl_gbk(&[1, 0, 0x77, 0x47, 0, 0, 2, 0, 0xa0, 0x62, 0, 0]);
    let r = read_any_mode(&lib, Mode::Salvage).unwrap();
    assert_eq!(bare(&r.games[0].as_ref().unwrap().moves), ["h2e2"]);
    // Cut and garbled bodies, compressed again: never a panic.
    for len in (0..body.len()).step_by(97) {
        let _ = read_any(&ccbridge_compressed(&body[..len]));
    }
    let mut seed = 7u64;
    for _ in 0..200 {
        let mut b = body.clone();
        for _ in 0..4 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let i = (seed >> 33) as usize % b.len();
            b[i] = (seed >> 20) as u8;
        }
        if let Ok(r) = read_any(&ccbridge_compressed(&b)) {
            for g in r.games.iter().flatten() {
                readers::replay_legally(&g.start, &g.moves);
            }
        }
    }
}

#[test]
fn xqf_of_a_bare_diagram_reads_as_its_position() {
    // XQStudio v10, 1,032 bytes: the header and a root record whose flags (0xf0) announce a
    // move and an alternative, then the end of the file. The position, no moves, no error.
    let (f, g) = game("zfdang-xqf-root-only.xqf");
    assert_eq!(f, RecordFormat::Xqf);
    assert!(g.moves.is_empty());
    assert_eq!(g.start.fen(), "2ba1k3/2P6/b4a3/6N2/9/9/9/9/5K3/9 w - - 0 1");
}

#[test]
fn xqf_page_of_text_with_an_empty_board_is_named() {
    // A book's chapter page: an empty board and its text. No position to read: the error
    // says the board is empty and quotes the text's start.
    let r = read_any(&data("zfdang-xqf-empty-board.xqf")).unwrap();
    assert_eq!(r.format, RecordFormat::Xqf);
    let e = r.games[0].as_ref().unwrap_err().to_string();
    assert!(
        e.contains("the board is empty") && e.contains("第一节"),
        "{e}"
    );
}

#[test]
fn pk17_ccm_cut_short_is_named_and_salvaged() {
    let b = data("zfdang-17pk.ccm");
    for len in [500, 498] {
        let cut = &b[..len];
        let e = read_any_strict(cut).unwrap_err().to_string();
        assert!(
            e.contains("damaged at move 55") && e.contains("byte 498"),
            "{e}"
        );
        let r = read_any_mode(cut, Mode::Salvage).unwrap();
        assert_eq!(r.format, RecordFormat::Ccm);
        assert_eq!(r.games[0].as_ref().unwrap().moves.len(), 54);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    }
}
