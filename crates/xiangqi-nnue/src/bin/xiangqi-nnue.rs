//! `xiangqi-nnue`: train a network on `xiangqi-engine datagen` data, quantise a checkpoint,
//! or summarise a data file. `xiangqi-nnue help` lists the options.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use xiangqi_nnue::data::{DataReader, GameResult, HEADER_LEN, RECORD_LEN};
use xiangqi_nnue::net::{Checkpoint, QuantisedNet};
use xiangqi_nnue::train::{self, Config};
use xiangqi_nnue::KingBuckets;

const HELP: &str = "\
usage:
  xiangqi-nnue train --data FILE [--data FILE...] --out DIR [options]
      --hidden N          hidden neurons per perspective (256)
      --king-buckets B    none | palace (none)
      --output-buckets N  output buckets by material (8)
      --epochs N          (10)            --batch N      (16384)
      --lr X              start learning rate (0.001), cosine down to
      --lr-end X          (0.00001)
      --lambda X          weight of the search score against the result (0.7)
      --scale K           sigmoid scale in centipawns (400)
      --val X             held-out fraction (0.05)
      --threads N         (1)             --seed N       (1)
      --max-positions N   read at most N positions
      --max-seconds S     stop after the epoch that passes S seconds
      --resume FILE       continue from a checkpoint
      --init NET.nnue     start from this network's weights (fine-tuning: a fresh
                          optimiser and schedule; its architecture replaces --hidden,
                          --king-buckets and --output-buckets)
      --save-every N      write a checkpoint every N epochs (1) and after the last
    writes DIR/epoch-N.ckpt and, at the end, DIR/last.ckpt and DIR/net.nnue (quantised)
  xiangqi-nnue quantise CHECKPOINT OUT.nnue
  xiangqi-nnue compare CHECKPOINT DATA [N]
                                how far the quantised net is from the float net on the
                                first N positions of DATA (10000): mean, 99th percentile
                                and largest difference in centipawns
  xiangqi-nnue info FILE        counts and results of a data file
  xiangqi-nnue wdl-fit [--holdout F] DATA [DATA...]
                                fits the win/draw/loss model of UCI_ShowWDL to the data's
                                scores and results; prints each material bin's fit, the
                                model's coefficients as Rust constants, and the mean log-loss
                                per position of the fit and of the shipped model; with
                                --holdout F the last fraction F of each file (0 to 0.9) is
                                left out of the fit and scored apart";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `xiangqi-nnue train --help` (any command, like `git`'s) prints the usage too.
    let asks_help = args.iter().any(|a| a == "--help" || a == "-h");
    let r = match args.first().map(String::as_str) {
        Some(_) if asks_help => {
            println!("{HELP}");
            Ok(())
        }
        Some("train") => cmd_train(&args[1..]),
        Some("quantise") | Some("quantize") => cmd_quantise(&args[1..]),
        Some("info") => cmd_info(&args[1..]),
        Some("compare") => cmd_compare(&args[1..]),
        Some("wdl-fit") => cmd_wdl_fit(&args[1..]),
        Some("help") => {
            println!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n{HELP}")),
        None => Err(HELP.to_string()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, String> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .ok_or_else(|| format!("{flag} needs a value"))
}

fn num<T: std::str::FromStr>(s: &str, flag: &str) -> Result<T, String> {
    s.parse()
        .map_err(|_| format!("{flag}: '{s}' is not a valid number"))
}

fn cmd_train(args: &[String]) -> Result<(), String> {
    let mut cfg = Config::default();
    let mut data = Vec::new();
    let mut out: Option<PathBuf> = None;
    let (mut val, mut max_positions, mut max_seconds, mut resume) = (0.05f64, None, None, None);
    let mut init: Option<PathBuf> = None;
    let mut save_every: u32 = 1;
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        match flag {
            "--data" => data.push(PathBuf::from(value(args, &mut i, flag)?)),
            "--out" => out = Some(PathBuf::from(value(args, &mut i, flag)?)),
            "--hidden" => cfg.arch.hidden = num(value(args, &mut i, flag)?, flag)?,
            "--king-buckets" => {
                let v = value(args, &mut i, flag)?;
                cfg.arch.buckets = KingBuckets::from_name(v)
                    .ok_or_else(|| format!("--king-buckets: '{v}' is not none or palace"))?;
            }
            "--output-buckets" => cfg.arch.outputs = num(value(args, &mut i, flag)?, flag)?,
            "--epochs" => cfg.epochs = num(value(args, &mut i, flag)?, flag)?,
            "--batch" => cfg.batch = num(value(args, &mut i, flag)?, flag)?,
            "--lr" => cfg.lr = num(value(args, &mut i, flag)?, flag)?,
            "--lr-end" => cfg.lr_end = num(value(args, &mut i, flag)?, flag)?,
            "--lambda" => cfg.lambda = num(value(args, &mut i, flag)?, flag)?,
            "--scale" => cfg.sigmoid_scale = num(value(args, &mut i, flag)?, flag)?,
            "--val" => val = num(value(args, &mut i, flag)?, flag)?,
            "--threads" => cfg.threads = num(value(args, &mut i, flag)?, flag)?,
            "--seed" => cfg.seed = num(value(args, &mut i, flag)?, flag)?,
            "--max-positions" => max_positions = Some(num(value(args, &mut i, flag)?, flag)?),
            "--max-seconds" => max_seconds = Some(num::<u64>(value(args, &mut i, flag)?, flag)?),
            "--resume" => resume = Some(PathBuf::from(value(args, &mut i, flag)?)),
            "--init" => init = Some(PathBuf::from(value(args, &mut i, flag)?)),
            "--save-every" => save_every = num::<u32>(value(args, &mut i, flag)?, flag)?.max(1),
            _ => return Err(format!("train: unknown option '{flag}'")),
        }
        i += 1;
    }
    let out = out.ok_or("train: --out DIR is required")?;
    if data.is_empty() {
        return Err("train: at least one --data FILE is required".into());
    }
    if !(0.0..1.0).contains(&val) {
        return Err(format!("--val: {val} must be at least 0 and below 1"));
    }
    if !(0.0..=1.0).contains(&cfg.lambda) {
        return Err(format!("--lambda: {} must be between 0 and 1", cfg.lambda));
    }
    if cfg.batch == 0 || cfg.threads == 0 || cfg.sigmoid_scale <= 0.0 {
        return Err("--batch, --threads and --scale must be positive".into());
    }
    let mut ck = match (&resume, &init) {
        (Some(_), Some(_)) => {
            return Err(
                "train: --resume and --init exclude each other (a checkpoint already \
                        holds its weights)"
                    .into(),
            )
        }
        (Some(p), None) => {
            let ck = Checkpoint::load(p).map_err(|e| e.to_string())?;
            cfg.arch = ck.net.arch;
            ck
        }
        (None, Some(p)) => {
            let net = QuantisedNet::load(p).map_err(|e| e.to_string())?;
            cfg.arch = net.arch;
            Checkpoint::new(net.dequantise())
        }
        (None, None) => {
            cfg.arch.check()?;
            train::fresh(&cfg)
        }
    };
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let t0 = Instant::now();
    let mut records = Vec::new();
    for path in &data {
        let left = max_positions.map(|m: usize| m.saturating_sub(records.len()));
        let r = xiangqi_nnue::data::read_all(path, left).map_err(|e| e.to_string())?;
        records.extend(r);
    }
    let (tr, va) = train::split(&records, &cfg, val);
    drop(records);
    eprintln!(
        "{} training and {} validation positions, read in {:.1} s; net {} -> {}x2 -> {} (king buckets {})",
        tr.len(),
        va.len(),
        t0.elapsed().as_secs_f64(),
        cfg.arch.inputs(),
        cfg.arch.hidden,
        cfg.arch.outputs,
        cfg.arch.buckets.name()
    );
    if tr.is_empty() {
        return Err("no training positions".into());
    }
    eprintln!(
        "epoch 0: validation loss {:.6}",
        train::loss(&ck.net, &va, &cfg)
    );
    let deadline = max_seconds.map(|s| Instant::now() + Duration::from_secs(s));
    let mut save_err = None;
    train::train(&mut ck, &tr, &va, &cfg, deadline, &mut |r, ck| {
        println!(
            "epoch {}: lr {:.6} train loss {:.6} validation loss {:.6} ({:.0} positions/s, {:.1} s)",
            r.epoch, r.lr, r.train_loss, r.val_loss, r.positions_per_second, r.seconds
        );
        if r.epoch % save_every == 0 {
            let p = out.join(format!("epoch-{}.ckpt", r.epoch));
            if let Err(e) = ck.save(&p) {
                save_err = Some(format!("{}: {e}", p.display()));
            }
        }
    });
    if let Some(e) = save_err {
        return Err(e);
    }
    let last = out.join("last.ckpt");
    ck.save(&last)
        .map_err(|e| format!("{}: {e}", last.display()))?;
    let net = out.join("net.nnue");
    ck.net
        .quantise()
        .save(&net)
        .map_err(|e| format!("{}: {e}", net.display()))?;
    println!("wrote {}", net.display());
    Ok(())
}

fn cmd_quantise(args: &[String]) -> Result<(), String> {
    let [ck, out] = args else {
        return Err("usage: xiangqi-nnue quantise CHECKPOINT OUT.nnue".into());
    };
    let ck = Checkpoint::load(ck.as_ref()).map_err(|e| e.to_string())?;
    ck.net
        .quantise()
        .save(out.as_ref())
        .map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out} (after epoch {})", ck.epoch);
    Ok(())
}

fn cmd_compare(args: &[String]) -> Result<(), String> {
    let (ck, data, n) = match args {
        [ck, data] => (ck, data, 10_000),
        [ck, data, n] => (ck, data, num::<usize>(n, "N")?),
        _ => return Err("usage: xiangqi-nnue compare CHECKPOINT DATA [N]".into()),
    };
    let ck = Checkpoint::load(ck.as_ref()).map_err(|e| e.to_string())?;
    let q = ck.net.quantise();
    let records =
        xiangqi_nnue::data::read_all(data.as_ref(), Some(n)).map_err(|e| e.to_string())?;
    if records.is_empty() {
        return Err(format!("{data}: no positions"));
    }
    let mut diffs: Vec<f64> = records
        .iter()
        .map(|r| {
            (ck.net.evaluate(&r.board, r.turn) as f64 - q.evaluate(&r.board, r.turn) as f64).abs()
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    let mean = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let p99 = diffs[(diffs.len() * 99 / 100).min(diffs.len() - 1)];
    println!(
        "{} positions: quantised (QB {}) - float, mean {mean:.2} cp, 99th percentile {p99:.2} cp, largest {:.2} cp",
        diffs.len(),
        q.qb,
        diffs[diffs.len() - 1]
    );
    Ok(())
}

fn cmd_info(args: &[String]) -> Result<(), String> {
    let [path] = args else {
        return Err("usage: xiangqi-nnue info FILE".into());
    };
    let mut r = DataReader::open(path.as_ref()).map_err(|e| e.to_string())?;
    let mut results = [0u64; 3];
    let mut sum_abs = 0u64;
    while let Some(rec) = r.next_record() {
        let rec = rec.map_err(|e| e.to_string())?;
        results[rec.result as usize] += 1;
        sum_abs += rec.score.unsigned_abs() as u64;
    }
    let n = r.records();
    println!(
        "{path}: {n} positions; results (Red's side) win {} draw {} loss {}; mean |score| {:.0} cp{}",
        results[GameResult::RedWin as usize],
        results[GameResult::Draw as usize],
        results[GameResult::BlackWin as usize],
        sum_abs as f64 / n.max(1) as f64,
        if r.truncated > 0 {
            format!("; {} bytes of a partial last record ignored", r.truncated)
        } else {
            String::new()
        }
    );
    Ok(())
}

fn cmd_wdl_fit(args: &[String]) -> Result<(), String> {
    use xiangqi_nnue::wdl::{fit, WdlBins, SHIPPED};
    const USAGE: &str = "usage: xiangqi-nnue wdl-fit [--holdout F] DATA [DATA...]";
    let mut holdout = 0.0f64;
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--holdout" {
            let v = it.next().ok_or("--holdout needs a fraction")?;
            holdout = v
                .parse()
                .ok()
                .filter(|f: &f64| (0.0..=0.9).contains(f))
                .ok_or_else(|| format!("--holdout {v}: not a fraction from 0 to 0.9"))?;
        } else if a.starts_with("--") {
            return Err(format!("wdl-fit: unknown option {a}\n{USAGE}"));
        } else {
            paths.push(a);
        }
    }
    if paths.is_empty() {
        return Err(USAGE.into());
    }
    let mut bins = WdlBins::new(10, 1500);
    let mut held = WdlBins::new(10, 1500);
    for path in paths {
        let mut r = DataReader::open(path.as_ref()).map_err(|e| format!("{path}: {e}"))?;
        // The last `holdout` of the file: whole games but the first, as a file holds its
        // games one after another.
        let total = std::fs::metadata(path)
            .map_err(|e| format!("{path}: {e}"))?
            .len()
            .saturating_sub(HEADER_LEN as u64)
            / RECORD_LEN as u64;
        let first_held = total - (holdout * total as f64).round() as u64;
        while let Some(rec) = r.next_record() {
            let rec = rec.map_err(|e| format!("{path}: {e}"))?;
            // `records()` counts this record too.
            if r.records() <= first_held {
                bins.add(&rec);
            } else {
                held.add(&rec);
            }
        }
    }
    let f = fit(&bins, 5, 1000).ok_or_else(|| {
        format!(
            "{} positions with |score| <= 1500 cp: fewer than four material groups (5 points each) have 1,000",
            bins.positions
        )
    })?;
    println!("{} positions with |score| <= 1500 cp", bins.positions);
    println!("material  positions        a        b  (model a, b)");
    for b in &f.bins {
        let (ma, mb) = f.model.params(b.x);
        println!(
            "{:>8.1} {:>10} {:>8.1} {:>8.1}  ({ma:.1}, {mb:.1})",
            b.x * 80.0,
            b.positions,
            b.a,
            b.b
        );
    }
    let show = |c: &[f64; 4]| c.map(|v| format!("{v:.3}")).join(", ");
    println!("pub const WDL_A: [f64; 4] = [{}];", show(&f.model.a));
    println!("pub const WDL_B: [f64; 4] = [{}];", show(&f.model.b));
    let losses = |set: &WdlBins, what: &str| {
        if let (Some(new), Some(old)) = (f.model.mean_nll(set), SHIPPED.mean_nll(set)) {
            println!(
                "mean log-loss per position, {what} ({} positions): this fit {new:.5}, the shipped model {old:.5}",
                set.positions
            );
        }
    };
    losses(&bins, "the fitting data");
    losses(&held, "held out");
    Ok(())
}
