//! The perpetual-check rule in the tables (docs/TABLEBASES.md, "Rules the tables assume"):
//! the rule-aware results are consistent with the moves, the standard results are kept, and
//! a position the standard table calls drawn, where one side can avoid mate only by
//! checking forever, is lost for that side by the rule-aware one; played out in the rules
//! core's `Game`, the repetition ruling agrees.

use std::path::PathBuf;

use xiangqi::{Game, Position, Reason, Rules};
use xiangqi_tb::verify::check_rule_moves;
use xiangqi_tb::{build, Indexer, Material, RuleValue, Tablebase};

fn tables(tag: &str, sets: &[&str]) -> (PathBuf, Tablebase) {
    let dir = std::env::temp_dir().join(format!("xiangqi-tb-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let names: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    build(&names, &dir, 2, &mut |_| {}).expect("generate");
    let tb = Tablebase::open(&dir).expect("open");
    (dir, tb)
}

/// Every rule-aware value agrees with its moves' values
/// ([`xiangqi_tb::verify::check_rule_moves`]: a win by rule has a move to a loss by rule, a
/// loss by rule only moves to wins for the opponent, one by rule, a draw no move to a loss
/// and one to a draw; standard wins and losses the same in both). Returns (wins by rule,
/// losses by rule) and a few positions of each.
fn check_consistent(tb: &Tablebase, set: &str) -> (usize, usize, Vec<String>) {
    let ix = Indexer::new(Material::parse(set).unwrap().canonical());
    let (mut w, mut l) = (0, 0);
    let mut examples = Vec::new();
    for pos in (0..ix.size()).filter_map(|i| ix.position(i)) {
        match check_rule_moves(tb, &pos) {
            Err(e) => panic!("{set} {e}"),
            Ok(RuleValue::WinByRule) => {
                w += 1;
                if w <= 3 {
                    examples.push(format!("{} win-by-rule", pos.fen()));
                }
            }
            Ok(RuleValue::LossByRule) => {
                l += 1;
                if l <= 3 {
                    examples.push(format!("{} loss-by-rule", pos.fen()));
                }
            }
            Ok(_) => {}
        }
    }
    (w, l, examples)
}

#[test]
fn krkh_rule_results_are_consistent_and_the_standard_ones_kept() {
    let (dir, tb) = tables("rules-krkh", &["KRKH"]);
    let (w, l, examples) = check_consistent(&tb, "KRKH");
    for e in &examples {
        eprintln!("KRKH {e}");
    }
    // The counts docs/TABLEBASES.md gives.
    assert_eq!((w, l), (315, 1291));
    let f = tb.table(&Material::parse("KRKH").unwrap()).unwrap();
    assert_eq!(f.version, 2);
    assert_eq!(f.rule_counts, [315, 1291]);
    assert_eq!(f.counts[..3], [255530, 2435, 248696]);
    // KRK and KHK cannot change: the side without an attacker never checks.
    check_consistent(&tb, "KRK");
    std::fs::remove_dir_all(dir).ok();
}

/// Plays from `fen` with the winner by rule (`winner` to move or not) choosing a move to a
/// loss by rule for the opponent (one that does not check if there is one) and the loser
/// the first move, in its order of the table, that does not lose by mate; the rules core's
/// `Game` (repetition judged at the third occurrence, no move limit) rules the ending.
fn play_out(tb: &Tablebase, fen: &str, plies: usize) -> (Game, Vec<String>) {
    let start = Position::from_fen(fen).unwrap();
    let mut game = Game::with_rules(start, Rules::default().with_move_limit(None));
    let mut line = Vec::new();
    while game.outcome().is_none() && line.len() < plies {
        let pos = game.position().clone();
        let moves = tb.probe_moves_rules(&pos).unwrap();
        let mine = tb.probe_rules(&pos).unwrap();
        let m = if mine == RuleValue::WinByRule {
            let good: Vec<_> = moves
                .iter()
                .filter(|(_, v)| *v == RuleValue::LossByRule)
                .map(|&(m, _)| m)
                .collect();
            let quiet = good.iter().copied().find(|&m| {
                let mut c = pos.clone();
                c.play_unchecked(m);
                !c.is_check()
            });
            quiet.unwrap_or(good[0])
        } else {
            assert_eq!(mine, RuleValue::LossByRule, "{}", pos.fen());
            moves[0].0
        };
        line.push(m.to_string());
        game.push(m).unwrap();
    }
    (game, line)
}

#[test]
fn a_horse_that_can_only_check_forever_loses_by_the_rule_and_the_game_agrees() {
    let (dir, tb) = tables("rules-play", &["KRKH"]);
    // Red: general d0, chariot a0; Black: general e7, horse b1 checking from b1 (leg c1).
    // The horse must keep checking: any quiet move lets the chariot and general mate or win
    // the horse. Drawn when repetition is a draw; lost for Black by the perpetual-check rule.
    let fen = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    assert_eq!(tb.probe(&pos).unwrap(), xiangqi_tb::Value::Draw);
    assert_eq!(tb.probe_rules(&pos).unwrap(), RuleValue::WinByRule);
    let (game, line) = play_out(&tb, fen, 200);
    let outcome = game.outcome().expect("the game ends");
    eprintln!("{fen}: {} -> {outcome}", line.join(" "));
    assert_eq!(outcome.winner, Some(xiangqi::Color::Red), "{line:?}");
    assert_eq!(outcome.reason, Reason::PerpetualCheck, "{line:?}");
    std::fs::remove_dir_all(dir).ok();
}
