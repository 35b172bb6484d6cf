//! Every game of the record set's other formats (XQF, CBR, CBL, CBF, DhtmlXQ, read by
//! `read_any`) converts to PGN in each notation and reads back with the same moves, variations,
//! NAGs, tags, result and start; comments read back the same up to what PGN text normalizes
//! (line ends become LF, ASCII whitespace at the ends is trimmed, an empty comment is none,
//! `}` becomes `｝`).

use std::path::PathBuf;

use xiangqi::notation::Notation;
use xiangqi_record::detect::{read_any, RecordFormat};
use xiangqi_record::pgn;
use xiangqi_record::{GameRecord, MoveNode};

fn records() -> PathBuf {
    let shared = std::env::var_os("XIANGQI_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    shared.join("data/records")
}

fn norm_comment(c: &Option<String>) -> Option<String> {
    let c = c.as_ref()?;
    let t = c
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('}', "\u{FF5D}");
    let t = t
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .to_string();
    (!t.is_empty()).then_some(t)
}

fn norm_line(line: &mut [MoveNode]) {
    for n in line {
        n.comment = norm_comment(&n.comment);
        for v in &mut n.variations {
            norm_line(v);
        }
    }
}

fn normalize(g: &GameRecord) -> GameRecord {
    let mut g = g.clone();
    g.comment = norm_comment(&g.comment);
    norm_line(&mut g.moves);
    g.tags.retain(|(k, _)| {
        !(k == "Result" || k.eq_ignore_ascii_case("FEN") || k.eq_ignore_ascii_case("Format"))
    });
    for (_, v) in &mut g.tags {
        *v = v.replace("\r\n", "\n").replace('\r', "\n");
    }
    g
}

#[test]
fn other_formats_convert_to_pgn_and_back() {
    let mut games = 0;
    let mut formats = std::collections::BTreeSet::new();
    for dir in ["xqf", "other"] {
        let mut files: Vec<_> = std::fs::read_dir(records().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let Ok(r) = read_any(&std::fs::read(&f).unwrap()) else {
                continue;
            };
            if r.format == RecordFormat::Pgn {
                continue;
            }
            formats.insert(r.format.name());
            for (i, g) in r.games.iter().enumerate() {
                let Ok(g) = g else { continue };
                let want = normalize(g);
                for n in [Notation::Iccs, Notation::Wxf, Notation::Chinese] {
                    let text = pgn::write_games([g], n);
                    let back = pgn::read_all(&text).remove(0).unwrap_or_else(|e| {
                        panic!(
                            "{dir}/{name} game {}: PGN in {n} does not read back: {e}",
                            i + 1
                        )
                    });
                    assert_eq!(back, want, "{dir}/{name} game {} in {n}", i + 1);
                }
                games += 1;
            }
        }
    }
    assert!(formats.len() >= 3, "{formats:?}");
    assert!(games >= 43 + 93, "{games} games");
}
