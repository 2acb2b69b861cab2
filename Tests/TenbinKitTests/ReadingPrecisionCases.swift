/// The precision set of search by reading: posters' text, a query typed in kana, and whether a
/// Japanese reader typing that query wants that poster (judged by hand, not by what MeCab
/// does). ``ReadingPrecisionTests`` measures precision and recall over it; docs/benchmarks.md
/// reports them. Each group names what it probes.
enum ReadingPrecisionCases {
    typealias Case = (text: String, query: String, wanted: Bool)

    /// Common words in short questions: the reading must find them.
    static let common: [Case] = [
        ("猫が好き", "ねこ", true), ("猫が好き", "すき", true), ("猫が好き", "ねこがすき", true), ("猫が好き", "いぬ", false),
        ("犬と猫どっち？", "いぬ", true), ("犬と猫どっち？", "ねこ", true), ("犬と猫どっち？", "とり", false),
        ("東京タワーとスカイツリー", "とうきょう", true), ("東京タワーとスカイツリー", "とうきょうたわー", true),
        ("東京タワーとスカイツリー", "きょうと", false), ("寿司と焼肉", "すし", true), ("寿司と焼肉", "やきにく", true),
        ("寿司と焼肉", "にく", true), ("寿司と焼肉", "さしみ", false), ("夏と冬", "なつ", true), ("夏と冬", "ふゆ", true),
        ("夏と冬", "はる", false), ("海か山か", "うみ", true), ("海か山か", "やま", true), ("海か山か", "かわ", false),
        ("朝ごはんはパン派？", "あさ", true), ("朝ごはんはパン派？", "ぱん", true), ("朝ごはんはパン派？", "ひる", false),
        ("赤と青", "あか", true), ("赤と青", "あお", true), ("赤と青", "しろ", false), ("映画館で見る", "えいが", true),
        ("映画館で見る", "えいがかん", true), ("映画館で見る", "みる", true), ("電車とバス", "でんしゃ", true),
        ("電車とバス", "くるま", false), ("雨の日の服", "あめ", true), ("雨の日の服", "ふく", true), ("雨の日の服", "ゆき", false),
        ("好きな花は桜", "さくら", true), ("好きな花は桜", "はな", true), ("好きな花は桜", "うめ", false),
        ("ラーメンの麺", "めん", true), ("ラーメンの麺", "らーめん", true), ("ラーメンの麺", "うどん", false),
        ("大学の授業", "だいがく", true), ("大学の授業", "じゅぎょう", true), ("大学の授業", "こうこう", false),
        ("新しい靴", "くつ", true), ("新しい靴", "あたらしい", true), ("新しい靴", "ふるい", false),
        ("野球とサッカー", "やきゅう", true), ("野球とサッカー", "さっかー", true), ("野球とサッカー", "てにす", false),
        ("お茶とコーヒー", "ちゃ", true), ("お茶とコーヒー", "おちゃ", true), ("お茶とコーヒー", "こうちゃ", false),
        ("猫の写真", "しゃしん", true), ("猫の写真", "どうが", false), ("音楽を聴く", "おんがく", true), ("音楽を聴く", "きく", true),
    ]

    /// Homophones: a kana query means every word read that way (the reader typed the sound),
    /// and a query never finds a word read otherwise.
    static let homophones: [Case] = [
        ("紙を切る", "かみ", true), ("髪を切る", "かみ", true), ("神に祈る", "かみ", true), ("紙を切る", "かみをきる", true),
        ("髪を切る", "かみをきる", true), ("紙を切る", "はし", false), ("橋を渡る", "はし", true), ("箸で食べる", "はし", true),
        ("端に寄せる", "はし", true), ("橋を渡る", "かみ", false), ("箸で食べる", "はしでたべる", true),
        ("雨と飴", "あめ", true), ("飴が好き", "あめ", true), ("飴が好き", "あまい", false), ("柿と牡蠣", "かき", true),
        ("牡蠣フライ", "かき", true), ("花と鼻", "はな", true), ("鼻が高い", "はな", true), ("鼻が高い", "たかい", true),
        ("鼻が高い", "ひくい", false), ("雲と蜘蛛", "くも", true), ("蜘蛛が苦手", "くも", true), ("蜘蛛が苦手", "にがて", true),
        ("箱と橋", "はこ", true), ("箱と橋", "はし", true), ("酒と鮭", "さけ", true), ("鮭おにぎり", "さけ", true),
        ("鮭おにぎり", "おにぎり", true), ("鮭おにぎり", "うめ", false), ("火と日", "ひ", true), ("日曜日", "にちようび", true),
        ("日曜日", "どようび", false), ("気温と機嫌", "きおん", true), ("気温と機嫌", "きげん", true), ("期限切れ", "きげん", true),
    ]

    /// Readings chosen in context, where the dictionary's choice is not the reader's: the
    /// misses and false finds the docs own up to.
    static let context: [Case] = [
        ("日本の夏", "にほん", true), ("日本の夏", "にっぽん", true), ("明日の天気", "あした", true), ("明日の天気", "あす", true),
        ("明日の天気", "てんき", true), ("今日は晴れ", "きょう", true), ("今日は晴れ", "はれ", true), ("今日は晴れ", "こんにち", false),
        ("辛いカレー", "からい", true), ("辛いカレー", "かれー", true), ("辛い仕事", "つらい", true), ("上手な絵", "じょうず", true),
        ("上手な絵", "え", true), ("生ビール", "なま", true), ("生ビール", "なまびーる", true), ("人気のラーメン屋", "にんき", true),
        ("人気のラーメン屋", "らーめんや", true), ("紅葉を見に行く", "もみじ", true), ("紅葉を見に行く", "こうよう", true),
        ("一日中遊ぶ", "いちにち", true), ("一日中遊ぶ", "あそぶ", true), ("大人と子供", "おとな", true), ("大人と子供", "こども", true),
        ("角を曲がる", "かど", true), ("角を曲がる", "まがる", true), ("風邪をひいた", "かぜ", true), ("風が強い", "かぜ", true),
        ("風が強い", "つよい", true), ("下手な字", "へた", true), ("下手な字", "じ", true), ("方向音痴", "ほうこう", true),
        ("方向音痴", "おんち", true), ("背が高い", "せ", true), ("背が高い", "たかい", true),
    ]

    /// People's and places' names: a name read another way is a miss, not a wrong find.
    static let names: [Case] = [
        ("田中さんと佐藤さん", "たなか", true), ("田中さんと佐藤さん", "さとう", true), ("田中さんと佐藤さん", "すずき", false),
        ("鈴木と山田", "すずき", true), ("鈴木と山田", "やまだ", true), ("渋谷か新宿か", "しぶや", true),
        ("渋谷か新宿か", "しんじゅく", true), ("渋谷か新宿か", "いけぶくろ", false), ("大阪と京都", "おおさか", true),
        ("大阪と京都", "きょうと", true), ("大阪と京都", "こうべ", false), ("北海道の冬", "ほっかいどう", true),
        ("沖縄の海", "おきなわ", true), ("羽生結弦の演技", "はにゅう", true), ("羽生結弦の演技", "ゆづる", true),
        ("羽生結弦の演技", "えんぎ", true), ("大谷翔平のホームラン", "おおたに", true), ("大谷翔平のホームラン", "しょうへい", true),
        ("大谷翔平のホームラン", "ほーむらん", true), ("富士山と高尾山", "ふじさん", true), ("富士山と高尾山", "たかおさん", true),
        ("名古屋の味噌カツ", "なごや", true), ("名古屋の味噌カツ", "みそかつ", true), ("名古屋の味噌カツ", "みそ", true),
        ("横浜中華街", "よこはま", true), ("横浜中華街", "ちゅうかがい", true), ("福岡の屋台", "ふくおか", true),
        ("夏目漱石と太宰治", "なつめ", true), ("夏目漱石と太宰治", "だざい", true), ("夏目漱石と太宰治", "そうせき", true),
    ]

    /// Latin letters and numbers among the kana and kanji.
    static let mixed: [Case] = [
        ("iPhone15の色", "いろ", true), ("iPhone15の色", "iphone15のいろ", true), ("iPhone15の色", "かたち", false),
        ("3匹の猫", "ねこ", true), ("3匹の猫", "ひき", true), ("3匹の猫", "3びき", true), ("3匹の猫", "いぬ", false),
        ("第2回投票", "とうひょう", true), ("第2回投票", "だい", true), ("DJ松永", "まつなが", true), ("AKB48の曲", "きょく", true),
        ("AKB48の曲", "akb48のきょく", true), ("Tシャツの柄", "がら", true), ("Tシャツの柄", "しゃつ", true),
        ("USB充電器", "じゅうでんき", true), ("USB充電器", "usbじゅうでんき", true), ("5G回線", "かいせん", true),
        ("F1と野球", "やきゅう", true), ("F1と野球", "えふわん", true), ("100円ショップ", "えん", true),
        ("100円ショップ", "ひゃくえん", true), ("2024年の夏", "なつ", true), ("2024年の夏", "ねん", true),
        ("CDとレコード", "れこーど", true), ("Wi-Fiの速度", "そくど", true), ("Wi-Fiの速度", "わいふぁい", true),
    ]

    /// Words MeCab splits or joins in ways a reader would not, and matches across words.
    static let splits: [Case] = [
        ("外国人参政権", "がいこくじん", true), ("外国人参政権", "さんせいけん", true), ("外国人参政権", "にんじん", false),
        ("東京都庁", "とうきょうと", true), ("東京都庁", "とちょう", true), ("京都府の寺", "きょうとふ", true),
        ("京都府の寺", "てら", true), ("特許許可局", "とっきょ", true), ("特許許可局", "きょかきょく", true),
        ("すもももももももものうち", "すもも", true), ("猫が好き", "がす", false), ("猫が好き", "こが", false),
        ("東京タワー", "きょうた", false), ("今日は晴れ", "うは", false), ("寿司と焼肉", "しと", false),
        ("赤と青", "かと", false), ("花と鼻", "なとは", false), ("大学の授業", "くのじゅ", false),
        ("電車とバス", "しゃと", false), ("新しい靴", "いく", false), ("映画館で見る", "かんで", false),
        ("夏と冬", "つと", false), ("お茶とコーヒー", "ちゃと", false), ("野球とサッカー", "うと", false),
        ("猫の写真", "この", false), ("鮭おにぎり", "けお", false), ("生ビール", "まび", false),
        ("東京と大阪", "とうきょうとおおさか", true), ("東京と大阪", "ょうと", false), ("東京と大阪", "うとお", false),
        ("自由が丘", "じゆうがおか", true), ("自由が丘", "おか", true), ("今年の目標", "もくひょう", true),
        ("今年の目標", "ことし", true), ("一人暮らし", "ひとりぐらし", true), ("一人暮らし", "くらし", true),
    ]

    /// Every case.
    static let all: [Case] = common + homophones + context + names + mixed + splits
}
