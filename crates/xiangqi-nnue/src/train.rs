//! The trainer: CPU, multi-threaded (std threads, one slice of each batch per thread), sparse
//! inputs (only the active features' rows are touched), Adam, a loss blending the search
//! score and the game result, a held-out validation set, a cosine learning-rate schedule,
//! checkpoints after every epoch, and quantisation to the engine's integer net.
//!
//! Loss: `(sigmoid(out * SCALE / K) - target)^2` with
//! `target = lambda * sigmoid(score / K) + (1 - lambda) * result`, where `out` is the net's
//! raw output, `score` the search score (centipawns, side to move), `result` the game's
//! result for the side to move (1, 0.5, 0) and `K` the sigmoid scale.

use std::time::Instant;

use crate::data::Record;
use crate::features::{self, KingBuckets, MAX_ACTIVE};
use crate::net::{Arch, Checkpoint, FloatNet, SplitMix, SCALE, WEIGHT_CLIP};

/// A position ready for training: its active features and its target.
#[derive(Clone, Debug)]
pub struct Sample {
    pub stm: [u16; MAX_ACTIVE],
    pub nstm: [u16; MAX_ACTIVE],
    pub n: u8,
    pub bucket: u8,
    pub target: f32,
}

/// The training settings.
#[derive(Clone, Debug)]
pub struct Config {
    pub arch: Arch,
    pub epochs: u32,
    pub batch: usize,
    /// Learning rate at the start; it falls along a cosine to `lr_end` at the last step.
    pub lr: f32,
    pub lr_end: f32,
    /// Weight of the search score in the target (the rest is the game result).
    pub lambda: f32,
    /// Sigmoid scale K in centipawns.
    pub sigmoid_scale: f32,
    pub threads: usize,
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            arch: Arch {
                hidden: 256,
                buckets: KingBuckets::None,
                outputs: 8,
            },
            epochs: 10,
            batch: 16384,
            lr: 0.001,
            lr_end: 0.00001,
            lambda: 0.7,
            sigmoid_scale: 400.0,
            threads: 1,
            seed: 1,
        }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training sample of a record.
pub fn sample(r: &Record, cfg: &Config) -> Sample {
    let mut s = Vec::with_capacity(MAX_ACTIVE);
    let mut n = Vec::with_capacity(MAX_ACTIVE);
    features::active(&r.board, r.turn, cfg.arch.buckets, &mut s);
    features::active(&r.board, !r.turn, cfg.arch.buckets, &mut n);
    let mut out = Sample {
        stm: [0; MAX_ACTIVE],
        nstm: [0; MAX_ACTIVE],
        n: s.len() as u8,
        bucket: features::output_bucket(&r.board, cfg.arch.outputs) as u8,
        target: cfg.lambda * sigmoid(r.score as f32 / cfg.sigmoid_scale)
            + (1.0 - cfg.lambda) * r.result.score_for(r.turn),
    };
    out.stm[..s.len()].copy_from_slice(&s);
    out.nstm[..n.len()].copy_from_slice(&n);
    out
}

/// Consecutive records held out together by [`split`].
pub const VAL_BLOCK: usize = 1024;

/// Splits records into training and validation samples. A game's positions lie next to each
/// other in a data file and share its result, so a validation set drawn position by position
/// would hold positions of the training games and reward a net for memorising their
/// results. Whole blocks of consecutive records are held out instead ([`held_out`]): only
/// the games across a block's two edges have positions on both sides.
pub fn split(records: &[Record], cfg: &Config, val_fraction: f64) -> (Vec<Sample>, Vec<Sample>) {
    let held = held_out(records.len(), cfg.seed, val_fraction);
    let (mut t, mut v) = (Vec::new(), Vec::new());
    for (r, &h) in records.iter().zip(&held) {
        if h {
            v.push(sample(r, cfg));
        } else {
            t.push(sample(r, cfg));
        }
    }
    (t, v)
}

/// Which of `len` records [`split`] holds out: whole blocks of [`VAL_BLOCK`] records (fewer
/// in small files, so that there are at least 64 blocks), chosen by a shuffle seeded with
/// `seed`, until about `fraction` of the records.
pub fn held_out(len: usize, seed: u64, fraction: f64) -> Vec<bool> {
    let block = (len / 64).clamp(1, VAL_BLOCK);
    let blocks = len.div_ceil(block);
    let mut order: Vec<usize> = (0..blocks).collect();
    let mut rng = SplitMix(seed ^ 0x5eed);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let want = ((len as f64 * fraction).round() as usize).min(len);
    let mut held = vec![false; len];
    let mut taken = 0;
    for &b in &order {
        if taken >= want {
            break;
        }
        let range = b * block..((b + 1) * block).min(len);
        taken += range.len();
        held[range].fill(true);
    }
    held
}

/// Gradient buffers of one thread, in [`FloatNet::params`] layout.
struct Grad {
    ft_w: Vec<f32>,
    ft_b: Vec<f32>,
    out_w: Vec<f32>,
    out_b: Vec<f32>,
    /// Feature rows touched since the last reset (so only those are cleared and summed).
    touched: Vec<bool>,
    rows: Vec<u32>,
    loss: f64,
}

impl Grad {
    fn new(arch: &Arch) -> Grad {
        let h = arch.hidden;
        Grad {
            ft_w: vec![0.0; arch.inputs() * h],
            ft_b: vec![0.0; h],
            out_w: vec![0.0; arch.outputs * 2 * h],
            out_b: vec![0.0; arch.outputs],
            touched: vec![false; arch.inputs()],
            rows: Vec::new(),
            loss: 0.0,
        }
    }
    fn reset(&mut self, h: usize) {
        for &r in &self.rows {
            self.ft_w[r as usize * h..(r as usize + 1) * h].fill(0.0);
            self.touched[r as usize] = false;
        }
        self.rows.clear();
        self.ft_b.fill(0.0);
        self.out_w.fill(0.0);
        self.out_b.fill(0.0);
        self.loss = 0.0;
    }
}

/// One sample's forward pass, loss and (when `grad` is given) gradients.
fn step_sample(
    net: &FloatNet,
    s: &Sample,
    k: f32,
    acc: &mut [f32],
    grad: Option<&mut Grad>,
) -> f64 {
    let h = net.arch.hidden;
    let n = s.n as usize;
    let (a_s, rest) = acc.split_at_mut(h);
    let (a_n, dacc) = rest.split_at_mut(h);
    for (a, feats) in [(&mut *a_s, &s.stm[..n]), (&mut *a_n, &s.nstm[..n])] {
        a.copy_from_slice(&net.ft_b);
        for &f in feats {
            let row = &net.ft_w[f as usize * h..(f as usize + 1) * h];
            for (x, r) in a.iter_mut().zip(row) {
                *x += r;
            }
        }
    }
    let b = s.bucket as usize;
    let w = &net.out_w[b * 2 * h..(b + 1) * 2 * h];
    let mut out = net.out_b[b];
    for (x, wi) in a_s.iter().chain(a_n.iter()).zip(w) {
        let c = x.clamp(0.0, 1.0);
        out += c * c * wi;
    }
    let z = out * SCALE as f32 / k;
    let p = sigmoid(z);
    let err = p - s.target;
    let loss = (err * err) as f64;
    let Some(g) = grad else {
        return loss;
    };
    g.loss += loss;
    // d loss / d out.
    let d = 2.0 * err * p * (1.0 - p) * SCALE as f32 / k;
    g.out_b[b] += d;
    let gw = &mut g.out_w[b * 2 * h..(b + 1) * 2 * h];
    for (half, (a, feats)) in [(&*a_s, &s.stm[..n]), (&*a_n, &s.nstm[..n])]
        .into_iter()
        .enumerate()
    {
        let wh = &w[half * h..(half + 1) * h];
        let gwh = &mut gw[half * h..(half + 1) * h];
        // d loss / d accumulator, reused for every active row.
        for i in 0..h {
            let c = a[i].clamp(0.0, 1.0);
            gwh[i] += d * c * c;
            dacc[i] = if a[i] > 0.0 && a[i] < 1.0 {
                d * wh[i] * 2.0 * a[i]
            } else {
                0.0
            };
        }
        for (gb, da) in g.ft_b.iter_mut().zip(&*dacc) {
            *gb += da;
        }
        for &f in feats {
            let f = f as usize;
            if !g.touched[f] {
                g.touched[f] = true;
                g.rows.push(f as u32);
            }
            for (gr, da) in g.ft_w[f * h..(f + 1) * h].iter_mut().zip(&*dacc) {
                *gr += da;
            }
        }
    }
    loss
}

/// The mean loss of `net` on `samples`, on `threads` threads.
pub fn loss(net: &FloatNet, samples: &[Sample], cfg: &Config) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let chunk = samples.len().div_ceil(cfg.threads.max(1));
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut acc = vec![0.0; 3 * net.arch.hidden];
                    part.iter()
                        .map(|x| step_sample(net, x, cfg.sigmoid_scale, &mut acc, None))
                        .sum::<f64>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("loss thread"))
            .sum()
    });
    total / samples.len() as f64
}

/// What one epoch did.
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub epoch: u32,
    pub lr: f32,
    pub train_loss: f64,
    pub val_loss: f64,
    pub positions_per_second: f64,
    pub seconds: f64,
}

/// The learning rate at `step` of `total` (cosine from `lr` to `lr_end`).
pub fn learning_rate(cfg: &Config, step: u64, total: u64) -> f32 {
    let t = (step as f64 / total.max(1) as f64).min(1.0);
    let c = 0.5 * (1.0 + (std::f64::consts::PI * t).cos());
    (cfg.lr_end as f64 + (cfg.lr - cfg.lr_end) as f64 * c) as f32
}

/// Trains `ck` (a fresh [`Checkpoint::new`] or a loaded one, which resumes after its
/// epoch) on `train` for the remaining epochs of `cfg`, reporting each epoch (after which
/// `each` may save a checkpoint). Stops early, after the epoch in progress, when
/// `deadline` passes.
pub fn train(
    ck: &mut Checkpoint,
    train: &[Sample],
    val: &[Sample],
    cfg: &Config,
    deadline: Option<Instant>,
    each: &mut dyn FnMut(&EpochReport, &Checkpoint),
) {
    let threads = cfg.threads.max(1);
    let h = cfg.arch.hidden;
    let steps_per_epoch = train.len().div_ceil(cfg.batch).max(1) as u64;
    let total_steps = steps_per_epoch * cfg.epochs as u64;
    let mut grads: Vec<Grad> = (0..threads).map(|_| Grad::new(&cfg.arch)).collect();
    let mut order: Vec<u32> = Vec::with_capacity(train.len());
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    while ck.epoch < cfg.epochs {
        let start = Instant::now();
        // Each epoch's order depends on the seed and the epoch only, so that a run resumed
        // from a checkpoint continues exactly as the uninterrupted run would have.
        let mut rng =
            SplitMix(cfg.seed ^ (ck.epoch as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f));
        order.clear();
        order.extend(0..train.len() as u32);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut train_loss = 0.0;
        let mut lr = cfg.lr;
        for batch in order.chunks(cfg.batch) {
            let chunk = batch.len().div_ceil(threads);
            let net = &ck.net;
            std::thread::scope(|s| {
                for (g, part) in grads.iter_mut().zip(batch.chunks(chunk)) {
                    s.spawn(move || {
                        g.reset(h);
                        let mut acc = vec![0.0; 3 * h];
                        for &i in part {
                            step_sample(
                                net,
                                &train[i as usize],
                                cfg.sigmoid_scale,
                                &mut acc,
                                Some(g),
                            );
                        }
                    });
                }
            });
            // Threads that got no part of a short last batch still hold old gradients.
            let used = batch.len().div_ceil(chunk);
            let (first, rest) = grads.split_at_mut(1);
            let g0 = &mut first[0];
            for g in &rest[..used - 1] {
                for &r in &g.rows {
                    let r = r as usize;
                    if !g0.touched[r] {
                        g0.touched[r] = true;
                        g0.rows.push(r as u32);
                    }
                    for (a, b) in g0.ft_w[r * h..(r + 1) * h]
                        .iter_mut()
                        .zip(&g.ft_w[r * h..(r + 1) * h])
                    {
                        *a += b;
                    }
                }
                for (a, b) in g0.ft_b.iter_mut().zip(&g.ft_b) {
                    *a += b;
                }
                for (a, b) in g0.out_w.iter_mut().zip(&g.out_w) {
                    *a += b;
                }
                for (a, b) in g0.out_b.iter_mut().zip(&g.out_b) {
                    *a += b;
                }
                g0.loss += g.loss;
            }
            train_loss += g0.loss;
            // Adam, on the rows this batch touched and on the dense parts.
            ck.step += 1;
            lr = learning_rate(cfg, ck.step - 1, total_steps);
            let t = ck.step as i32;
            let corr1 = 1.0 - b1.powi(t);
            let corr2 = 1.0 - b2.powi(t);
            let scale = 1.0 / batch.len() as f32;
            let adam = |p: &mut f32, m: &mut f32, v: &mut f32, g: f32| {
                let g = g * scale;
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                *p -= lr * (*m / corr1) / ((*v / corr2).sqrt() + eps);
                *p = p.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
            };
            let net = &mut ck.net;
            let nft = net.ft_w.len();
            for &r in &g0.rows {
                let r = r as usize;
                for i in r * h..(r + 1) * h {
                    adam(&mut net.ft_w[i], &mut ck.m[i], &mut ck.v[i], g0.ft_w[i]);
                }
            }
            let dense = net
                .ft_b
                .iter_mut()
                .chain(&mut net.out_w)
                .chain(&mut net.out_b)
                .zip(g0.ft_b.iter().chain(&g0.out_w).chain(&g0.out_b));
            for (j, (p, &g)) in dense.enumerate() {
                adam(p, &mut ck.m[nft + j], &mut ck.v[nft + j], g);
            }
        }
        ck.epoch += 1;
        let secs = start.elapsed().as_secs_f64();
        let report = EpochReport {
            epoch: ck.epoch,
            lr,
            train_loss: train_loss / train.len().max(1) as f64,
            val_loss: loss(&ck.net, val, cfg),
            positions_per_second: train.len() as f64 / secs.max(1e-9),
            seconds: secs,
        };
        each(&report, ck);
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
    }
}

/// A fresh checkpoint for `cfg`.
pub fn fresh(cfg: &Config) -> Checkpoint {
    Checkpoint::new(FloatNet::random(cfg.arch, cfg.seed))
}
