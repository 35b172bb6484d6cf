//! Text encodings of record files: UTF-8 (with or without a byte-order mark), UTF-16 with a
//! byte-order mark, and GBK / GB18030 (the usual encoding of Chinese records, which carry no
//! mark).

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
}

impl TextEncoding {
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf8Bom => "UTF-8 with BOM",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Gb18030 => "GB18030/GBK",
        }
    }
}

/// Decodes record text: a BOM decides; otherwise valid UTF-8 is UTF-8 and anything else is
/// read as GB18030 (bytes that are not valid there become U+FFFD).
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
            let (s, _, _) = encoding_rs::GB18030.decode(bytes);
            (s, TextEncoding::Gb18030)
        }
    }
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
        let utf16: Vec<u8> = [0xFF, 0xFE, b'h', 0, b'2', 0].to_vec();
        assert_eq!(decode(&utf16).0, "h2");
    }
}
