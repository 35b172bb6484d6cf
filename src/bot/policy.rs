//! Which challenges the bot accepts: a challenge from the event stream, read from lichess's
//! JSON, and the policy's verdict, either accept or decline with one of lichess's reasons.
//! The checks run in lichess-bot's order: the kind of challenger, the time control, the
//! variant, rated or casual, then how many games are going on.

use serde_json::Value;

/// lichess's speeds, fastest first.
pub const SPEEDS: [&str; 5] = ["bullet", "blitz", "rapid", "classical", "correspondence"];

/// Whom the bot plays.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Opponents {
    Everyone,
    NoBots,
    OnlyBots,
}

/// The policy (from the command line).
#[derive(Clone, Debug)]
pub struct Policy {
    /// Accepted speeds, by lichess's names.
    pub speeds: Vec<String>,
    /// Bounds of the initial time and of the increment, in seconds.
    pub min_initial: u64,
    pub max_initial: u64,
    pub min_increment: u64,
    pub max_increment: u64,
    pub rated: bool,
    pub casual: bool,
    pub opponents: Opponents,
    /// Games at once.
    pub max_games: usize,
}

/// A challenge, as the event stream's `challenge` object has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub id: String,
    /// The challenger's name (empty when there is none).
    pub challenger: String,
    pub challenger_id: String,
    /// Whether the challenger is a bot (`title: "BOT"`).
    pub challenger_bot: bool,
    /// The challenged account's id (lowercase name), when given.
    pub dest: Option<String>,
    pub rated: bool,
    pub speed: String,
    /// `(limit, increment)` in seconds for a clock.
    pub clock: Option<(u64, u64)>,
    /// Days per move for a correspondence challenge.
    pub days: Option<u64>,
    /// The variant's key (`standard`, `xiangqi`, `fromPosition`, ...).
    pub variant: String,
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut v = v;
    for k in path {
        v = v.get(k)?;
    }
    v.as_str()
}

impl Challenge {
    /// Reads a `challenge` object; the error names what is missing or wrong.
    pub fn from_json(c: &Value) -> Result<Challenge, String> {
        let id = str_at(c, &["id"]).ok_or("a challenge without an id")?;
        let user = |k: &str| -> (String, String, bool) {
            let u = c.get(k).filter(|u| !u.is_null());
            let name = u.and_then(|u| str_at(u, &["name"])).unwrap_or_default();
            let uid = u
                .and_then(|u| str_at(u, &["id"]))
                .map(str::to_string)
                .unwrap_or_else(|| name.to_lowercase());
            let bot = u.and_then(|u| str_at(u, &["title"])) == Some("BOT");
            (name.to_string(), uid, bot)
        };
        let (challenger, challenger_id, challenger_bot) = user("challenger");
        let (_, dest_id, _) = user("destUser");
        let tc = c.get("timeControl").unwrap_or(&Value::Null);
        let secs = |k: &str| tc.get(k).and_then(Value::as_u64);
        let (clock, days) = match str_at(tc, &["type"]) {
            Some("clock") => (
                Some((
                    secs("limit").ok_or(format!("challenge {id}: a clock without a limit"))?,
                    secs("increment").unwrap_or(0),
                )),
                None,
            ),
            Some("correspondence") => (None, Some(secs("daysPerTurn").unwrap_or(0))),
            _ => (None, None),
        };
        let speed = match str_at(c, &["speed"]) {
            Some(s) => s.to_string(),
            None => speed_of(clock, days).to_string(),
        };
        let variant = match c.get("variant") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => str_at(v, &["key"]).unwrap_or("standard").to_string(),
            None => "standard".to_string(),
        };
        Ok(Challenge {
            id: id.to_string(),
            challenger,
            challenger_id,
            challenger_bot,
            dest: Some(dest_id).filter(|d| !d.is_empty()),
            rated: c.get("rated").and_then(Value::as_bool).unwrap_or(false),
            speed,
            clock,
            days,
            variant,
        })
    }

    /// How it reads in the log: `blitz 3+2 rated from ann (BOT)`.
    pub fn describe(&self) -> String {
        let tc = match (self.clock, self.days) {
            (Some((l, i)), _) => format!(" {}+{i}", minutes(l)),
            (None, Some(d)) => format!(" {d} days"),
            _ => String::new(),
        };
        format!(
            "{}{tc} {} from {}{}",
            self.speed,
            if self.rated { "rated" } else { "casual" },
            if self.challenger.is_empty() {
                "?"
            } else {
                &self.challenger
            },
            if self.challenger_bot { " (BOT)" } else { "" }
        )
    }
}

/// Seconds as lichess writes a clock's minutes: `3`, `0.5`, `0.25`.
fn minutes(s: u64) -> String {
    if s.is_multiple_of(60) {
        (s / 60).to_string()
    } else {
        let m = format!("{:.2}", s as f64 / 60.0);
        m.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// lichess's speed of a time control: the estimated duration `limit + 40 * increment`,
/// bullet under 3 minutes, blitz under 8, rapid under 25, classical beyond (the server's
/// rule too); correspondence without a clock.
pub fn speed_of(clock: Option<(u64, u64)>, _days: Option<u64>) -> &'static str {
    match clock {
        None => "correspondence",
        Some((l, i)) => match l + 40 * i {
            t if t < 180 => "bullet",
            t if t < 480 => "blitz",
            t if t < 1500 => "rapid",
            _ => "classical",
        },
    }
}

/// The variants that are Xiangqi (the server's challenges are variant-free; lichess-shaped
/// servers of Xiangqi name it `xiangqi`, or `standard` / `fromPosition`).
const VARIANTS: [&str; 3] = ["standard", "xiangqi", "fromPosition"];

impl Policy {
    /// `Ok` to accept, or the decline reason (lichess's key).
    pub fn decide(&self, c: &Challenge, games_now: usize) -> Result<(), &'static str> {
        match self.opponents {
            Opponents::NoBots if c.challenger_bot => return Err("noBot"),
            Opponents::OnlyBots if !c.challenger_bot => return Err("onlyBot"),
            _ => {}
        }
        self.time_control(c)?;
        if !VARIANTS.iter().any(|v| v.eq_ignore_ascii_case(&c.variant)) {
            return Err("variant");
        }
        if c.rated && !self.rated {
            return Err("casual");
        }
        if !c.rated && !self.casual {
            return Err("rated");
        }
        if games_now >= self.max_games {
            return Err("later");
        }
        Ok(())
    }

    fn time_control(&self, c: &Challenge) -> Result<(), &'static str> {
        let rank = |s: &str| SPEEDS.iter().position(|x| *x == s);
        if !self.speeds.contains(&c.speed) {
            let ranks: Vec<usize> = self.speeds.iter().filter_map(|s| rank(s)).collect();
            return Err(match rank(&c.speed) {
                Some(r) if ranks.iter().all(|&a| a > r) => "tooFast",
                Some(r) if ranks.iter().all(|&a| a < r) => "tooSlow",
                _ => "timeControl",
            });
        }
        match c.clock {
            Some((limit, inc)) => {
                if limit < self.min_initial || inc < self.min_increment {
                    Err("tooFast")
                } else if limit > self.max_initial || inc > self.max_increment {
                    Err("tooSlow")
                } else {
                    Ok(())
                }
            }
            // Correspondence (accepted above by its speed); an unlimited game has no clock to
            // play by and no deadline: declined.
            None if c.days.is_some() => Ok(()),
            None => Err("timeControl"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy() -> Policy {
        Policy {
            speeds: ["bullet", "blitz", "rapid"].map(String::from).to_vec(),
            min_initial: 30,
            max_initial: 1200,
            min_increment: 0,
            max_increment: 30,
            rated: true,
            casual: true,
            opponents: Opponents::Everyone,
            max_games: 1,
        }
    }

    /// A challenge event as lichess sends it (api/stream/event, trimmed of links).
    const LICHESS: &str = r##"{"type":"challenge","challenge":{"id":"7pGLxJ4F","url":"https://lichess.org/7pGLxJ4F","status":"created","challenger":{"id":"lovlas","name":"Lovlas","rating":1506,"title":null,"provisional":true,"online":true,"lag":24},"destUser":{"id":"thibot","name":"thibot","rating":1500,"title":"BOT","provisional":true,"online":true,"lag":45},"variant":{"key":"standard","name":"Standard","short":"Std"},"rated":true,"speed":"rapid","timeControl":{"type":"clock","limit":600,"increment":0,"show":"10+0"},"color":"random","finalColor":"black","perf":{"icon":"#","name":"Rapid"}},"compat":{"bot":true,"board":true}}"##;

    fn challenge(c: Value) -> Challenge {
        Challenge::from_json(&c).unwrap()
    }

    #[test]
    fn reads_lichess_challenge_events() {
        let v: Value = serde_json::from_str(LICHESS).unwrap();
        let c = challenge(v["challenge"].clone());
        assert_eq!(c.id, "7pGLxJ4F");
        assert_eq!(c.challenger, "Lovlas");
        assert_eq!(c.challenger_id, "lovlas");
        assert!(!c.challenger_bot);
        assert_eq!(c.dest.as_deref(), Some("thibot"));
        assert!(c.rated);
        assert_eq!(c.speed, "rapid");
        assert_eq!(c.clock, Some((600, 0)));
        assert_eq!(c.variant, "standard");
        assert_eq!(c.describe(), "rapid 10+0 rated from Lovlas");
        assert_eq!(policy().decide(&c, 0), Ok(()));
        // Correspondence and unlimited.
        let corr = challenge(json!({"id": "a", "rated": false, "speed": "correspondence",
            "timeControl": {"type": "correspondence", "daysPerTurn": 2},
            "challenger": {"id": "b1", "name": "B1", "title": "BOT"}}));
        assert_eq!((corr.clock, corr.days), (None, Some(2)));
        assert!(corr.challenger_bot);
        assert_eq!(
            corr.describe(),
            "correspondence 2 days casual from B1 (BOT)"
        );
        let unl = challenge(json!({"id": "u", "timeControl": {"type": "unlimited"}}));
        assert_eq!(unl.speed, "correspondence");
        assert_eq!((unl.clock, unl.days, unl.rated), (None, None, false));
        // Without a speed it is worked out as lichess does; 0.5+0 reads as such.
        let b = challenge(
            json!({"id": "x", "timeControl": {"type": "clock", "limit": 30, "increment": 0}}),
        );
        assert_eq!(b.speed, "bullet");
        assert_eq!(b.describe(), "bullet 0.5+0 casual from ?");
        assert_eq!(minutes(20), "0.33");
        assert_eq!(minutes(90), "1.5");
        assert_eq!(minutes(15), "0.25");
        assert!(Challenge::from_json(&json!({"rated": true})).is_err());
        let e = Challenge::from_json(&json!({"id": "q", "timeControl": {"type": "clock"}}));
        assert_eq!(e.unwrap_err(), "challenge q: a clock without a limit");
    }

    #[test]
    fn speeds_by_estimated_duration() {
        assert_eq!(speed_of(Some((60, 1)), None), "bullet"); // 100 s
        assert_eq!(speed_of(Some((120, 1)), None), "bullet"); // 160 s
        assert_eq!(speed_of(Some((150, 1)), None), "blitz"); // 190 s
        assert_eq!(speed_of(Some((179, 0)), None), "bullet");
        assert_eq!(speed_of(Some((180, 0)), None), "blitz");
        assert_eq!(speed_of(Some((300, 3)), None), "blitz");
        assert_eq!(speed_of(Some((600, 0)), None), "rapid");
        assert_eq!(speed_of(Some((1800, 0)), None), "classical");
        assert_eq!(speed_of(None, Some(3)), "correspondence");
    }

    #[test]
    fn declines_with_lichess_reasons_in_lichess_bots_order() {
        let p = policy();
        let c = |v: Value| challenge(v);
        let tc = |l: u64, i: u64| json!({"type": "clock", "limit": l, "increment": i});
        let base = |speed: &str, l: u64, i: u64, rated: bool, bot: bool| {
            c(
                json!({"id": "c", "speed": speed, "timeControl": tc(l, i), "rated": rated,
                "challenger": {"name": "x", "title": if bot {"BOT"} else {""}}}),
            )
        };
        assert_eq!(p.decide(&base("blitz", 180, 2, false, false), 0), Ok(()));
        assert_eq!(p.decide(&base("blitz", 180, 2, true, true), 0), Ok(()));
        // Time controls: a slower speed than any accepted, a faster one, the bounds.
        assert_eq!(
            p.decide(&base("classical", 1800, 0, false, false), 0),
            Err("tooSlow")
        );
        assert_eq!(
            p.decide(&base("bullet", 15, 0, false, false), 0),
            Err("tooFast")
        );
        assert_eq!(
            p.decide(&base("rapid", 600, 31, false, false), 0),
            Err("tooSlow")
        );
        let mut q = policy();
        q.min_increment = 2;
        assert_eq!(
            q.decide(&base("blitz", 180, 1, false, false), 0),
            Err("tooFast")
        );
        q.speeds = vec!["bullet".into(), "rapid".into()];
        assert_eq!(
            q.decide(&base("blitz", 180, 2, false, false), 0),
            Err("timeControl")
        );
        q.speeds = vec!["blitz".into()];
        assert_eq!(
            q.decide(&base("bullet", 60, 2, false, false), 0),
            Err("tooFast")
        );
        let corr = c(json!({"id": "c", "speed": "correspondence",
            "timeControl": {"type": "correspondence", "daysPerTurn": 1}}));
        assert_eq!(p.decide(&corr, 0), Err("tooSlow"));
        let unl = c(json!({"id": "c", "timeControl": {"type": "unlimited"}}));
        q.speeds = vec!["correspondence".into()];
        assert_eq!(q.decide(&corr, 0), Ok(()));
        assert_eq!(q.decide(&unl, 0), Err("timeControl"));
        // Variant.
        let chess960 = c(
            json!({"id": "c", "speed": "blitz", "timeControl": tc(180, 0),
            "variant": {"key": "chess960"}}),
        );
        assert_eq!(p.decide(&chess960, 0), Err("variant"));
        let xq = c(
            json!({"id": "c", "speed": "blitz", "timeControl": tc(180, 0),
            "variant": {"key": "xiangqi"}}),
        );
        assert_eq!(p.decide(&xq, 0), Ok(()));
        // Rated or casual: the reason says what to send instead.
        let mut r = policy();
        r.casual = false;
        assert_eq!(
            r.decide(&base("blitz", 180, 0, false, false), 0),
            Err("rated")
        );
        let mut k = policy();
        k.rated = false;
        assert_eq!(
            k.decide(&base("blitz", 180, 0, true, false), 0),
            Err("casual")
        );
        // Bots or people.
        let mut nb = policy();
        nb.opponents = Opponents::NoBots;
        assert_eq!(
            nb.decide(&base("blitz", 180, 0, false, true), 0),
            Err("noBot")
        );
        nb.opponents = Opponents::OnlyBots;
        assert_eq!(
            nb.decide(&base("blitz", 180, 0, false, false), 0),
            Err("onlyBot")
        );
        // Concurrency last; the challenger's kind first.
        assert_eq!(
            p.decide(&base("blitz", 180, 0, false, false), 1),
            Err("later")
        );
        let mut m = policy();
        m.max_games = 3;
        assert_eq!(m.decide(&base("blitz", 180, 0, false, false), 2), Ok(()));
        nb.opponents = Opponents::NoBots;
        assert_eq!(
            nb.decide(&base("bullet", 5, 0, true, true), 5),
            Err("noBot")
        );
    }
}
