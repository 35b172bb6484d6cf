//! Piece sets ("materials") and their names: `KRKAA` is a general and chariot against a
//! general and two advisors.
//!
//! A name is two sides, each a `K` followed by its other pieces; the stronger side comes
//! first. Letters are the WXF ones (K general, A advisor, E elephant, H horse, R chariot,
//! C cannon, P soldier); the FEN letters B (elephant) and N (horse) are accepted too, in
//! either case. The canonical name orders each side's pieces R H C P A E.

use core::fmt;

use xiangqi::{Board, Color, Piece, Role};

/// The roles in the order a canonical name lists them (the general first, always one).
const NAME_ORDER: [Role; 6] = [
    Role::Chariot,
    Role::Horse,
    Role::Cannon,
    Role::Soldier,
    Role::Advisor,
    Role::Elephant,
];

/// The roles that can give mate.
pub const ATTACKERS: [Role; 4] = [Role::Chariot, Role::Horse, Role::Cannon, Role::Soldier];

/// The number of pieces of each role (by [`Role::index`]) on each side; the general is
/// always one and not counted here.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Material {
    /// `counts[color][role]`, Red (the first, stronger side in a canonical material) first.
    pub counts: [[u8; 7]; 2],
}

/// Why a piece-set name is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaterialError(pub String);

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MaterialError {}

/// A side's rough strength, for choosing which side is named first: attackers count ten
/// times more than advisors and elephants, so that the attacking side comes first.
fn side_weight(c: &[u8; 7]) -> u32 {
    let w = |r: Role| c[r.index()] as u32;
    180 * w(Role::Chariot)
        + 90 * w(Role::Cannon)
        + 80 * w(Role::Horse)
        + 20 * w(Role::Soldier)
        + w(Role::Advisor)
        + w(Role::Elephant)
}

fn side_name(c: &[u8; 7]) -> String {
    let mut s = String::from("K");
    for r in NAME_ORDER {
        for _ in 0..c[r.index()] {
            s.push(wxf_letter(r));
        }
    }
    s
}

/// The WXF letter of a role: K A E H R C P.
pub fn wxf_letter(r: Role) -> char {
    match r {
        Role::General => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Chariot => 'R',
        Role::Cannon => 'C',
        Role::Soldier => 'P',
    }
}

impl Material {
    /// Reads a name such as `KRKAA`, `krkaa`, `KNKAB` or `KAAKR` (any side first; the result
    /// is not yet canonical, see [`Material::canonical`]).
    pub fn parse(name: &str) -> Result<Material, MaterialError> {
        let err = |why: String| MaterialError(format!("bad piece set '{name}': {why}"));
        let upper: Vec<char> = name.chars().map(|c| c.to_ascii_uppercase()).collect();
        if upper.first() != Some(&'K') {
            return Err(err("it must start with K (the first side's general)".into()));
        }
        let mut m = Material::default();
        let mut side = None::<usize>;
        for (i, &ch) in upper.iter().enumerate() {
            let role = Role::from_char(ch).ok_or_else(|| {
                err(format!(
                    "'{}' at position {} is not a piece letter (K A E/B H/N R C P)",
                    name.chars().nth(i).unwrap_or(ch),
                    i + 1
                ))
            })?;
            if role == Role::General {
                side = Some(side.map_or(0, |s| s + 1));
                if side == Some(2) {
                    return Err(err("more than two generals".into()));
                }
                continue;
            }
            let s = side.expect("starts with K");
            m.counts[s][role.index()] += 1;
            if m.counts[s][role.index()] as u32 > role.max_count() {
                return Err(err(format!(
                    "more than {} {}s on one side",
                    role.max_count(),
                    role.name()
                )));
            }
        }
        if side != Some(1) {
            return Err(err(
                "it needs two generals, one for each side (e.g. KRKAA)".into()
            ));
        }
        Ok(m)
    }

    /// The material on a board.
    pub fn of_board(board: &Board) -> Material {
        let mut m = Material::default();
        for color in Color::ALL {
            for role in Role::ALL {
                if role != Role::General {
                    m.counts[color as usize][role.index()] =
                        board.count(Piece::new(color, role)) as u8;
                }
            }
        }
        m
    }

    /// Whether the sides are to be swapped to make this canonical (the stronger side first).
    pub fn needs_swap(&self) -> bool {
        let (a, b) = (&self.counts[0], &self.counts[1]);
        let (wa, wb) = (side_weight(a), side_weight(b));
        wa < wb || (wa == wb && side_name(a) < side_name(b))
    }

    /// The sides exchanged.
    pub fn swapped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// The same material with the stronger side first.
    pub fn canonical(&self) -> Material {
        if self.needs_swap() {
            self.swapped()
        } else {
            *self
        }
    }

    /// Whether a side has a piece that can give mate.
    pub fn has_attacker(&self, color: Color) -> bool {
        ATTACKERS
            .iter()
            .any(|r| self.counts[color as usize][r.index()] > 0)
    }

    /// Whether either side can still give mate (else the game is drawn by insufficient
    /// material unless the side to move has no legal move).
    pub fn any_attacker(&self) -> bool {
        self.has_attacker(Color::Red) || self.has_attacker(Color::Black)
    }

    /// The number of attacking pieces on both sides.
    pub fn attackers(&self) -> u32 {
        ATTACKERS
            .iter()
            .map(|r| (self.counts[0][r.index()] + self.counts[1][r.index()]) as u32)
            .sum()
    }

    /// The material after `piece` is captured.
    pub fn without(&self, piece: Piece) -> Material {
        let mut m = *self;
        m.counts[piece.color as usize][piece.role.index()] -= 1;
        m
    }

    /// The number of pieces, generals included.
    pub fn pieces(&self) -> u32 {
        2 + self.counts.iter().flatten().map(|&c| c as u32).sum::<u32>()
    }
}

/// The name: first side (Red in the table) then second, e.g. `KRKAA`.
impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            side_name(&self.counts[0]),
            side_name(&self.counts[1])
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let m = Material::parse("KRKAA").unwrap();
        assert_eq!(m.to_string(), "KRKAA");
        assert_eq!(
            Material::parse("kaakr").unwrap().canonical().to_string(),
            "KRKAA"
        );
        assert_eq!(Material::parse("KNKAB").unwrap().to_string(), "KHKAE");
        assert_eq!(
            Material::parse("KEARKA").unwrap().canonical().to_string(),
            "KRAEKA"
        );
        assert!(Material::parse("RKA").is_err());
        assert_eq!(
            Material::parse("KAAEEKP").unwrap().canonical().to_string(),
            "KPKAAEE"
        );
        assert!(Material::parse("KRKX")
            .unwrap_err()
            .0
            .contains("'X' at position 4"));
        assert!(Material::parse("KRRRK").is_err());
        assert!(Material::parse("KRKAKA").is_err());
        assert!(Material::parse("KR").is_err());
    }
}
