//! The app's languages on the server: the one an account chose (`POST
//! /api/account/preferences`, `lang`) and the one a browser asks for (`Accept-Language`),
//! which the pages' `<html lang>` carries on a first visit. The same four as the app's
//! message catalogue (web/i18n.js, web/locales/*.ftl), read the same way (`normLang`).

use serde::{de::Error as _, Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

/// One of the app's languages: `en`, `zh-Hans` (Simplified Chinese), `zh-Hant` (Traditional)
/// or `vi` (Vietnamese).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum Lang {
    #[serde(rename = "en")]
    En,
    #[serde(rename = "zh-Hans")]
    ZhHans,
    #[serde(rename = "zh-Hant")]
    ZhHant,
    #[serde(rename = "vi")]
    Vi,
}

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::En, Lang::ZhHans, Lang::ZhHant, Lang::Vi];

    /// Its code, as the catalogue's file is named.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhHans => "zh-Hans",
            Lang::ZhHant => "zh-Hant",
            Lang::Vi => "vi",
        }
    }

    /// A language tag (BCP 47, any case, `_` for `-`) as one of ours: zh-TW, zh-HK, zh-MO
    /// and zh-Hant(-*) are Traditional Chinese, any other zh Simplified; en-* English, vi-*
    /// Vietnamese; anything else none.
    pub fn of_tag(tag: &str) -> Option<Lang> {
        let s = tag.trim().to_ascii_lowercase().replace('_', "-");
        let mut parts = s.split('-');
        match parts.next()? {
            "en" => Some(Lang::En),
            "vi" => Some(Lang::Vi),
            "zh" => {
                let rest: Vec<&str> = parts.collect();
                let traditional = rest
                    .iter()
                    .any(|p| matches!(*p, "hant" | "tw" | "hk" | "mo"))
                    && !rest.contains(&"hans");
                Some(if traditional {
                    Lang::ZhHant
                } else {
                    Lang::ZhHans
                })
            }
            _ => None,
        }
    }

    /// The language an `Accept-Language` header asks for: of its tags with a weight above
    /// zero, the most wanted (then the first written) that is one of ours; `None` when none
    /// is (or the header is empty or unreadable).
    pub fn accepted(header: &str) -> Option<Lang> {
        let mut best: Option<(u32, Lang)> = None;
        for item in header.split(',') {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or("").trim();
            let mut q = 1000u32;
            for p in parts {
                if let Some(v) = p.trim().strip_prefix("q=") {
                    q = weight(v.trim()).unwrap_or(0);
                }
            }
            if q == 0 {
                continue;
            }
            let Some(lang) = Lang::of_tag(tag) else {
                continue;
            };
            if best.is_none_or(|(b, _)| q > b) {
                best = Some((q, lang));
            }
        }
        best.map(|(_, l)| l)
    }
}

/// A quality value (`0`, `0.8`, `1.000`) in thousandths; `None` when it is not one.
fn weight(v: &str) -> Option<u32> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = match int {
        "0" => 0,
        "1" => 1000,
        _ => return None,
    };
    let f: u32 = format!("{frac:0<3}").parse().ok()?;
    Some((whole + f).min(1000))
}

impl<'de> Deserialize<'de> for Lang {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lang, D::Error> {
        let s = String::deserialize(d)?;
        Lang::ALL
            .into_iter()
            .find(|l| l.code() == s)
            .ok_or_else(|| {
                D::Error::custom(format!("must be en, zh-Hans, zh-Hant or vi, not '{s}'"))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_read_as_the_app_reads_them() {
        for (tag, want) in [
            ("en-US", Some(Lang::En)),
            ("EN", Some(Lang::En)),
            ("vi-VN", Some(Lang::Vi)),
            ("zh", Some(Lang::ZhHans)),
            ("zh-CN", Some(Lang::ZhHans)),
            ("zh-SG", Some(Lang::ZhHans)),
            ("zh-Hans-HK", Some(Lang::ZhHans)),
            ("zh-TW", Some(Lang::ZhHant)),
            ("zh_HK", Some(Lang::ZhHant)),
            ("zh-Hant", Some(Lang::ZhHant)),
            ("zh-Hant-CN", Some(Lang::ZhHant)),
            ("fr-FR", None),
            ("", None),
            ("*", None),
        ] {
            assert_eq!(Lang::of_tag(tag), want, "{tag}");
        }
    }

    #[test]
    fn the_most_wanted_language_we_have_is_chosen() {
        for (header, want) in [
            ("vi-VN,vi;q=0.9,en-US;q=0.8,en;q=0.7", Some(Lang::Vi)),
            ("fr-FR, fr;q=0.9, zh-TW;q=0.8, en;q=0.5", Some(Lang::ZhHant)),
            ("en;q=0.5, zh-CN", Some(Lang::ZhHans)),
            ("de, en;q=0", None),
            ("de;q=1.0, vi;q=0.001", Some(Lang::Vi)),
            ("en;q=0.7, vi;q=0.7", Some(Lang::En)),
            ("vi;q=2, en;q=0.1", Some(Lang::En)),
            ("vi;q=abc", None),
            ("*", None),
            ("", None),
            (";;,,;q=", None),
        ] {
            assert_eq!(Lang::accepted(header), want, "{header}");
        }
    }

    #[test]
    fn a_stored_code_is_exact() {
        let ok: Lang = serde_json::from_str("\"zh-Hant\"").unwrap();
        assert_eq!(ok, Lang::ZhHant);
        let err = serde_json::from_str::<Lang>("\"zh-TW\"").unwrap_err();
        assert!(err
            .to_string()
            .contains("must be en, zh-Hans, zh-Hant or vi, not 'zh-TW'"));
    }
}
