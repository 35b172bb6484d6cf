//! Secrets of live games: seat tokens and game ids.
//!
//! - A seat token is 128 bits from the operating system's random source, written as 32 hex
//!   digits. Whoever holds it plays that seat: it is the `Authorization: Bearer` of the board
//!   API and the secret in the player's page address (after `#`, so browsers never send it to
//!   the server in a request line, and it stays out of logs and `Referer` headers).
//! - Tokens are compared in constant time ([`Token::matches`]).
//! - A game id is 8 characters of `[0-9A-Za-z]` (about 47 bits), random, so games cannot be
//!   enumerated; spectators need only the id.

use core::fmt;

/// Where the randomness comes from failed (the OS refused): the server cannot make secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RandomError(pub String);

impl fmt::Display for RandomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the system's random source failed: {}", self.0)
    }
}
impl std::error::Error for RandomError {}

fn random_bytes<const N: usize>() -> Result<[u8; N], RandomError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| RandomError(e.to_string()))?;
    Ok(b)
}

/// A seat's secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A fresh random token.
    pub fn generate() -> Result<Token, RandomError> {
        let b: [u8; 16] = random_bytes()?;
        Ok(Token(b.iter().map(|x| format!("{x:02x}")).collect()))
    }

    /// A stored token, if it has the form of one (32 lowercase hex digits).
    pub fn parse(s: &str) -> Option<Token> {
        (s.len() == 32 && s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Token(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this token, in time that does not depend on where they differ.
    pub fn matches(&self, candidate: &str) -> bool {
        let a = self.0.as_bytes();
        let b = candidate.as_bytes();
        // The length of a token is public (32); compare a fixed number of bytes either way.
        let mut diff = (a.len() ^ b.len()) as u8 | u8::from(a.len() != b.len());
        for (i, x) in a.iter().enumerate() {
            diff |= x ^ b.get(i).copied().unwrap_or(0);
        }
        core::hint::black_box(diff) == 0
    }
}

/// Never print a secret by accident (logs, panics, `{:?}` of a state).
impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(…)")
    }
}

const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The length of a live game's id.
pub const GAME_ID_LEN: usize = 8;

/// A fresh random game id.
pub fn game_id() -> Result<String, RandomError> {
    // Rejection sampling keeps every character equally likely.
    let mut out = String::with_capacity(GAME_ID_LEN);
    while out.len() < GAME_ID_LEN {
        let b: [u8; 16] = random_bytes()?;
        for x in b {
            if x < 248 && out.len() < GAME_ID_LEN {
                out.push(ALPHABET[(x % 62) as usize] as char);
            }
        }
    }
    Ok(out)
}

/// Whether `s` has the form of a game id (checked before any look-up).
pub fn is_game_id(s: &str) -> bool {
    s.len() == GAME_ID_LEN && s.bytes().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bit_hex_and_differ() {
        let a = Token::generate().unwrap();
        let b = Token::generate().unwrap();
        assert_eq!(a.as_str().len(), 32);
        assert!(Token::parse(a.as_str()).is_some());
        assert_ne!(a, b);
        assert!(a.matches(a.as_str()));
        assert!(!a.matches(b.as_str()));
        assert!(!a.matches(""));
        assert!(!a.matches(&a.as_str()[..31]));
        assert!(!a.matches(&format!("{}0", a.as_str())));
        assert_eq!(format!("{a:?}"), "Token(…)");
        assert!(Token::parse("XYZ").is_none());
        assert!(Token::parse(&"G".repeat(32)).is_none());
    }

    #[test]
    fn game_ids_are_random_alphanumeric() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| game_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|i| is_game_id(i)));
        assert!(!is_game_id("1234567"));
        assert!(!is_game_id("1234567/"));
    }
}
