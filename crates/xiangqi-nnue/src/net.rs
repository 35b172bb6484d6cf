//! The network: its architecture, the float form the trainer works on, the integer form the
//! engine evaluates with, and their files.
//!
//! Architecture: `inputs -> hidden` (the feature transformer, shared by both perspectives),
//! applied to the side to move's features and to the other side's; both halves go through
//! SCReLU (`clamp(x, 0, 1)^2`) and are concatenated (side to move first) into `2 * hidden`
//! values; one output neuron per output bucket (chosen by the number of pieces on the
//! board, [`crate::features::output_bucket`]). The output times [`SCALE`] is the evaluation
//! in centipawns from the side to move.
//!
//! Quantisation: feature-transformer weights and biases times [`QA`] as `i16`; output weights
//! times the net's own `qb` as `i16`, within +-127 so that `clamp(acc, 0, QA) * weight` fits
//! an `i16`; output biases times `QA * qb` as `i32`. `qb` is chosen per net when it is
//! quantised ([`FloatNet::quantise`]): the largest value (at most [`QB_MAX`]) that keeps every
//! output weight within +-127 and the largest possible output sum (every activation at `QA`)
//! within `i32`, so that a net whose output weights are small keeps their precision. The
//! integer evaluation ([`QuantisedNet::evaluate`]) is
//! `(sum(clamp(acc, 0, QA)^2 * w) / QA + bias) * SCALE / (QA * qb)` with wrapping `i32`
//! arithmetic (so that every implementation gives the same bits).
//!
//! File (`.nnue`), little-endian: the magic `XQNNUE\0\0`, `u32` version ([`NET_VERSION`]),
//! `u32` hidden size, `u32` king-bucket code, `u32` output buckets, `u32` QA, `u32` qb,
//! `u32` SCALE; then the feature weights (`i16`, feature-major: `inputs * hidden`), the
//! feature biases (`i16`, `hidden`), the output weights (`i16`, bucket-major:
//! `outputs * 2 * hidden`), the output biases (`i32`, `outputs`); and last the FNV-1a 64-bit
//! checksum (`u64`) of every byte before it. Checkpoints (`.ckpt`) hold the float net and the
//! trainer's state the same way (magic `XQNNCKPT`, see [`Checkpoint`]).

use std::path::Path;

use xiangqi::{Board, Color};

use crate::features::{self, KingBuckets};

/// Feature-transformer quantisation.
pub const QA: i32 = 255;
/// The largest output-layer quantisation factor a net may have.
pub const QB_MAX: i32 = 1024;
/// The output-layer quantisation factor a checkpoint's header records (checkpoints hold
/// floats; the factor of a net is chosen when it is quantised).
const CKPT_QB: i32 = 64;
/// Centipawns per unit of the net's output.
pub const SCALE: i32 = 400;
/// The trainer keeps every weight within this bound (so that an output weight quantised
/// with a factor of at least 64 fits in +-127).
pub const WEIGHT_CLIP: f32 = 1.98;
/// The network file's version.
pub const NET_VERSION: u32 = 1;
const NET_MAGIC: &[u8; 8] = b"XQNNUE\0\0";
const CKPT_MAGIC: &[u8; 8] = b"XQNNCKPT";
const CKPT_VERSION: u32 = 1;

/// The shape of a net.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    pub hidden: usize,
    pub buckets: KingBuckets,
    pub outputs: usize,
}

impl Arch {
    pub const fn inputs(&self) -> usize {
        self.buckets.inputs()
    }
    /// Whether the shape is one the file format and the engine support.
    pub fn check(&self) -> Result<(), String> {
        if self.hidden == 0 || self.hidden > 4096 || !self.hidden.is_multiple_of(16) {
            return Err(format!(
                "hidden size {} must be a multiple of 16 between 16 and 4096",
                self.hidden
            ));
        }
        if self.outputs == 0 || self.outputs > 32 {
            return Err(format!(
                "output buckets {} must be between 1 and 32",
                self.outputs
            ));
        }
        Ok(())
    }
}

/// Why a network or checkpoint file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetError(pub String);

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for NetError {}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A small deterministic generator (SplitMix64) for initialisation and shuffling.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform in [-a, a).
    pub fn uniform(&mut self, a: f32) -> f32 {
        (self.next_f32() * 2.0 - 1.0) * a
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// The float net the trainer works on.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    pub arch: Arch,
    /// `inputs * hidden`, feature-major.
    pub ft_w: Vec<f32>,
    pub ft_b: Vec<f32>,
    /// `outputs * 2 * hidden`, bucket-major; side to move's half first.
    pub out_w: Vec<f32>,
    pub out_b: Vec<f32>,
}

#[inline]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

impl FloatNet {
    /// A randomly initialised net.
    pub fn random(arch: Arch, seed: u64) -> FloatNet {
        let mut rng = SplitMix(seed);
        let h = arch.hidden;
        FloatNet {
            arch,
            ft_w: (0..arch.inputs() * h).map(|_| rng.uniform(0.05)).collect(),
            ft_b: (0..h).map(|_| 0.1 + rng.uniform(0.05)).collect(),
            out_w: (0..arch.outputs * 2 * h)
                .map(|_| rng.uniform(1.0 / (2.0 * h as f32).sqrt()))
                .collect(),
            out_b: vec![0.0; arch.outputs],
        }
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.ft_w.len() + self.ft_b.len() + self.out_w.len() + self.out_b.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The raw output (before [`SCALE`]) for the given active features.
    pub fn forward(&self, stm: &[u16], nstm: &[u16], bucket: usize) -> f32 {
        let h = self.arch.hidden;
        let mut out = self.out_b[bucket];
        let w = &self.out_w[bucket * 2 * h..(bucket + 1) * 2 * h];
        for (half, feats) in [stm, nstm].into_iter().enumerate() {
            let mut acc = self.ft_b.clone();
            for &f in feats {
                let row = &self.ft_w[f as usize * h..(f as usize + 1) * h];
                for (a, r) in acc.iter_mut().zip(row) {
                    *a += r;
                }
            }
            for (a, wi) in acc.iter().zip(&w[half * h..(half + 1) * h]) {
                out += screlu(*a) * wi;
            }
        }
        out
    }

    /// The evaluation in centipawns from the side to move (float, from scratch).
    pub fn evaluate(&self, board: &Board, turn: Color) -> f32 {
        let (mut s, mut n) = (Vec::new(), Vec::new());
        features::active(board, turn, self.arch.buckets, &mut s);
        features::active(board, !turn, self.arch.buckets, &mut n);
        let bucket = features::output_bucket(board, self.arch.outputs);
        self.forward(&s, &n, bucket) * SCALE as f32
    }

    /// The integer net, with the largest output factor `qb` that is safe for it (see the
    /// module's documentation).
    pub fn quantise(&self) -> QuantisedNet {
        // Two bounds: every weight within +-127, and the largest output sum within i32
        // (rounding can still push a sum over, so step down until the integer net passes).
        let largest = self.out_w.iter().fold(0f32, |m, w| m.max(w.abs())) as f64;
        let widest = self
            .out_w
            .chunks(2 * self.arch.hidden)
            .map(|ws| ws.iter().map(|w| w.abs() as f64).sum::<f64>())
            .fold(0f64, f64::max);
        let by_weight = if largest > 0.0 {
            127.49 / largest
        } else {
            f64::MAX
        };
        let by_sum = if widest > 0.0 {
            i32::MAX as f64 / (QA as f64 * QA as f64 * widest)
        } else {
            f64::MAX
        };
        let mut qb = by_weight.min(by_sum).min(QB_MAX as f64).max(1.0) as i32;
        loop {
            let net = self.quantise_with(qb);
            if net.check_output_range().is_ok() || qb == 1 {
                return net;
            }
            qb -= 1;
        }
    }

    /// The integer net with the output factor `qb`.
    pub fn quantise_with(&self, qb: i32) -> QuantisedNet {
        let q16 =
            |x: f32, k: i32, lim: i32| ((x * k as f32).round() as i32).clamp(-lim, lim) as i16;
        QuantisedNet {
            arch: self.arch,
            qb,
            ft_w: self.ft_w.iter().map(|&x| q16(x, QA, 32767)).collect(),
            ft_b: self.ft_b.iter().map(|&x| q16(x, QA, 32767)).collect(),
            out_w: self.out_w.iter().map(|&x| q16(x, qb, 127)).collect(),
            out_b: self
                .out_b
                .iter()
                .map(|&x| (x as f64 * (QA * qb) as f64).round() as i32)
                .collect(),
        }
    }

    /// All parameters in file order.
    pub fn params(&self) -> impl Iterator<Item = &f32> {
        self.ft_w
            .iter()
            .chain(&self.ft_b)
            .chain(&self.out_w)
            .chain(&self.out_b)
    }
    pub fn params_mut(&mut self) -> impl Iterator<Item = &mut f32> {
        self.ft_w
            .iter_mut()
            .chain(&mut self.ft_b)
            .chain(&mut self.out_w)
            .chain(&mut self.out_b)
    }
}

/// The integer net the engine evaluates with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    pub arch: Arch,
    /// The output layer's quantisation factor (1 to [`QB_MAX`]).
    pub qb: i32,
    pub ft_w: Vec<i16>,
    pub ft_b: Vec<i16>,
    pub out_w: Vec<i16>,
    pub out_b: Vec<i32>,
}

fn header(magic: &[u8; 8], version: u32, arch: &Arch, qb: i32) -> Vec<u8> {
    let mut b = magic.to_vec();
    for v in [
        version,
        arch.hidden as u32,
        arch.buckets.code(),
        arch.outputs as u32,
        QA as u32,
        qb as u32,
        SCALE as u32,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}

/// Reads values off a byte slice, naming what is missing.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
    what: &'a str,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize, field: &str) -> Result<&[u8], NetError> {
        if self.b.len() - self.at < n {
            return Err(NetError(format!(
                "{}: the file ends at byte {} inside {field} (needs {n} more bytes, has {})",
                self.what,
                self.b.len(),
                self.b.len() - self.at
            )));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self, field: &str) -> Result<u32, NetError> {
        Ok(u32::from_le_bytes(self.take(4, field)?.try_into().unwrap()))
    }
    fn i16s(&mut self, n: usize, field: &str) -> Result<Vec<i16>, NetError> {
        Ok(self
            .take(2 * n, field)?
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
    fn i32s(&mut self, n: usize, field: &str) -> Result<Vec<i32>, NetError> {
        Ok(self
            .take(4 * n, field)?
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
    fn f32s(&mut self, n: usize, field: &str) -> Result<Vec<f32>, NetError> {
        Ok(self
            .take(4 * n, field)?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
}

/// Checks the magic, version, checksum and constants; returns the architecture, the output
/// factor and a cursor after the header.
fn open<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    version: u32,
    what: &'a str,
) -> Result<(Arch, i32, Cursor<'a>), NetError> {
    if bytes.len() < 8 || &bytes[..8] != magic {
        return Err(NetError(format!(
            "{what}: not a network file of this engine (the first 8 bytes are not {:?})",
            String::from_utf8_lossy(magic).trim_end_matches('\0')
        )));
    }
    if bytes.len() < 8 + 28 + 8 {
        return Err(NetError(format!(
            "{what}: only {} bytes, shorter than the header",
            bytes.len()
        )));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let stored = u64::from_le_bytes(sum.try_into().unwrap());
    let mut c = Cursor {
        b: body,
        at: 8,
        what,
    };
    let v = c.u32("the version")?;
    if v != version {
        return Err(NetError(format!(
            "{what}: version {v}, this build reads version {version}"
        )));
    }
    let actual = fnv1a64(body);
    if actual != stored {
        return Err(NetError(format!(
            "{what}: checksum mismatch (stored {stored:016x}, computed {actual:016x}): the file is damaged or truncated"
        )));
    }
    let hidden = c.u32("the hidden size")? as usize;
    let code = c.u32("the king buckets")?;
    let buckets = KingBuckets::from_code(code)
        .ok_or_else(|| NetError(format!("{what}: unknown king-bucket code {code}")))?;
    let outputs = c.u32("the output buckets")? as usize;
    let arch = Arch {
        hidden,
        buckets,
        outputs,
    };
    arch.check().map_err(|e| NetError(format!("{what}: {e}")))?;
    let qa = c.u32("QA")?;
    if qa != QA as u32 {
        return Err(NetError(format!(
            "{what}: QA is {qa}, this build uses {QA}"
        )));
    }
    let qb = c.u32("QB")?;
    if qb == 0 || qb > QB_MAX as u32 {
        return Err(NetError(format!(
            "{what}: QB is {qb}, this build reads 1 to {QB_MAX}"
        )));
    }
    let scale = c.u32("SCALE")?;
    if scale != SCALE as u32 {
        return Err(NetError(format!(
            "{what}: SCALE is {scale}, this build uses {SCALE}"
        )));
    }
    Ok((arch, qb as i32, c))
}

fn finish(mut b: Vec<u8>) -> Vec<u8> {
    let sum = fnv1a64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    b
}

fn read(path: &Path) -> Result<Vec<u8>, NetError> {
    std::fs::read(path).map_err(|e| NetError(format!("{}: {e}", path.display())))
}

impl QuantisedNet {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = header(NET_MAGIC, NET_VERSION, &self.arch, self.qb);
        for v in self.ft_w.iter().chain(&self.ft_b).chain(&self.out_w) {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.out_b {
            b.extend_from_slice(&v.to_le_bytes());
        }
        finish(b)
    }

    /// Reads a network file's bytes; `what` names the source in errors.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<QuantisedNet, NetError> {
        let (arch, qb, mut c) = open(bytes, NET_MAGIC, NET_VERSION, what)?;
        let h = arch.hidden;
        let ft_w = c.i16s(arch.inputs() * h, "the feature weights")?;
        let ft_b = c.i16s(h, "the feature biases")?;
        let out_w = c.i16s(arch.outputs * 2 * h, "the output weights")?;
        let out_b = c.i32s(arch.outputs, "the output biases")?;
        if c.at != c.b.len() {
            return Err(NetError(format!(
                "{what}: {} bytes after the output biases",
                c.b.len() - c.at
            )));
        }
        let net = QuantisedNet {
            arch,
            qb,
            ft_w,
            ft_b,
            out_w,
            out_b,
        };
        net.check_output_range()
            .map_err(|e| NetError(format!("{what}: {e}")))?;
        Ok(net)
    }

    /// Whether every output weight is within +-127 and the largest possible output sum of
    /// every bucket (each activation at `QA`) fits in `i32`, so that the output layer's
    /// arithmetic cannot overflow.
    pub fn check_output_range(&self) -> Result<(), String> {
        if let Some(w) = self.out_w.iter().find(|w| w.unsigned_abs() > 127) {
            return Err(format!("output weight {w} is outside +-127"));
        }
        let h2 = 2 * self.arch.hidden;
        for (bucket, ws) in self.out_w.chunks(h2).enumerate() {
            let worst: i64 =
                ws.iter().map(|w| w.unsigned_abs() as i64).sum::<i64>() * (QA as i64 * QA as i64);
            let with_bias = worst / QA as i64 + (self.out_b[bucket] as i64).abs();
            if worst > i32::MAX as i64 || with_bias > i32::MAX as i64 {
                return Err(format!(
                    "the output sum of bucket {bucket} can reach {worst}, beyond i32 (QB {} is too large for these weights)",
                    self.qb
                ));
            }
        }
        Ok(())
    }

    /// The last step of the output layer: from the sum of products of `bucket` to
    /// centipawns.
    #[inline]
    pub fn scale_output(&self, sum: i32, bucket: usize) -> i32 {
        ((sum / QA).wrapping_add(self.out_b[bucket]) as i64 * SCALE as i64
            / (QA as i64 * self.qb as i64)) as i32
    }

    /// The float net this integer net stands for (each weight divided by its factor), to
    /// train on from (`xiangqi-nnue train --init`): quantising it again with the same `qb`
    /// gives this net back exactly.
    pub fn dequantise(&self) -> FloatNet {
        let (qa, qb) = (QA as f32, self.qb as f32);
        FloatNet {
            arch: self.arch,
            ft_w: self.ft_w.iter().map(|&x| x as f32 / qa).collect(),
            ft_b: self.ft_b.iter().map(|&x| x as f32 / qa).collect(),
            out_w: self.out_w.iter().map(|&x| x as f32 / qb).collect(),
            out_b: self
                .out_b
                .iter()
                .map(|&x| (x as f64 / (QA as f64 * self.qb as f64)) as f32)
                .collect(),
        }
    }

    pub fn load(path: &Path) -> Result<QuantisedNet, NetError> {
        QuantisedNet::from_bytes(&read(path)?, &path.display().to_string())
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, &self.to_bytes())
    }

    /// The accumulator of one perspective from scratch: biases plus the weights of `feats`.
    pub fn accumulate(&self, feats: &[u16], out: &mut [i16]) {
        let h = self.arch.hidden;
        out.copy_from_slice(&self.ft_b);
        for &f in feats {
            let row = &self.ft_w[f as usize * h..(f as usize + 1) * h];
            for (a, r) in out.iter_mut().zip(row) {
                *a = a.wrapping_add(*r);
            }
        }
    }

    /// The output layer on two accumulators (side to move first), the reference integer
    /// arithmetic every implementation must match bit for bit.
    pub fn output(&self, stm: &[i16], nstm: &[i16], bucket: usize) -> i32 {
        let h = self.arch.hidden;
        let w = &self.out_w[bucket * 2 * h..(bucket + 1) * 2 * h];
        let mut sum: i32 = 0;
        for (acc, w) in [(stm, &w[..h]), (nstm, &w[h..])] {
            for (&a, &wi) in acc.iter().zip(w) {
                let c = a.clamp(0, QA as i16);
                let t = c.wrapping_mul(wi) as i32;
                sum = sum.wrapping_add(t.wrapping_mul(c as i32));
            }
        }
        self.scale_output(sum, bucket)
    }

    /// The evaluation in centipawns from the side to move, from scratch.
    pub fn evaluate(&self, board: &Board, turn: Color) -> i32 {
        let h = self.arch.hidden;
        let (mut s, mut n) = (Vec::new(), Vec::new());
        features::active(board, turn, self.arch.buckets, &mut s);
        features::active(board, !turn, self.arch.buckets, &mut n);
        let (mut a, mut b) = (vec![0; h], vec![0; h]);
        self.accumulate(&s, &mut a);
        self.accumulate(&n, &mut b);
        self.output(&a, &b, features::output_bucket(board, self.arch.outputs))
    }
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`, so that an
/// interrupted write never leaves a half-written file under the name.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The trainer's state: the float net, Adam's moments, where training stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub net: FloatNet,
    /// Adam's first and second moments, in [`FloatNet::params`] order.
    pub m: Vec<f32>,
    pub v: Vec<f32>,
    /// Completed epochs and optimiser steps.
    pub epoch: u32,
    pub step: u64,
}

impl Checkpoint {
    pub fn new(net: FloatNet) -> Checkpoint {
        let n = net.len();
        Checkpoint {
            net,
            m: vec![0.0; n],
            v: vec![0.0; n],
            epoch: 0,
            step: 0,
        }
    }

    /// Layout: the header as a network file's (magic `XQNNCKPT`), `u32` epoch, `u64` step,
    /// the float parameters, Adam's `m` and `v` (`f32`, each in parameter order), checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = header(CKPT_MAGIC, CKPT_VERSION, &self.net.arch, CKPT_QB);
        b.extend_from_slice(&self.epoch.to_le_bytes());
        b.extend_from_slice(&self.step.to_le_bytes());
        for v in self.net.params().chain(&self.m).chain(&self.v) {
            b.extend_from_slice(&v.to_le_bytes());
        }
        finish(b)
    }

    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Checkpoint, NetError> {
        let (arch, _, mut c) = open(bytes, CKPT_MAGIC, CKPT_VERSION, what)?;
        let epoch = c.u32("the epoch")?;
        let step = u64::from_le_bytes(c.take(8, "the step")?.try_into().unwrap());
        let h = arch.hidden;
        let net = FloatNet {
            arch,
            ft_w: c.f32s(arch.inputs() * h, "the feature weights")?,
            ft_b: c.f32s(h, "the feature biases")?,
            out_w: c.f32s(arch.outputs * 2 * h, "the output weights")?,
            out_b: c.f32s(arch.outputs, "the output biases")?,
        };
        let n = net.len();
        let m = c.f32s(n, "Adam's first moments")?;
        let v = c.f32s(n, "Adam's second moments")?;
        if c.at != c.b.len() {
            return Err(NetError(format!(
                "{what}: {} bytes after the checkpoint",
                c.b.len() - c.at
            )));
        }
        Ok(Checkpoint {
            net,
            m,
            v,
            epoch,
            step,
        })
    }

    pub fn load(path: &Path) -> Result<Checkpoint, NetError> {
        Checkpoint::from_bytes(&read(path)?, &path.display().to_string())
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, &self.to_bytes())
    }
}
