// Opening names in the UI's language (no imports: the catalogue test runs it in node).

// The names of the openings table (crates/xiangqi-explorer/openings.tsv) are written in
// simplified Chinese and English. Traditional Chinese writes the same words in traditional
// characters, and Vietnamese players name openings by the Sino-Vietnamese (Hán-Việt) reading
// of the Chinese words, in the same order ("Trung Pháo Đối Bình Phong Mã", "Tiên Nhân Chỉ
// Lộ", "Phi Tượng Cục"): both are made here, character by character, from the Chinese name.
const TO_HANT = {
  两: '兩', 兑: '兌', 单: '單', 压: '壓', 头: '頭', 对: '對', 盘: '盤', 红: '紅', 缓: '緩', 车: '車',
  转: '轉', 边: '邊', 过: '過', 进: '進', 钩: '鉤', 顺: '順', 风: '風', 飞: '飛', 马: '馬', 开: '開',
  横: '橫', 宫: '宮', 后: '後', 补: '補', 连: '連', 炮: '炮', 卧: '臥', 槽: '槽', 龟: '龜', 背: '背',
};
const HAN_VIET = {
  七: 'thất', 三: 'tam', 上: 'thượng', 两: 'lưỡng', 中: 'trung', 九: 'cửu', 互: 'hỗ', 五: 'ngũ',
  人: 'nhân', 仕: 'sĩ', 仙: 'tiên', 兑: 'đoái', 八: 'bát', 六: 'lục', 兵: 'binh', 列: 'liệt',
  卒: 'tốt', 单: 'đơn', 压: 'áp', 反: 'phản', 右: 'hữu', 士: 'sĩ', 大: 'đại', 头: 'đầu',
  宫: 'cung', 对: 'đối', 封: 'phong', 小: 'tiểu', 局: 'cục', 屏: 'bình', 巡: 'tuần', 左: 'tả',
  平: 'bình', 底: 'để', 开: 'khai', 手: 'thủ', 指: 'chỉ', 提: 'đề', 横: 'hoành', 正: 'chính',
  步: 'bộ', 河: 'hà', 炮: 'pháo', 盘: 'bàn', 直: 'trực', 相: 'tượng', 红: 'hồng', 缓: 'hoãn',
  虎: 'hổ', 蛇: 'xà', 角: 'giác', 象: 'tượng', 起: 'khởi', 路: 'lộ', 车: 'xa', 转: 'chuyển',
  边: 'biên', 过: 'quá', 进: 'tiến', 退: 'thoái', 金: 'kim', 钩: 'câu', 顺: 'thuận', 风: 'phong',
  飞: 'phi', 马: 'mã', 后: 'hậu', 补: 'bổ', 连: 'liên', 卧: 'ngọa', 槽: 'tào', 龟: 'quy', 背: 'bối',
};
const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);
// The Vietnamese reading of a Chinese name; `null` if a character has no reading here.
export function hanViet(zh) {
  const words = [];
  for (const ch of zh) {
    if (HAN_VIET[ch]) words.push(cap(HAN_VIET[ch]));
    else if (/[0-9０-９]/.test(ch)) words.push(ch);
    else if (/\s/.test(ch)) continue;
    else return null;
  }
  return words.join(' ');
}

// An opening's name ({eco, name, nameZh} from the API) in the UI's language, with its ECCO
// code when it has one.
export function openingName(o, lang) {
  if (!o) return '';
  const l = String(lang);
  let n = o.name;
  if (l === 'zh-Hant') n = [...o.nameZh].map((c) => TO_HANT[c] || c).join('');
  else if (l.startsWith('zh')) n = o.nameZh;
  else if (l === 'vi') n = hanViet(o.nameZh) || o.nameZh;
  return o.eco ? `${o.eco} ${n}` : n;
}
