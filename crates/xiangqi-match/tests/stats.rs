//! Elo, error bars, LOS and SPRT against values computed independently (tests/ref_stats.py in
//! this crate: the cutechess-cli formulas for Elo/error/LOS, fishtest's LLR_logistic with a
//! Newton solver for the maximum-likelihood distributions).

use xiangqi_match::stats::{llr_normal_approx, Sprt, SprtState, Wdl};

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
