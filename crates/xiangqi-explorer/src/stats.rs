//! What the index holds for one move of one position, and its fixed 44-byte form.

/// How a game ended, from Red's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    RedWins,
    Draw,
    BlackWins,
}

/// A game that stands for a move: its id in the index, with what ranks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct GameRef {
    /// The game's id in the index (`Explorer::game`), from 1.
    pub id: u64,
    /// The mean rating of its players (0: not known).
    pub rating: u16,
    /// Its date as `yyyymmdd` (0: not known).
    pub date: u32,
}

impl GameRef {
    /// Higher-rated first; between equals the newer, then the later added.
    fn better_rated(&self, o: &GameRef) -> bool {
        (self.rating, self.date, self.id) > (o.rating, o.date, o.id)
    }
    /// Newer first; between equals the later added.
    fn newer(&self, o: &GameRef) -> bool {
        (self.date, self.id) > (o.date, o.id)
    }
}

/// One move's counts: games by result, the sum of their mean ratings (of the games with
/// one), its highest-rated and its most recent game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MoveStats {
    pub red: u32,
    pub draws: u32,
    pub black: u32,
    /// How many of the games have a rating (both players').
    pub rated: u32,
    /// The sum of those games' mean ratings.
    pub rating_sum: u64,
    /// The highest-rated game (id 0: none).
    pub top: GameRef,
    /// The most recent game (id 0: none).
    pub recent: GameRef,
}

/// The stored form's length in bytes.
pub const STATS_LEN: usize = 4 * 4 + 8 + 2 * 14;

impl MoveStats {
    /// The counts of one game.
    pub fn one(outcome: Outcome, game: GameRef) -> MoveStats {
        let mut s = MoveStats::default();
        match outcome {
            Outcome::RedWins => s.red = 1,
            Outcome::Draw => s.draws = 1,
            Outcome::BlackWins => s.black = 1,
        }
        if game.rating > 0 {
            s.rated = 1;
            s.rating_sum = u64::from(game.rating);
        }
        s.top = game;
        s.recent = game;
        s
    }

    pub fn games(&self) -> u64 {
        u64::from(self.red) + u64::from(self.draws) + u64::from(self.black)
    }

    /// The mean rating of the rated games, if any.
    pub fn average_rating(&self) -> Option<u16> {
        (self.rated > 0).then(|| (self.rating_sum / u64::from(self.rated)) as u16)
    }

    /// Adds `o`'s games to these (counts saturate rather than wrap).
    pub fn add(&mut self, o: &MoveStats) {
        self.red = self.red.saturating_add(o.red);
        self.draws = self.draws.saturating_add(o.draws);
        self.black = self.black.saturating_add(o.black);
        self.rated = self.rated.saturating_add(o.rated);
        self.rating_sum = self.rating_sum.saturating_add(o.rating_sum);
        if o.top.id != 0 && (self.top.id == 0 || o.top.better_rated(&self.top)) {
            self.top = o.top;
        }
        if o.recent.id != 0 && (self.recent.id == 0 || o.recent.newer(&self.recent)) {
            self.recent = o.recent;
        }
    }

    pub fn encode(&self) -> [u8; STATS_LEN] {
        let mut b = [0u8; STATS_LEN];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            b[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(&self.red.to_le_bytes());
        put(&self.draws.to_le_bytes());
        put(&self.black.to_le_bytes());
        put(&self.rated.to_le_bytes());
        put(&self.rating_sum.to_le_bytes());
        for g in [self.top, self.recent] {
            put(&g.id.to_le_bytes());
            put(&g.rating.to_le_bytes());
            put(&g.date.to_le_bytes());
        }
        b
    }

    /// The stored form back, or `None` if it is not `STATS_LEN` bytes.
    pub fn decode(b: &[u8]) -> Option<MoveStats> {
        if b.len() != STATS_LEN {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let u16_at = |i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap());
        let game = |i: usize| GameRef {
            id: u64_at(i),
            rating: u16_at(i + 8),
            date: u32_at(i + 10),
        };
        Some(MoveStats {
            red: u32_at(0),
            draws: u32_at(4),
            black: u32_at(8),
            rated: u32_at(12),
            rating_sum: u64_at(16),
            top: game(24),
            recent: game(38),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_round_trip_and_add() {
        let g = |id, rating, date| GameRef { id, rating, date };
        let mut s = MoveStats::one(Outcome::RedWins, g(1, 2000, 20240101));
        s.add(&MoveStats::one(Outcome::Draw, g(2, 0, 20250101)));
        s.add(&MoveStats::one(Outcome::BlackWins, g(3, 2400, 20230101)));
        assert_eq!((s.red, s.draws, s.black, s.games()), (1, 1, 1, 3));
        assert_eq!(s.average_rating(), Some(2200));
        assert_eq!(s.top.id, 3);
        assert_eq!(s.recent.id, 2);
        assert_eq!(MoveStats::decode(&s.encode()), Some(s));
        assert_eq!(MoveStats::decode(&[0; 3]), None);
    }
}
