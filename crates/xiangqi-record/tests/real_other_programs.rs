//! Real files of other programs (issue 29): the sample folder of zfdang/chinese-chess-fish-android
//! (MIT; tests/data/records/SOURCES.md), one game of each kind, several of them the same game
//! in two formats, which must then agree: 联众's binary `.chn` and `.xqi` and its text export,
//! 象棋桥's `.cbf`, its text export and a PGN of the same opening study, 17pk's `.ccm`, QQ象棋's
//! `.che` and 弈天's `.mxq`.

use xiangqi_record::detect::{read_any, read_any_mode, read_any_strict, Mode, RecordFormat};
use xiangqi_record::MoveNode;

#[path = "common/readers.rs"]
mod readers;

use readers::{data, game};

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

#[test]
fn a_second_compressed_cbl_layout_is_named_not_read() {
    // 象棋桥's 梅花谱 library: "CCBridge", a zlib stream, but what it inflates to is not the
    // library layout read here (length-prefixed GBK strings, no "CCBridge Record"): an error
    // that says so, never an empty success.
    let r = read_any(&data("zfdang-meihuapu.cbl")).unwrap();
    assert_eq!(r.format, RecordFormat::Cbl);
    let e = r.games[0].as_ref().unwrap_err().to_string();
    assert!(e.contains("does not occur"), "{e}");
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
