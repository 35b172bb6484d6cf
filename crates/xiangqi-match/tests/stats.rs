//! Elo, error bars, LOS and SPRT against values computed independently (tests/ref_stats.py in
//! this crate: the cutechess-cli formulas for Elo/error/LOS, fishtest's LLR_logistic with a
//! Newton solver for the maximum-likelihood distributions).

use xiangqi_match::stats::{llr_normal_approx, EloModel, Penta, Sprt, SprtState, Wdl};

struct Case {
    wdl: (u32, u32, u32),
    elo: f64,
    err: f64,
    los: f64,
    llr_0_5: f64,
    llr_m3_1: f64,
}

const CASES: &[Case] = &[
    Case {
        wdl: (60, 20, 20),
        elo: 147.1907141178,
        err: 66.0133812204,
        los: 0.999996127892,
        llr_0_5: 0.7072473476,
        llr_m3_1: 0.5795781005,
    },
    Case {
        wdl: (100, 300, 80),
        elo: 14.4848690618,
        err: 19.0415013303,
        los: 0.931981435943,
        llr_0_5: 0.6356660604,
        llr_m3_1: 0.6560208984,
    },
    Case {
        wdl: (455, 1020, 420),
        elo: 6.4177459159,
        err: 10.6326270635,
        los: 0.881638214681,
        llr_0_5: 0.6660145697,
        llr_m3_1: 1.0084824312,
    },
    Case {
        wdl: (3, 4, 3),
        elo: 0.0,
        err: 181.7445086341,
        los: 0.5,
        llr_0_5: -0.0017257393,
        llr_m3_1: 0.0005522633,
    },
    Case {
        wdl: (30, 40, 20),
        elo: 38.7640052032,
        err: 54.0119129116,
        los: 0.921350396475,
        llr_0_5: 0.2425292219,
        llr_m3_1: 0.2124972206,
    },
];

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn elo_error_los_match_reference() {
    for c in CASES {
        let (w, d, l) = c.wdl;
        let r = Wdl::new(w, d, l);
        let elo = r.elo().unwrap();
        let err = r.elo_error().unwrap();
        let los = r.los().unwrap();
        assert!(
            close(elo, c.elo, 1e-8),
            "{:?}: elo {elo} vs {}",
            c.wdl,
            c.elo
        );
        assert!(
            close(err, c.err, 1e-6),
            "{:?}: error {err} vs {}",
            c.wdl,
            c.err
        );
        assert!(
            close(los, c.los, 1e-10),
            "{:?}: LOS {los} vs {}",
            c.wdl,
            c.los
        );
    }
}

#[test]
fn llr_matches_reference() {
    for c in CASES {
        let (w, d, l) = c.wdl;
        let r = Wdl::new(w, d, l);
        let a = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap().llr(&r);
        let b = Sprt::new(-3.0, 1.0, 0.05, 0.05).unwrap().llr(&r);
        assert!(
            close(a, c.llr_0_5, 1e-7),
            "{:?}: LLR(0,5) {a} vs {}",
            c.wdl,
            c.llr_0_5
        );
        assert!(
            close(b, c.llr_m3_1, 1e-7),
            "{:?}: LLR(-3,1) {b} vs {}",
            c.wdl,
            c.llr_m3_1
        );
    }
}

#[test]
fn llr_agrees_with_the_normal_approximation_for_close_hypotheses() {
    // For small Elo bounds the exact GSPRT and the usual quick formula nearly coincide.
    for (w, d, l) in [(455, 1020, 420), (1200, 3000, 1100), (5000, 10000, 5200)] {
        let r = Wdl::new(w, d, l);
        let exact = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap().llr(&r);
        let approx = llr_normal_approx(0.0, 5.0, &r).unwrap();
        assert!(
            (exact - approx).abs() < 0.02 * exact.abs().max(1.0),
            "({w},{d},{l}): {exact} vs {approx}"
        );
    }
}

#[test]
fn bounds_and_decisions() {
    let s = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
    assert!(close(s.lower_bound(), -2.9444389791664403, 1e-12));
    assert!(close(s.upper_bound(), 2.9444389791664403, 1e-12));
    assert_eq!(s.state(&Wdl::new(10, 10, 10)), SprtState::Continue);
    // A long run of a clearly better engine accepts H1; of a worse one, H0.
    assert_eq!(s.state(&Wdl::new(3000, 4000, 2000)), SprtState::H1);
    assert_eq!(s.state(&Wdl::new(2000, 4000, 3000)), SprtState::H0);
    assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
    assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
    assert!(Sprt::new(0.0, 5.0, 0.6, 0.5).is_err());
}

#[test]
fn degenerate_samples() {
    assert_eq!(Wdl::default().elo(), None);
    assert_eq!(Wdl::default().los(), None);
    let all_wins = Wdl::new(5, 0, 0);
    assert_eq!(all_wins.elo(), Some(f64::INFINITY));
    assert_eq!(all_wins.elo_error(), None);
    let all_draws = Wdl::new(0, 7, 0);
    assert_eq!(all_draws.elo(), Some(0.0));
    assert_eq!(all_draws.los(), None);
    // The LLR is defined from the first game on (zero counts are regularised as fishtest does).
    let s = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
    assert!(s.llr(&Wdl::new(1, 0, 0)).is_finite());
    assert_eq!(s.llr(&Wdl::default()), 0.0);
}

/// fastchess's reports of real matches (its normalized-Elo pentanomial SPRT, the default),
/// quoted in public repositories: the pair counts, Elo ± error, nElo ± error and the LLR with
/// its nElo bounds, each as printed (two decimals).
struct Reported {
    penta: [u32; 5],
    elo: Option<(f64, f64)>,
    nelo: (f64, f64),
    llr: Option<(f64, f64, f64)>,
}

const FASTCHESS: &[Reported] = &[
    // "C1-Original vs C5-Rebuild (10+0.1, 4moves_test.pgn)": Elo: 190.85 +/- 65.54,
    // nElo: 549.34 +/- 152.27, LLR: 1.24 (42.1%) (-2.94, 2.94) [0.00, 50.00]
    Reported {
        penta: [0, 0, 1, 8, 1],
        elo: Some((190.85, 65.54)),
        nelo: (549.34, 152.27),
        llr: Some((1.24, 0.0, 50.0)),
    },
    // "Results of current vs previous (5+0.5, NULL, NULL, 8moves_v3.pgn)": Elo: 631.91 +/- nan,
    // nElo: 1056.68 +/- 77.10, LLR: 2.96 (100.6%) (-2.94, 2.94) [0.00, 20.00]
    Reported {
        penta: [0, 0, 2, 0, 37],
        elo: None,
        nelo: (1056.68, 77.10),
        llr: Some((2.96, 0.0, 20.0)),
    },
    // "Zeno doubled-passed-pawns vs Zeno develop (8+0.08)": Elo: 19.83 +/- 6.77,
    // nElo: 24.25 +/- 8.26, LLR: 4.60 (100.0%) (-4.60, 4.60) [9.00, 16.00]
    Reported {
        penta: [352, 579, 1264, 743, 464],
        elo: Some((19.83, 6.77)),
        nelo: (24.25, 8.26),
        llr: Some((4.60, 9.0, 16.0)),
    },
    // "sf19-smallnet vs sf18-lite (5+0.05)": Elo: 72.85 +/- 22.33, nElo: 132.30 +/- 39.32
    Reported {
        penta: [1, 10, 78, 48, 13],
        elo: Some((72.85, 22.33)),
        nelo: (132.30, 39.32),
        llr: None,
    },
];

#[test]
fn pentanomial_figures_match_fastchess_reports() {
    for r in FASTCHESS {
        let p = Penta(r.penta);
        match r.elo {
            Some((e, err)) => {
                assert!(
                    close(p.elo().unwrap(), e, 0.006),
                    "{:?} elo {:?}",
                    r.penta,
                    p.elo()
                );
                assert!(
                    close(p.elo_error().unwrap(), err, 0.006),
                    "{:?} error {:?}",
                    r.penta,
                    p.elo_error()
                );
            }
            None => assert_eq!(p.elo_error(), None, "{:?}", r.penta),
        }
        assert!(
            close(p.nelo().unwrap(), r.nelo.0, 0.006),
            "{:?} nElo {:?}",
            r.penta,
            p.nelo()
        );
        assert!(
            close(p.nelo_error().unwrap(), r.nelo.1, 0.006),
            "{:?} nElo error {:?}",
            r.penta,
            p.nelo_error()
        );
        if let Some((llr, e0, e1)) = r.llr {
            let s = Sprt::new(e0, e1, 0.05, 0.05)
                .unwrap()
                .with_model(EloModel::Normalized);
            let got = s.llr_pairs(&p);
            assert!(close(got, llr, 0.006), "{:?} LLR {got} vs {llr}", r.penta);
        }
    }
}

#[test]
fn pentanomial_logistic_llr_matches_reference() {
    // tests/ref_stats.py's llr5 (a step-halving Newton solver over the five pair classes).
    for (c5, l05, lm31) in [
        ([352, 579, 1264, 743, 464], 7.2307264681, 6.9356133396),
        ([1, 10, 78, 48, 13], 1.9771278281, 1.6096326370),
        ([20, 150, 400, 160, 25], 0.4055293873, 0.8637576655),
    ] {
        let p = Penta(c5);
        let a = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap().llr_pairs(&p);
        let b = Sprt::new(-3.0, 1.0, 0.05, 0.05).unwrap().llr_pairs(&p);
        assert!(close(a, l05, 1e-7), "{c5:?}: LLR(0,5) {a} vs {l05}");
        assert!(close(b, lm31, 1e-7), "{c5:?}: LLR(-3,1) {b} vs {lm31}");
    }
}

#[test]
fn pairs_are_counted_by_their_points() {
    let mut p = Penta::default();
    for (a, b) in [
        (0.0, 0.0),
        (0.0, 0.5),
        (1.0, 0.0),
        (0.5, 0.5),
        (0.5, 1.0),
        (1.0, 1.0),
    ] {
        p.add(a, b);
    }
    assert_eq!(p.0, [1, 1, 2, 1, 1]);
    assert_eq!(p.score(), Some(0.5));
    assert_eq!(Penta::default().nelo(), None);
    assert_eq!(Penta([0, 0, 5, 0, 0]).nelo(), None, "no spread, no nElo");
    // An even match has no evidence either way in the normalized test's direction.
    let s = Sprt::new(0.0, 2.0, 0.05, 0.05)
        .unwrap()
        .with_model(EloModel::Normalized);
    assert!(s.llr_pairs(&Penta([100, 800, 2000, 800, 100])) < 0.0);
    assert_eq!(
        s.state_pairs(&Penta([10, 80, 200, 80, 10])),
        SprtState::Continue
    );
    assert_eq!(
        s.state_pairs(&Penta([200, 1600, 4000, 2000, 300])),
        SprtState::H1
    );
}

#[test]
fn earlier_runs_add_their_pairs_to_the_test() {
    // gen4 against gen3 (docs/STRENGTH.md, the gate table): the runner printed LLR 0.62 for
    // these 507 pairs, so a test continued from them starts there.
    let first = Penta([52, 108, 161, 118, 68]);
    let s = Sprt::new(0.0, 5.0, 0.05, 0.05)
        .unwrap()
        .with_model(EloModel::Normalized);
    let continued = s.with_earlier(first);
    let at_start = continued.llr_pairs(&Penta::default());
    assert!(close(at_start, 0.62, 0.005), "LLR {at_start}");
    // The pairs played later count as if both runs were one.
    let later = Penta([30, 70, 100, 60, 40]);
    let sum = Penta([82, 178, 261, 178, 108]);
    assert_eq!(first.plus(&later), sum);
    assert_eq!(continued.llr_pairs(&later), s.llr_pairs(&sum));
    assert_eq!(continued.state_pairs(&later), s.state_pairs(&sum));
    // Counts as Ptnml(0-2) prints them; errors name the count.
    assert_eq!(Penta::parse("52,108, 161,118,68"), Ok(first));
    assert!(Penta::parse("1,2,3,4").unwrap_err().contains("five counts"));
    assert!(Penta::parse("1,2,x,4,5")
        .unwrap_err()
        .contains("'x' (count 3 of '1,2,x,4,5') is not a whole number"));
}
