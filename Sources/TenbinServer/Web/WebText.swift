import TenbinKit

/// Every string tenbin's pages show, in each ``WebLanguage``: one table for the Swift that
/// renders the HTML and for app.js, which gets the page language's entries as JSON in the
/// body's `data-strings` (``WebText/scriptTable``), so a toast or an error the script shows is
/// in the page's language too.
///
/// `{0}`, `{1}` … stand for arguments: ``WebText/format(_:_:)`` fills them in Swift, `t(key,
/// …)` in app.js. Messages that come from the API (a refusal's reason) stay in English inside
/// a translated sentence.
enum WebString: String, Sendable, CaseIterable {
    case skipToPosters, searchPlaceholder, searchLabel, orderLabel, tabNew, tabPopular, tabTrending, languageLabel
    case newPoster, leftImage, rightImage, previewLeft, previewRight, altLeft, altRight, question, questionPlaceholder
    case hashtags, hashtagsPlaceholder, post, altWithQuestion, altWithoutQuestion, posterNumber
    case voteLeft, voteRight, noVotes, morePosters, noPostersYet, nothingMatches, postersMatching
    case problemTitle, notFoundTitle, goneTitle, backToBoard, viewLarge, close, share, allPosters, linkCopied, copyTheLink
    case liveStopped, voteNotCounted, voteUnreachable, moreFailed, moreUnreachable, searchFailed
    case searchUnreachable, serverAnswered, chooseLeft, chooseRight, fileEmpty, notAnImage, tooLarge
    case posted, postUnreachable, questionTooLong, votedAnnouncement, justNow, minutesAgo, hoursAgo
    case daysAgo, tagTitle, tagTotals, tagTotalsOne, tagTimeline, tagEmpty, tagPage
    case trendTitle, trendSummary
    case report, reportPoster, reportReason, reportNote, sendReport, reasonSpam, reasonAbuse, reasonIllegal, reasonOther
    case reportSending, reportThanks, reportUnreachable
    case moderationTitle, adminToken, logIn, logOut, adminTokenWrong, queueHeading, nothingToReview, logHeading
    case proofNeedsScript, proofWorking, proofFailed
    case hiddenSince, shown, oneReport, reportCount, moderationReason, restore, hide, remove

    /// The English and the Japanese text.
    var text: (en: String, ja: String) {
        switch self {
        case .skipToPosters: ("Skip to the posters", "投稿へ移動")
        case .searchPlaceholder: ("Search words or #tags", "ことばや #タグ で検索")
        case .searchLabel: ("Search posters", "投稿を検索")
        case .orderLabel: ("Order", "並び順")
        case .tabNew: ("New", "新着")
        case .tabPopular: ("Popular", "人気")
        case .tabTrending: ("Trending", "急上昇")
        case .languageLabel: ("Language", "言語")
        case .newPoster: ("New poster", "新しく投稿")
        case .leftImage: ("Left image", "左の画像")
        case .rightImage: ("Right image", "右の画像")
        case .previewLeft: ("Preview of the left image", "左の画像のプレビュー")
        case .previewRight: ("Preview of the right image", "右の画像のプレビュー")
        case .altLeft: ("What the left image shows (alt text)", "左の画像の説明（代替テキスト）")
        case .altRight: ("What the right image shows (alt text)", "右の画像の説明（代替テキスト）")
        case .question: ("Question", "質問")
        case .questionPlaceholder: ("Which do you prefer?", "どっちが好き？")
        case .hashtags: ("Hashtags", "ハッシュタグ")
        case .hashtagsPlaceholder: ("#cats #dogs", "#ねこ #いぬ")
        case .post: ("Post", "投稿する")
        case .altWithQuestion: ("{0}: {1}", "{0}：{1}")
        case .altWithoutQuestion: ("{0} of poster {1}", "投稿 {1} の{0}")
        case .posterNumber: ("Poster #{0}", "投稿 #{0}")
        case .voteLeft: ("Vote left", "左に投票")
        case .voteRight: ("Vote right", "右に投票")
        case .noVotes: ("No votes yet", "まだ投票がありません")
        case .morePosters: ("More posters", "もっと見る")
        case .noPostersYet: ("No posters yet.", "まだ投稿がありません。")
        case .nothingMatches: ("Nothing matches “{0}”.", "「{0}」に一致する投稿はありません。")
        case .postersMatching: ("Posters matching “{0}”", "「{0}」に一致する投稿")
        case .problemTitle: ("That did not work", "うまくいきませんでした")
        case .notFoundTitle: ("Not found", "見つかりません")
        case .goneTitle: ("Gone", "削除されました")
        case .share: ("Share", "共有")
        case .allPosters: ("All posters", "すべての投稿")
        case .linkCopied: ("Link copied.", "リンクをコピーしました。")
        case .copyTheLink: ("Copy the link: {0}", "リンクをコピーしてください：{0}")
        case .backToBoard: ("Back to the board", "ボードに戻る")
        case .viewLarge: ("View {0} large", "{0}を大きく表示")
        case .close: ("Close", "閉じる")
        case .liveStopped: ("Live updates stopped: {0}", "ライブ更新が止まりました：{0}")
        case .voteNotCounted: ("Your vote was not counted: {0}", "投票は数えられませんでした：{0}")
        case .voteUnreachable:
            (
                "The server could not be reached; your vote may not have counted.",
                "サーバーに接続できませんでした。投票は数えられていないかもしれません。"
            )
        case .moreFailed: ("More posters could not be loaded: {0}", "続きを読み込めませんでした：{0}")
        case .moreUnreachable:
            ("More posters could not be loaded: the server cannot be reached.", "続きを読み込めませんでした：サーバーに接続できません。")
        case .searchFailed: ("Search failed: {0}", "検索できませんでした：{0}")
        case .searchUnreachable: ("Search failed: the server cannot be reached.", "検索できませんでした：サーバーに接続できません。")
        case .serverAnswered: ("the server answered {0}", "サーバーの応答は {0} でした")
        case .chooseLeft: ("Choose the left image.", "左の画像を選んでください。")
        case .chooseRight: ("Choose the right image.", "右の画像を選んでください。")
        case .fileEmpty: ("{0} is empty.", "{0} は空のファイルです。")
        case .notAnImage: ("{0} is not a JPEG, PNG, WebP, HEIC or AVIF image.", "{0} は JPEG・PNG・WebP・HEIC・AVIF の画像ではありません。")
        case .tooLarge:
            (
                "The two images are {0} together; this server takes at most {1}. Choose smaller images.",
                "2 枚の画像は合わせて {0} です。このサーバーが受け付けるのは {1} までです。小さい画像を選んでください。"
            )
        case .posted: ("Posted #{0}.", "#{0} を投稿しました。")
        case .postUnreachable:
            (
                "The server could not be reached; the poster may have been stored: look for it on the board before posting again.",
                "サーバーに接続できませんでした。投稿は保存されたかもしれません。もう一度投稿する前にボードを確かめてください。"
            )
        case .questionTooLong: ("The question is {0} bytes long; this server takes at most {1}.", "質問が {0} バイトあります。上限は {1} バイトです。")
        case .votedAnnouncement: ("{0}: {1} votes, {2}%", "{0}：{1} 票、{2}%")
        case .justNow: ("just now", "たった今")
        case .minutesAgo: ("{0} min ago", "{0}分前")
        case .hoursAgo: ("{0} h ago", "{0}時間前")
        case .daysAgo: ("{0} d ago", "{0}日前")
        case .trendTitle: ("Votes over time", "投票の推移")
        case .trendSummary:
            (
                "Votes since {0}: left {1}, right {2}; in the last 24 hours left +{3}, right +{4}.",
                "{0}からの投票：左 {1}、右 {2}。直近24時間：左 +{3}、右 +{4}。"
            )
        case .report: ("Report", "通報")
        case .reportPoster: ("Report poster {0}", "投稿 {0} を通報")
        case .reportReason: ("Reason", "理由")
        case .reportNote: ("Note", "メモ")
        case .sendReport: ("Send report", "通報する")
        case .reasonSpam: ("Spam", "スパム")
        case .reasonAbuse: ("Abusive", "嫌がらせ・暴言")
        case .reasonIllegal: ("Illegal", "違法")
        case .reasonOther: ("Something else", "その他")
        case .reportSending: ("Sending…", "送信中…")
        case .reportThanks: ("Thank you: reported.", "ありがとうございます。通報しました。")
        case .reportUnreachable: ("could not reach the server: {0}", "サーバーに接続できませんでした：{0}")
        case .proofNeedsScript:
            (
                "Posting on this board needs JavaScript: the page does a little work for each post (a proof of work) before sending it.",
                "このボードへの投稿には JavaScript が必要です。送信の前に、ページが投稿ごとに少し計算をします（プルーフ・オブ・ワーク）。"
            )
        case .proofWorking: ("Checking this post before sending it: {0}% of the expected work…", "送信の前に確認しています：予想される計算の {0}%…")
        case .proofFailed: ("The post could not be prepared: {0}", "投稿を準備できませんでした：{0}")
        case .moderationTitle: ("Moderation", "モデレーション")
        case .adminToken: ("Admin token", "管理トークン")
        case .logIn: ("Log in", "ログイン")
        case .logOut: ("Log out", "ログアウト")
        case .adminTokenWrong: ("The admin token is wrong.", "管理トークンが違います。")
        case .queueHeading: ("Queue ({0})", "確認待ち（{0}）")
        case .nothingToReview: ("Nothing to review.", "確認するものはありません。")
        case .logHeading: ("Log", "記録")
        case .hiddenSince: ("hidden since {0}", "{0} から非表示")
        case .shown: ("shown", "表示中")
        case .oneReport: ("{0} report", "通報 {0} 件")
        case .reportCount: ("{0} reports", "通報 {0} 件")
        case .moderationReason: ("Reason", "理由")
        case .restore: ("Restore", "元に戻す")
        case .hide: ("Hide", "非表示にする")
        case .remove: ("Remove", "削除する")
        case .tagTitle: ("#{0}: trending posters", "#{0} の急上昇")
        case .tagTotals: ("{0} posters · {1} votes", "投稿 {0} 件・{1} 票")
        case .tagTotalsOne: ("1 poster · {1} votes", "投稿 1 件・{1} 票")
        case .tagTimeline: ("Votes per day on posters tagged #{0}", "#{0} の投稿への1日ごとの票数")
        case .tagEmpty: ("No poster has this tag yet.", "このタグの投稿はまだありません。")
        case .tagPage: ("The page of #{0}", "#{0} のページ")
        }
    }
}

/// The strings of one page in one language.
struct WebText: Sendable {
    /// The page's language.
    let language: WebLanguage

    /// The text of `key` in this language.
    subscript(_ key: WebString) -> String {
        language == .ja ? key.text.ja : key.text.en
    }

    /// The text of `key` with `{0}`, `{1}` … replaced by `arguments` (plain text: escape the
    /// result for HTML as any other text).
    func format(_ key: WebString, _ arguments: String...) -> String {
        Self.fill(self[key], arguments)
    }

    /// The text of `key` escaped for HTML, with `{0}`, `{1}` … replaced by `arguments` as
    /// they are (HTML the caller made safe).
    func html(_ key: WebString, _ arguments: String...) -> String {
        Self.fill(SafeText.html(self[key]), arguments)
    }

    private static func fill(_ template: String, _ arguments: [String]) -> String {
        var text = template
        for (index, argument) in arguments.enumerated() {
            text = text.replacing("{\(index)}", with: argument)
        }
        return text
    }

    /// Every string in this language as a JSON object by key, for app.js (placed in an
    /// attribute, escaped there like any text).
    var scriptTable: String {
        var writer = JSONWriter()
        writer.object { object in
            for key in WebString.allCases { object.field(key.rawValue, self[key]) }
        }
        return writer.text
    }
}
