//! The import keeps a game whose variation holds an illegal move, drops that branch and says
//! so in `Imported::warnings` (issue #18); a game with an illegal main-line move is an error.

use xiangqi_server::games::create;
use xiangqi_server::store::Mode;
use xiangqi_server::{App, Store};

#[tokio::test]
async fn a_bad_variation_is_a_warning_not_a_refusal() {
    let dir = std::env::temp_dir().join(format!("xiangqi-import-warn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let app = App::new(Store::open(&dir).expect("open store"));
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../xiangqi-record/tests/data/issue18/bad-variation.pgn"
    );
    let body = std::fs::read(file).unwrap();
    let done = create::import(&app.store, &app.games, body, Mode::Analysis)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Games 1 and 3 are imported, game 2 (illegal main line) is an error.
    assert_eq!(done.games.len(), 2);
    assert_eq!(done.errors.len(), 1);
    assert_eq!(done.errors[0].game, 2);
    assert_eq!(done.warnings.len(), 1, "{:?}", done.warnings);
    let w = &done.warnings[0];
    assert!(w.contains("game 1, line 5") && w.contains("h2h9"), "{w}");
    let _ = std::fs::remove_dir_all(&dir);
}
