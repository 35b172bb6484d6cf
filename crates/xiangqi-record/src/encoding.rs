//! Text encodings of record files: UTF-8 (with or without a byte-order mark), UTF-16 with a
//! byte-order mark, GBK / GB18030 (the usual encoding of Chinese records, which carry no
//! mark), and Big5 (Traditional Chinese records, told from GBK by their content).

use std::borrow::Cow;

/// The encoding a text was decoded from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TextEncoding {
    Utf8,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
    /// GB18030 (a superset of GBK and GB2312).
    Gb18030,
    /// Big5 (Traditional Chinese).
    Big5,
}

impl TextEncoding {
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 with BOM",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Gb18030 => "GB18030/GBK",
            TextEncoding::Big5 => "Big5",
        }
    }
}

/// Decodes record text: a BOM decides; otherwise valid UTF-8 is UTF-8, and anything else is
/// GB18030 or Big5: Big5 when it decodes as Big5 without an error and holds more of the
/// characters records are written with (piece names, 进/進, 退, 平, results) read that way
/// than read as GB18030; else GB18030 (bytes that are not valid there become U+FFFD).
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, TextEncoding) {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return (String::from_utf8_lossy(rest), TextEncoding::Utf8Bom);
    }
    if bytes.starts_with(b"\xFF\xFE") {
        let (s, _) = encoding_rs::UTF_16LE.decode_with_bom_removal(bytes);
        return (s, TextEncoding::Utf16Le);
    }
    if bytes.starts_with(b"\xFE\xFF") {
        let (s, _) = encoding_rs::UTF_16BE.decode_with_bom_removal(bytes);
        return (s, TextEncoding::Utf16Be);
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => (Cow::Borrowed(s), TextEncoding::Utf8),
        Err(_) => {
            let (g, _, _) = encoding_rs::GB18030.decode(bytes);
            let (b, _, b_bad) = encoding_rs::BIG5.decode(bytes);
            if !b_bad && record_chars(&b) > record_chars(&g) {
                (b, TextEncoding::Big5)
            } else {
                (g, TextEncoding::Gb18030)
            }
        }
    }
}

/// How many characters of `s` are ones Chinese records are written with, in Simplified or
/// Traditional form: the wrong one of GBK and Big5 gives other characters for the same bytes.
fn record_chars(s: &str) -> usize {
    const COMMON: &str = "车車马馬炮砲相象仕士帅帥将將兵卒进進退平前后後中一二三四五六七八九                          红紅黑胜勝负負和局棋先对對赛賽";
    s.chars().filter(|c| COMMON.contains(*c)).count()
}

/// Encodes text as GB18030 (for writing records that older Chinese programs read).
/// Characters GB18030 cannot hold do not exist (it covers all of Unicode).
pub fn encode_gb18030(s: &str) -> Vec<u8> {
    let (b, _, _) = encoding_rs::GB18030.encode(s);
    b.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_each_form() {
        assert_eq!(
            decode("炮二平五".as_bytes()),
            (Cow::Borrowed("炮二平五"), TextEncoding::Utf8)
        );
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice("炮".as_bytes());
        assert_eq!(decode(&bom).0, "炮");
        assert_eq!(decode(&bom).1, TextEncoding::Utf8Bom);
        let gbk = encode_gb18030("马８进７ 红胜");
        assert_ne!(gbk, "马８进７ 红胜".as_bytes());
        assert_eq!(
            decode(&gbk),
            (
                Cow::Owned::<str>("马８进７ 红胜".into()),
                TextEncoding::Gb18030
            )
        );
        let big5_text = "[Event \"象棋\"]\n1. 炮二平五 馬８進７ 2. 馬二進三 車９平８ 紅勝";
        let (big5, _, bad) = encoding_rs::BIG5.encode(big5_text);
        assert!(!bad);
        assert_eq!(
            decode(&big5),
            (Cow::Owned::<str>(big5_text.into()), TextEncoding::Big5)
        );
        let utf16: Vec<u8> = [0xFF, 0xFE, b'h', 0, b'2', 0].to_vec();
        assert_eq!(decode(&utf16).0, "h2");
    }
}
