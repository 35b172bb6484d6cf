//! Accounts: registration, log-in and log-out with a username and a password, sessions,
//! personal API tokens, and ratings (`rating`). No HTTP here (that is `api::accounts`), no
//! SQL (that is `store::accounts`).
//!
//! - Passwords are hashed with argon2id (the `argon2` crate's defaults: 19 MiB, 2 passes,
//!   a random 16-byte salt) on a blocking thread. A log-in for an unknown name verifies the
//!   password against a dummy hash, so it takes as long as one for a known name, and both
//!   get the same message.
//! - A session is a 256-bit random secret in an `HttpOnly`, `SameSite=Lax` cookie; the store
//!   keeps its SHA-256 and a CSRF token that every cookie-authenticated state change must
//!   send back (`X-CSRF-Token`). Sessions end on log-out, on a password change (all of the
//!   account's), and after 30 days.
//! - A personal API token (`xqt_` and 64 hex digits) is shown once; the store keeps its
//!   SHA-256. It acts as `Authorization: Bearer` for the seats its account holds.
//! - Log-in attempts are limited per account (failures) and per client address (attempts).

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use sha2::{Digest, Sha256};

use crate::store::accounts::{AccountWrite, SessionRow, TokenRow};
use crate::store::{Store, StoreError};

/// The shortest and longest password.
pub const MIN_PASSWORD: usize = 8;
pub const MAX_PASSWORD: usize = 256;
/// The shortest and longest username (characters).
pub const MIN_NAME: usize = 2;
pub const MAX_NAME: usize = 30;
/// The longest label of an API token.
pub const MAX_LABEL: usize = 60;
/// How long a session lasts.
pub const SESSION_MS: i64 = 30 * 24 * 3600 * 1000;
/// The prefix of personal API tokens (seat tokens are 32 hex digits without one).
pub const TOKEN_PREFIX: &str = "xqt_";
/// The most API tokens an account may have.
pub const MAX_TOKENS: usize = 20;

/// Why an account operation is refused.
#[derive(Debug)]
pub enum AccountError {
    /// A malformed field (400), naming it.
    Bad {
        field: &'static str,
        msg: String,
    },
    /// The name is taken (409).
    NameTaken,
    /// Wrong username or password (401): the same for both.
    WrongLogin,
    /// Too many attempts (429), with the seconds to wait.
    TooMany {
        what: &'static str,
        retry: u64,
    },
    /// No such token of this account (404).
    NoSuchToken,
    /// Too many tokens (409).
    TooManyTokens,
    Store(StoreError),
    /// The random source or the hasher failed (500).
    Internal(String),
}

impl fmt::Display for AccountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccountError::Bad { msg, .. } => f.write_str(msg),
            AccountError::NameTaken => f.write_str("this username is taken"),
            AccountError::WrongLogin => f.write_str("wrong username or password"),
            AccountError::TooMany { what, retry } => {
                write!(f, "too many {what}; try again in {retry} s")
            }
            AccountError::NoSuchToken => f.write_str("no such API token of this account"),
            AccountError::TooManyTokens => {
                write!(
                    f,
                    "an account has at most {MAX_TOKENS} API tokens: revoke one first"
                )
            }
            AccountError::Store(e) => e.fmt(f),
            AccountError::Internal(e) => f.write_str(e),
        }
    }
}

impl From<StoreError> for AccountError {
    fn from(e: StoreError) -> AccountError {
        AccountError::Store(e)
    }
}

/// The hex SHA-256 of a secret (what the store keeps of sessions and tokens).
pub fn key_of(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn random_hex(bytes: usize) -> Result<String, AccountError> {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b)
        .map_err(|e| AccountError::Internal(format!("the system's random source failed: {e}")))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Equal in time that does not depend on where they differ.
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A username as given, checked: trimmed, 2 to 30 characters, no control characters. Any
/// other character is allowed (it is always shown as text); names are unique without regard
/// to case. Answers the name and its key (lower case).
pub fn check_name(raw: &str) -> Result<(String, String), AccountError> {
    let name = raw.trim();
    let bad = |msg: String| AccountError::Bad {
        field: "username",
        msg,
    };
    let n = name.chars().count();
    if !(MIN_NAME..=MAX_NAME).contains(&n) {
        return Err(bad(format!(
            "a username has {MIN_NAME} to {MAX_NAME} characters (this one has {n})"
        )));
    }
    if name.chars().any(|c| c.is_control()) {
        return Err(bad("a username cannot hold control characters".into()));
    }
    Ok((name.to_owned(), name.to_lowercase()))
}

fn check_password(p: &str, field: &'static str) -> Result<(), AccountError> {
    let n = p.chars().count();
    if n < MIN_PASSWORD {
        return Err(AccountError::Bad {
            field,
            msg: format!("a password has at least {MIN_PASSWORD} characters"),
        });
    }
    if p.len() > MAX_PASSWORD {
        return Err(AccountError::Bad {
            field,
            msg: format!("a password has at most {MAX_PASSWORD} bytes"),
        });
    }
    Ok(())
}

async fn hash(password: String) -> Result<String, AccountError> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt)
        .map_err(|e| AccountError::Internal(format!("the system's random source failed: {e}")))?;
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| AccountError::Internal(e.to_string()))?
    .map_err(|e| AccountError::Internal(format!("cannot hash the password: {e}")))
}

async fn verify(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash).is_ok_and(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
    })
    .await
    .unwrap_or(false)
}

/// A token bucket per key.
struct Buckets<K> {
    burst: f64,
    per_second: f64,
    map: HashMap<K, (f64, Instant)>,
}

impl<K: std::hash::Hash + Eq + Clone> Buckets<K> {
    fn new(burst: f64, per_second: f64) -> Self {
        Buckets {
            burst,
            per_second,
            map: HashMap::new(),
        }
    }

    fn level(&mut self, k: &K, now: Instant) -> f64 {
        if self.map.len() > 100_000 {
            let (b, r) = (self.burst, self.per_second);
            self.map
                .retain(|_, (t, at)| *t + now.duration_since(*at).as_secs_f64() * r < b);
        }
        let (b, r) = (self.burst, self.per_second);
        let e = self.map.entry(k.clone()).or_insert((b, now));
        e.0 = (e.0 + now.duration_since(e.1).as_secs_f64() * r).min(b);
        e.1 = now;
        e.0
    }

    /// `Err(seconds)` when the bucket of `k` is empty.
    fn check(&mut self, k: &K, now: Instant) -> Result<(), u64> {
        let l = self.level(k, now);
        if l >= 1.0 {
            Ok(())
        } else {
            Err(((1.0 - l) / self.per_second).ceil() as u64)
        }
    }

    fn take(&mut self, k: &K, now: Instant) {
        self.level(k, now);
        if let Some(e) = self.map.get_mut(k) {
            e.0 = (e.0 - 1.0).max(0.0);
        }
    }
}

/// The limits on log-in attempts.
pub struct LoginLimits {
    /// Failed log-ins per account: 5, then one a minute.
    account: Buckets<String>,
    /// Log-in and registration attempts per client address: 20, then one every 6 s.
    client: Buckets<IpAddr>,
}

impl Default for LoginLimits {
    fn default() -> Self {
        LoginLimits {
            account: Buckets::new(5.0, 1.0 / 60.0),
            client: Buckets::new(20.0, 1.0 / 6.0),
        }
    }
}

/// A new session: the cookie's secret (shown once) and the CSRF token.
#[derive(Debug)]
pub struct NewSession {
    pub user_id: i64,
    pub name: String,
    pub secret: String,
    pub csrf: String,
}

/// The account side of the server.
pub struct Accounts {
    store: Store,
    limits: Mutex<LoginLimits>,
    limited: AtomicBool,
}

fn dummy_hash() -> &'static str {
    static H: OnceLock<String> = OnceLock::new();
    H.get_or_init(|| {
        let salt = SaltString::encode_b64(b"xiangqi-dummy-salt").expect("a salt");
        Argon2::default()
            .hash_password(b"not a password of anyone", &salt)
            .expect("argon2 hashes")
            .to_string()
    })
}

impl Accounts {
    pub fn new(store: Store) -> Accounts {
        Accounts {
            store,
            limits: Mutex::new(LoginLimits::default()),
            limited: AtomicBool::new(true),
        }
    }

    /// Turns the log-in limits off (`--no-rate-limits`, for benchmarks and fuzzing).
    pub fn set_limits(&self, on: bool) {
        self.limited.store(on, Ordering::Relaxed);
    }

    fn limits(&self) -> std::sync::MutexGuard<'_, LoginLimits> {
        self.limits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts an attempt of `client`; refused when it has made too many.
    fn client_attempt(&self, client: Option<IpAddr>) -> Result<(), AccountError> {
        let (Some(ip), true) = (client, self.limited.load(Ordering::Relaxed)) else {
            return Ok(());
        };
        let now = Instant::now();
        let mut l = self.limits();
        l.client
            .check(&ip, now)
            .map_err(|retry| AccountError::TooMany {
                what: "log-in attempts from your address",
                retry,
            })?;
        l.client.take(&ip, now);
        Ok(())
    }

    fn account_check(&self, key: &str) -> Result<(), AccountError> {
        if !self.limited.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.limits()
            .account
            .check(&key.to_owned(), Instant::now())
            .map_err(|retry| AccountError::TooMany {
                what: "failed log-ins for this account",
                retry,
            })
    }

    fn account_failed(&self, key: &str) {
        self.limits().account.take(&key.to_owned(), Instant::now());
    }

    /// Creates an account and logs it in.
    pub async fn register(
        &self,
        username: &str,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<NewSession, AccountError> {
        let (name, key) = check_name(username)?;
        check_password(password, "password")?;
        self.client_attempt(client)?;
        let h = hash(password.to_owned()).await?;
        let id = self
            .store
            .create_user(&name, &key, &h, crate::store::now())
            .await?
            .ok_or(AccountError::NameTaken)?;
        self.new_session(id, name).await
    }

    /// Checks a username and password; a new session when they are right.
    pub async fn login(
        &self,
        username: &str,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<NewSession, AccountError> {
        let key = username.trim().to_lowercase();
        self.client_attempt(client)?;
        self.account_check(&key)?;
        let user = if password.len() <= MAX_PASSWORD && !key.is_empty() {
            self.store.user_by_key(&key).await?
        } else {
            None
        };
        // Unknown names are checked against a dummy hash: the same time, the same answer.
        let (hash, user) = match user {
            Some(u) => (u.password_hash.clone(), Some(u)),
            None => (dummy_hash().to_owned(), None),
        };
        let ok = verify(password.to_owned(), hash).await;
        match user {
            Some(u) if ok => self.new_session(u.id, u.name).await,
            _ => {
                self.account_failed(&key);
                Err(AccountError::WrongLogin)
            }
        }
    }

    async fn new_session(&self, user_id: i64, name: String) -> Result<NewSession, AccountError> {
        let secret = random_hex(32)?;
        let csrf = random_hex(16)?;
        let now = crate::store::now();
        self.store
            .account(AccountWrite::CreateSession {
                key: key_of(&secret),
                user_id,
                csrf: csrf.clone(),
                created: now,
                expires: now + SESSION_MS,
            })
            .await?;
        Ok(NewSession {
            user_id,
            name,
            secret,
            csrf,
        })
    }

    /// The session of a cookie's secret, if it is live.
    pub async fn session(&self, secret: &str) -> Result<Option<SessionRow>, AccountError> {
        Ok(self
            .store
            .session(&key_of(secret), crate::store::now())
            .await?)
    }

    /// Ends the session of a cookie's secret.
    pub async fn logout(&self, secret: &str) -> Result<(), AccountError> {
        self.store
            .account(AccountWrite::DeleteSession {
                key: key_of(secret),
            })
            .await?;
        Ok(())
    }

    /// Changes the password (the current one must be given): every session of the account
    /// ends; answers a new session for this client.
    pub async fn change_password(
        &self,
        user_id: i64,
        current: &str,
        new: &str,
        client: Option<IpAddr>,
    ) -> Result<NewSession, AccountError> {
        check_password(new, "new")?;
        let user = self
            .store
            .user_by_id(user_id)
            .await?
            .ok_or(AccountError::WrongLogin)?;
        let key = user.name.to_lowercase();
        self.client_attempt(client)?;
        self.account_check(&key)?;
        if !verify(current.to_owned(), user.password_hash.clone()).await {
            self.account_failed(&key);
            return Err(AccountError::Bad {
                field: "current",
                msg: "the current password is wrong".into(),
            });
        }
        let h = hash(new.to_owned()).await?;
        self.store
            .account(AccountWrite::SetPassword {
                user_id,
                password_hash: h,
            })
            .await?;
        self.new_session(user_id, user.name).await
    }

    /// A new personal API token: its id and the token itself (shown once).
    pub async fn create_token(
        &self,
        user_id: i64,
        label: &str,
    ) -> Result<(i64, String), AccountError> {
        let label: String = label.trim().chars().filter(|c| !c.is_control()).collect();
        if label.chars().count() > MAX_LABEL {
            return Err(AccountError::Bad {
                field: "label",
                msg: format!("a token's label has at most {MAX_LABEL} characters"),
            });
        }
        if self.store.tokens(user_id).await?.len() >= MAX_TOKENS {
            return Err(AccountError::TooManyTokens);
        }
        let token = format!("{TOKEN_PREFIX}{}", random_hex(32)?);
        let id = self
            .store
            .account(AccountWrite::CreateToken {
                user_id,
                key: key_of(&token),
                label: if label.is_empty() {
                    "token".into()
                } else {
                    label
                },
                created: crate::store::now(),
            })
            .await?;
        Ok((id, token))
    }

    pub async fn tokens(&self, user_id: i64) -> Result<Vec<TokenRow>, AccountError> {
        Ok(self.store.tokens(user_id).await?)
    }

    pub async fn revoke_token(&self, user_id: i64, id: i64) -> Result<(), AccountError> {
        let n = self
            .store
            .account(AccountWrite::RevokeToken { user_id, id })
            .await?;
        if n == 0 {
            return Err(AccountError::NoSuchToken);
        }
        Ok(())
    }

    /// The account of a personal API token, if it is one: id, name, and whether a bot.
    pub async fn token_user(
        &self,
        token: &str,
    ) -> Result<Option<(i64, String, bool)>, AccountError> {
        if !token.starts_with(TOKEN_PREFIX) {
            return Ok(None);
        }
        Ok(self.store.token_user(&key_of(token)).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert_eq!(check_name("  Ann ").unwrap(), ("Ann".into(), "ann".into()));
        assert!(check_name("a").is_err());
        assert!(check_name(&"x".repeat(31)).is_err());
        assert!(check_name("a\u{7}b").is_err());
        let (n, k) = check_name("<script>X</script>").unwrap();
        assert_eq!(
            (n.as_str(), k.as_str()),
            ("<script>X</script>", "<script>x</script>")
        );
        assert!(check_password("short", "password").is_err());
        assert!(check_password("long enough", "password").is_ok());
    }

    #[test]
    fn buckets_limit_and_refill() {
        let mut b = Buckets::new(2.0, 1.0);
        let t = Instant::now();
        let k = "a".to_string();
        assert!(b.check(&k, t).is_ok());
        b.take(&k, t);
        b.take(&k, t);
        assert_eq!(b.check(&k, t), Err(1));
        assert!(b.check(&"b".to_string(), t).is_ok());
        assert!(b
            .check(&k, t + std::time::Duration::from_millis(1100))
            .is_ok());
    }

    #[test]
    fn hashes_verify() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let h = hash("correct horse".into()).await.unwrap();
            assert!(h.starts_with("$argon2id$"), "{h}");
            assert!(verify("correct horse".into(), h.clone()).await);
            assert!(!verify("wrong horse".into(), h).await);
            assert!(!verify("x".into(), dummy_hash().into()).await);
        });
    }
}
