//! NNUE evaluation: accumulators kept up to date move by move, and the output layer.
//!
//! The net, its features and its file format are `xiangqi-nnue`'s (docs/NNUE.md). Here an
//! [`Accumulator`] holds both perspectives' feature-transformer sums (Red's half, then
//! Black's). The search copies positions to make moves, so it keeps one accumulator per ply:
//! making a move computes the child's accumulator from the parent's with only the features
//! the move changes ([`Nnue::make`]: the mover's old and new point and a captured piece, a
//! perspective recomputed only when its view changes); unmaking is going back to the
//! parent's, which is still on the stack.
//!
//! The integer work runs on AVX2 when the processor has it (checked at run time) and on a
//! portable fallback otherwise; both do the same wrapping integer arithmetic, so their
//! results are bit-identical (tested).

use std::sync::Arc;

use xiangqi::{Board, Color, Piece, Square};
use xiangqi_nnue::features::{self, Change, View};
use xiangqi_nnue::net::QuantisedNet;

/// Which implementation of the integer kernels runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Portable Rust.
    Scalar,
    /// x86-64 AVX2 intrinsics.
    Avx2,
}

impl Kernel {
    /// The fastest kernel this processor runs.
    pub fn detect() -> Kernel {
        if simd::avx2_available() {
            Kernel::Avx2
        } else {
            Kernel::Scalar
        }
    }
    /// Whether this processor runs `self`.
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            Kernel::Avx2 => simd::avx2_available(),
        }
    }
}

/// Both perspectives' sums: Red's `hidden` values, then Black's; and each one's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    pub vals: Vec<i16>,
    pub views: [View; 2],
}

/// A loaded net and the kernel that evaluates with it.
#[derive(Clone, Debug)]
pub struct Nnue {
    pub net: Arc<QuantisedNet>,
    kernel: Kernel,
}

impl Nnue {
    /// Evaluates with the fastest kernel available.
    pub fn new(net: Arc<QuantisedNet>) -> Nnue {
        Nnue {
            net,
            kernel: Kernel::detect(),
        }
    }

    /// Evaluates with `kernel`; `None` when this processor cannot run it.
    pub fn with_kernel(net: Arc<QuantisedNet>, kernel: Kernel) -> Option<Nnue> {
        kernel.is_available().then_some(Nnue { net, kernel })
    }

    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    fn hidden(&self) -> usize {
        self.net.arch.hidden
    }

    fn row(&self, f: u16) -> &[i16] {
        let h = self.hidden();
        &self.net.ft_w[f as usize * h..(f as usize + 1) * h]
    }

    /// A new accumulator for `board`, from scratch.
    pub fn accumulator(&self, board: &Board) -> Accumulator {
        let mut acc = Accumulator {
            vals: vec![0; 2 * self.hidden()],
            views: [View {
                mirror: false,
                bucket: 0,
            }; 2],
        };
        self.refresh(board, &mut acc);
        acc
    }

    /// Recomputes both perspectives of `acc` from scratch.
    pub fn refresh(&self, board: &Board, acc: &mut Accumulator) {
        for p in Color::ALL {
            let v = features::view(board, p, self.net.arch.buckets);
            self.refresh_half(board, p, v, acc);
        }
    }

    fn refresh_half(&self, board: &Board, p: Color, v: View, acc: &mut Accumulator) {
        let h = self.hidden();
        let out = &mut acc.vals[p.index() * h..(p.index() + 1) * h];
        out.copy_from_slice(&self.net.ft_b);
        for (sq, piece) in board.pieces() {
            let f = features::feature(p, v, piece, sq) as u16;
            simd::add(self.kernel, out, self.row(f));
        }
        acc.views[p.index()] = v;
    }

    /// The accumulator after `piece` moved from `from` to `to` (capturing `captured`) into
    /// `child`, from the accumulator before the move; `after` is the board after it.
    #[allow(clippy::too_many_arguments)]
    pub fn make(
        &self,
        parent: &Accumulator,
        child: &mut Accumulator,
        after: &Board,
        piece: Piece,
        from: Square,
        to: Square,
        captured: Option<Piece>,
    ) {
        let h = self.hidden();
        for p in Color::ALL {
            let i = p.index();
            let before = parent.views[i];
            match features::changes(
                after,
                p,
                self.net.arch.buckets,
                before,
                piece,
                from,
                to,
                captured,
            ) {
                Change::Delta { removed, added } => {
                    let src = &parent.vals[i * h..(i + 1) * h];
                    let dst = &mut child.vals[i * h..(i + 1) * h];
                    let sub2 = removed[1].map(|f| self.row(f));
                    simd::update(
                        self.kernel,
                        src,
                        dst,
                        self.row(added),
                        self.row(removed[0].expect("the mover leaves")),
                        sub2,
                    );
                    child.views[i] = before;
                }
                Change::Refresh(v) => self.refresh_half(after, p, v, child),
            }
        }
    }

    /// The evaluation in centipawns from the side to move.
    pub fn evaluate(&self, acc: &Accumulator, board: &Board, turn: Color) -> i32 {
        let h = self.hidden();
        let bucket = features::output_bucket(board, self.net.arch.outputs);
        let w = &self.net.out_w[bucket * 2 * h..(bucket + 1) * 2 * h];
        let (us, them) = match turn {
            Color::Red => (&acc.vals[..h], &acc.vals[h..]),
            Color::Black => (&acc.vals[h..], &acc.vals[..h]),
        };
        let sum =
            simd::dot(self.kernel, us, &w[..h]).wrapping_add(simd::dot(self.kernel, them, &w[h..]));
        self.net.scale_output(sum, bucket)
    }
}

/// The integer kernels. The only module of the engine with `unsafe` code: the AVX2 paths,
/// entered only after the processor was found to support AVX2.
#[allow(unsafe_code)]
mod simd {
    use super::Kernel;
    use xiangqi_nnue::net::QA;

    pub fn avx2_available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// `acc += row`.
    pub fn add(k: Kernel, acc: &mut [i16], row: &[i16]) {
        assert_eq!(acc.len(), row.len());
        #[cfg(target_arch = "x86_64")]
        if k == Kernel::Avx2 {
            assert!(acc.len().is_multiple_of(16), "rows of whole 16-lane blocks");
            // SAFETY: the kernel is Avx2 only when the processor supports AVX2
            // (`Kernel::is_available`); the lengths are equal and a multiple of 16.
            return unsafe { avx2::add(acc, row) };
        }
        let _ = k;
        for (a, r) in acc.iter_mut().zip(row) {
            *a = a.wrapping_add(*r);
        }
    }

    /// `dst = src + add - sub1 - sub2`.
    pub fn update(
        k: Kernel,
        src: &[i16],
        dst: &mut [i16],
        add: &[i16],
        sub1: &[i16],
        sub2: Option<&[i16]>,
    ) {
        let n = src.len();
        assert!(dst.len() == n && add.len() == n && sub1.len() == n);
        assert!(sub2.is_none_or(|s| s.len() == n));
        #[cfg(target_arch = "x86_64")]
        if k == Kernel::Avx2 {
            assert!(n.is_multiple_of(16), "rows of whole 16-lane blocks");
            // SAFETY: as in `add`.
            return unsafe { avx2::update(src, dst, add, sub1, sub2) };
        }
        let _ = k;
        for i in 0..n {
            let mut v = src[i].wrapping_add(add[i]).wrapping_sub(sub1[i]);
            if let Some(s) = sub2 {
                v = v.wrapping_sub(s[i]);
            }
            dst[i] = v;
        }
    }

    /// `sum(clamp(acc, 0, QA)^2 * w)` in wrapping `i32` arithmetic, computed as
    /// `(clamp * w) as i16 * clamp` (the product fits an `i16`: |w| <= 127).
    pub fn dot(k: Kernel, acc: &[i16], w: &[i16]) -> i32 {
        assert_eq!(acc.len(), w.len());
        #[cfg(target_arch = "x86_64")]
        if k == Kernel::Avx2 {
            assert!(acc.len().is_multiple_of(16), "rows of whole 16-lane blocks");
            // SAFETY: as in `add`.
            return unsafe { avx2::dot(acc, w) };
        }
        let _ = k;
        let mut sum: i32 = 0;
        for (&a, &wi) in acc.iter().zip(w) {
            let c = a.clamp(0, QA as i16);
            sum = sum.wrapping_add((c.wrapping_mul(wi) as i32).wrapping_mul(c as i32));
        }
        sum
    }

    #[cfg(target_arch = "x86_64")]
    mod avx2 {
        use std::arch::x86_64::*;
        use xiangqi_nnue::net::QA;

        /// # Safety
        /// AVX2 must be available; the slices have equal lengths, a multiple of 16.
        #[target_feature(enable = "avx2")]
        pub unsafe fn add(acc: &mut [i16], row: &[i16]) {
            debug_assert!(acc.len().is_multiple_of(16));
            for i in (0..acc.len()).step_by(16) {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
                let r = _mm256_loadu_si256(row.as_ptr().add(i) as *const __m256i);
                _mm256_storeu_si256(
                    acc.as_mut_ptr().add(i) as *mut __m256i,
                    _mm256_add_epi16(a, r),
                );
            }
        }

        /// # Safety
        /// As for [`add`].
        #[target_feature(enable = "avx2")]
        pub unsafe fn update(
            src: &[i16],
            dst: &mut [i16],
            add: &[i16],
            sub1: &[i16],
            sub2: Option<&[i16]>,
        ) {
            debug_assert!(src.len().is_multiple_of(16));
            let ld = |s: &[i16], i: usize| _mm256_loadu_si256(s.as_ptr().add(i) as *const __m256i);
            for i in (0..src.len()).step_by(16) {
                let mut v = _mm256_add_epi16(ld(src, i), ld(add, i));
                v = _mm256_sub_epi16(v, ld(sub1, i));
                if let Some(s) = sub2 {
                    v = _mm256_sub_epi16(v, ld(s, i));
                }
                _mm256_storeu_si256(dst.as_mut_ptr().add(i) as *mut __m256i, v);
            }
        }

        /// # Safety
        /// As for [`add`].
        #[target_feature(enable = "avx2")]
        pub unsafe fn dot(acc: &[i16], w: &[i16]) -> i32 {
            debug_assert!(acc.len().is_multiple_of(16));
            let zero = _mm256_setzero_si256();
            let qa = _mm256_set1_epi16(QA as i16);
            let mut sum = _mm256_setzero_si256();
            for i in (0..acc.len()).step_by(16) {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
                let wv = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
                let c = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
                let t = _mm256_mullo_epi16(c, wv);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(t, c));
            }
            let mut lanes = [0i32; 8];
            _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum);
            lanes.iter().fold(0i32, |s, &x| s.wrapping_add(x))
        }
    }
}

/// The search's accumulators, one per ply.
pub(crate) struct Stack {
    pub nnue: Nnue,
    accs: Vec<Accumulator>,
    /// Evaluations so far (debug builds check every 16th against a refresh from scratch).
    evals: std::cell::Cell<u32>,
}

impl Stack {
    pub fn new(nnue: Nnue, root: &Board, plies: usize) -> Stack {
        let acc = nnue.accumulator(root);
        Stack {
            accs: vec![acc; plies],
            nnue,
            evals: std::cell::Cell::new(0),
        }
    }

    /// The move `piece` from `from` to `to` (capturing `captured`) was made at `ply`.
    pub fn make(
        &mut self,
        ply: usize,
        after: &Board,
        piece: Piece,
        from: Square,
        to: Square,
        captured: Option<Piece>,
    ) {
        let (a, b) = self.accs.split_at_mut(ply + 1);
        self.nnue
            .make(&a[ply], &mut b[0], after, piece, from, to, captured);
    }

    /// A null move was made at `ply`: the pieces did not move.
    pub fn make_null(&mut self, ply: usize) {
        let (a, b) = self.accs.split_at_mut(ply + 1);
        b[0].clone_from(&a[ply]);
    }

    /// The evaluation of the position at `ply`.
    pub fn evaluate(&self, ply: usize, board: &Board, turn: Color) -> i32 {
        let acc = &self.accs[ply];
        // Debug builds (the tests, the debug server) check the incremental accumulator
        // against one computed from scratch, every 16th evaluation so that searches stay
        // fast enough to play with; tests/nnue.rs checks every move of long games.
        if cfg!(debug_assertions) {
            let n = self.evals.get();
            self.evals.set(n.wrapping_add(1));
            if n.is_multiple_of(16) {
                assert_eq!(
                    acc,
                    &self.nnue.accumulator(board),
                    "incremental accumulator differs from scratch"
                );
            }
        }
        self.nnue.evaluate(acc, board, turn)
    }
}
