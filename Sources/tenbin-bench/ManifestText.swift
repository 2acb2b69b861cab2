/// Poster text for the manifest import benchmark, shaped like what people post: 20–80
/// characters (uniformly) of hiragana, katakana, kanji, ASCII and full-width words, joined
/// by nothing, ASCII spaces or ideographic spaces, with 0–5 hashtags (uniformly). Kanji
/// compounds and kana runs are partly drawn at random from common characters, so the text
/// has a realistic spread of distinct two- and three-character pieces. Deterministic for a
/// seed.
enum ManifestText {
    static let kanji = Array(
        "日一国会人年大十二本中長出三同時政事自行社見月分議後前民生連五発間対上部東者党地合市業内相方四定今回新場金員九入選立開手米力学問高代明実円関決子動京全目表戦経通外最言氏現理調体化田当八六約主題下首意法不来作性的要用制治度務強気小七成期公持野協取都和統以機平総加山思家話世受区領多県続進正安設保改数記院女初北午指権心界支第産結百派点教報済書府活原先共得解名交資予川向際査勝面委告軍文反元重近千考判認画海参売利組知案道信策集在件団別物側任引使求所次水半品昨論計死官増係感特情投示変打直両式確果容必演歳争談能位置流格疑過局放常状球職与供役構割費付由説難優夫収断石違消神番規術備宅害配警育席訪乗残想声助労例然限追商葉伝働形景落好退頭負渡失差末守若種美命福望非観察段横深申様財港識呼達良候程満敗値突光路科積他処太客否師登易速存飛殺号単座破除完降責捕危給苦迎園具辞因馬愛富彼未舞亡冷適婦寄込顔類余王返妻背熱宿薬険頼覚船途許抜便留罪努精散静婚喜浮絶幸押倒等老曲払庭徒勤遅居雑招困欠更刻賛抱犯恐息遠戻願絵越欲痛笑互束似列探逃遊迷夢君閉緒折草暮酒悲晴掛到寝暗盗吸陽御歯忘雪吹娘誤洗慣礼窓昔貧怒泳祖杯疲皆鳴腹煙眠怖耳頂箱晩寒髪忙才靴恥偶偉猫幾"
    )
    static let hiragana = Array("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんがぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽゃゅょっ")
    static let katakana = Array("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲンガギグゲゴザジズゼゾダヂヅデドバビブベボパピプペポャュョッー")
    static let ascii = [
        "photo", "logo", "design", "cat", "dog", "coffee", "tea", "pizza", "sushi", "ramen", "summer", "winter", "tokyo", "osaka",
        "camera", "phone", "shoes", "color", "blue", "red", "minimal", "vintage", "retro", "font", "GPS", "ABC", "Nike", "Apple",
        "iPhone", "Android", "YouTube", "vlog", "selfie", "sunset", "beach", "mountain", "city", "night", "best", "vs", "or",
        "which", "better", "new", "old", "v2", "2024", "100", "OK", "NG", "DIY", "USB", "4K", "lol",
    ]
    static let particles = ["の", "と", "は", "が", "を", "に", "で", "も", "か", "や", "って", "から", "まで", "より", "だけ", "ね", "よ"]
    static let endings = ["どっち？", "どっちが好き？", "はどう？", "派？", "かな", "！", "？", "。", "です", "にする？", "がいい？", "っぽい"]

    /// A word of one kind: kanji compound, hiragana run, katakana word, ASCII word or full-width word.
    static func word(_ random: inout Random) -> String {
        switch random.next(10) {
        case 0, 1, 2: return String((0..<(1 + random.next(3))).map { _ in random.pick(kanji) })
        case 3: return String((0..<(2 + random.next(3))).map { _ in random.pick(hiragana) })
        case 4, 5: return String((0..<(2 + random.next(5))).map { _ in random.pick(katakana) })
        case 6: return random.pick(ascii)
        case 7: return String(String.UnicodeScalarView(random.pick(ascii).unicodeScalars.map { Unicode.Scalar($0.value + 0xFEE0)! }))
        case 8: return random.pick(Corpus.japanese)
        default: return random.pick(particles)
        }
    }

    /// Contents of 20–80 characters.
    static func contents(_ random: inout Random) -> String {
        let length = 20 + random.next(61)
        var text: [Character] = []
        while text.count < length {
            let word = Array(random.next(8) == 0 ? random.pick(endings) : self.word(&random))
            let lastIsASCII = text.last.map { $0.isASCII && $0.isLetter } ?? false
            if !text.isEmpty {
                switch random.next(6) {
                case 0: text.append(" ")
                case 1: text.append("\u{3000}")
                default: if lastIsASCII && (word.first?.isASCII ?? false) { text.append(" ") }
                }
            }
            text += word
        }
        return String(text.prefix(length)).trimmingTrailingSpaces
    }

    /// 0–5 hashtags, a few typed with `#`.
    static func hashtags(_ random: inout Random) -> [String] {
        (0..<random.next(6)).map { _ in
            var tag = word(&random)
            if random.next(3) == 0 { tag += word(&random) }
            return (random.next(4) == 0 ? "#" : "") + tag
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while let last = text.last, last == " " || last == "\u{3000}" { text.removeLast() }
        return text.count < 20 ? text + String(repeating: "あ", count: 20 - text.count) : text
    }
}
