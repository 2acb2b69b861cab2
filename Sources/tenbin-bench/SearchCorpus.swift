import Foundation

/// Generated poster text for the search benchmark: Japanese questions with kanji, hiragana
/// and katakana, English words, full-width and half-width forms, numbers and a few emoji, the
/// mix the original app's posters had. Deterministic for a seed.
enum Corpus {
    static let japanese = [
        "猫", "犬", "東京", "大阪", "京都", "富士山", "ラーメン", "うどん", "そば", "寿司", "カレー", "きのこ", "たけのこ", "写真",
        "夕焼け", "朝焼け", "海", "山", "夏", "冬", "春", "秋", "桜", "紅葉", "花火", "温泉", "旅行", "映画", "音楽", "漫画",
        "アニメ", "ゲーム", "コーヒー", "紅茶", "ケーキ", "チョコ", "パン", "ご飯", "弁当", "電車", "自転車", "車", "服", "靴",
        "帽子", "デザイン", "ロゴ", "フォント", "色", "赤", "青", "白", "黒", "料理", "野菜", "果物", "りんご", "みかん", "いちご",
        "ぶどう", "スマホ", "パソコン", "カメラ", "部屋", "公園", "学校", "会社", "仕事", "週末", "朝ごはん", "夜景", "空", "雲",
        "雨", "雪", "ネコ", "イヌ", "スカイツリー", "タワー", "ビール", "ワイン", "お茶", "抹茶", "アイス", "ドーナツ", "ピザ",
        "ハンバーガー", "ギター", "ピアノ", "サッカー", "野球", "テニス", "水族館", "動物園", "神社", "お寺", "北海道", "沖縄",
        "横浜", "名古屋", "福岡", "ガチャ", "グッズ", "ポスター", "ジャケット", "スニーカー", "メガネ", "時計", "ノート", "ペン",
    ]
    static let english = [
        "photo", "logo", "design", "cat", "dog", "coffee", "tea", "pizza", "sushi", "ramen", "summer", "winter", "tokyo",
        "osaka", "camera", "phone", "shoes", "color", "blue", "red", "minimal", "vintage", "retro", "font", "GPS", "ABC", "Nike",
        "Apple", "iPhone", "Android", "YouTube", "vlog", "selfie", "sunset", "beach", "mountain", "city", "night", "best",
    ]
    static let templates = [
        "{a}と{b}、どっちが好き？", "{a} vs {b}", "{a}派？{b}派？", "{a}か{b}か、それが問題だ", "どっちの{a}がいい？", "{e} or {e}?",
        "Which {e} is better?", "{a}にするなら？", "今日の{a}はどっち", "{a}と{b}で迷ってます", "{a}の{b}、どっちが{c}っぽい？",
        "第{n}回 {a}選手権", "{a}（{n}円）と{b}（{n}円）", "{e}の{a}と{b}", "{a}!! {b}!! どっち!?", "{n}点満点なら{a}？{b}？",
        "週末は{a}と{b}どっちに行く？", "{a}が好きな人は{b}も好き？", "{c}", "{a} {e} {n}",
    ]
    static let emoji = ["🐱", "🐶", "🍜", "🍣", "📷", "✨", "👍", "🎉", "😂", "🗼"]

    /// Every character the vocabulary uses, for one-character queries.
    static let characters: [Character] = Array(Set((japanese + english.map { $0.lowercased() }).joined()))

    static func text(_ random: inout Random) -> String {
        var text = ""
        for _ in 0..<(1 + random.next(2)) {
            var clause = random.pick(templates)
            for (placeholder, value) in [
                ("{a}", { (r: inout Random) in retyped(r.pick(japanese), &r) }),
                ("{b}", { (r: inout Random) in retyped(r.pick(japanese), &r) }),
                ("{c}", { (r: inout Random) in retyped(r.pick(japanese), &r) }),
                ("{e}", { (r: inout Random) in retyped(r.pick(english), &r) }),
                ("{n}", { (r: inout Random) in retyped(String(r.next(10_000)), &r) }),
            ] {
                while let range = clause.range(of: placeholder) { clause.replaceSubrange(range, with: value(&random)) }
            }
            text += clause
            if random.next(6) == 0 { text += random.pick(emoji) }
            text += random.next(2) == 0 ? " " : "。"
        }
        return text
    }

    static func hashtags(_ random: inout Random) -> [String] {
        (0..<random.next(6)).map { _ in
            let tag = random.next(3) == 0 ? random.pick(english) : random.pick(japanese)
            return (random.next(3) == 0 ? "#" : "") + retyped(tag, &random)
        }
    }

    /// A random piece of `length` characters cut from one vocabulary word (or the whole word
    /// when it is shorter), for queries.
    static func piece(length: Int, _ random: inout Random) -> String {
        for _ in 0..<20 {
            let word = Array(random.next(3) == 0 ? random.pick(english).lowercased() : random.pick(japanese))
            guard word.count >= length else { continue }
            let start = random.next(word.count - length + 1)
            return String(word[start..<(start + length)])
        }
        return String(random.pick(japanese).prefix(length))
    }

    /// The same word as a user might type it: as is, full-width, upper case, katakana as
    /// hiragana or half-width katakana, hiragana as katakana.
    static func retyped(_ word: String, _ random: inout Random) -> String {
        switch random.next(8) {
        case 0: return String(String.UnicodeScalarView(word.unicodeScalars.map(fullWidth)))
        case 1: return word.uppercased()
        case 2: return String(String.UnicodeScalarView(word.unicodeScalars.map(swapKana)))
        case 3: return halfWidth(word)
        default: return word
        }
    }

    private static func fullWidth(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (0x21...0x7E).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0xFEE0)! : scalar
    }

    private static func swapKana(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar.value {
        case 0x3041...0x3096: Unicode.Scalar(scalar.value + 0x60)!
        case 0x30A1...0x30F6: Unicode.Scalar(scalar.value - 0x60)!
        default: scalar
        }
    }

    private static let fullKatakana = Array("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンァィゥェォャュョッー".unicodeScalars)
    private static let halfKatakana = Array("ｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜｦﾝｧｨｩｪｫｬｭｮｯｰ".unicodeScalars)
    private static let toHalf = Dictionary(uniqueKeysWithValues: zip(fullKatakana, halfKatakana))

    /// Katakana in half-width forms, voiced marks as separate ﾞ and ﾟ.
    static func halfWidth(_ word: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in word.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.value {
            case 0x3099: scalars.append("\u{FF9E}")
            case 0x309A: scalars.append("\u{FF9F}")
            default: scalars.append(toHalf[scalar] ?? scalar)
            }
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }
}

/// SplitMix64: fast, deterministic, good enough for test data.
struct Random {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }

    mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
}
